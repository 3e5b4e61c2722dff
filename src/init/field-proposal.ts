import { goldShape, traceShape } from '../grounded-answer/contract.js';
import { CompiledFieldMap, type FieldMap, type FieldSource } from '../io/field-map.js';
import { parsePointer, pointerGet } from '../io/json-pointer.js';
import { isObject, shapeKinds, shapeTest, type Shape, type ValueKind } from '../io/record-shape.js';

// A `fields:` mapping proposed for records that are near the grounded-answer contracts: for each canonical
// member, the common names pipelines give it, tried on every sampled record. Only mappings the field map
// accepts are proposed (a pointer, `*` for a list of strings, `scale` for a duration, `unit` for a timestamp).

/** One proposed line of `fields:`: where the canonical member is read from, and why. */
export interface FieldLine {
  canonical: string;
  source: FieldSource;
  /** What matched: `id → qid (matched name "id")`. */
  note: string;
  /** Written commented out: more than one candidate, or a type not confirmed on every sampled record. */
  unsure?: string;
}

export interface FieldProposal {
  input: 'traces' | 'gold';
  lines: FieldLine[];
  /** Required members the records hold under no name tried: the mapping cannot make them contract records. */
  missing: string[];
  /** For a required member found on some records only, or not of its kind: where, and on how many. */
  partial: Record<string, string>;
}

/** The map of the lines that are sure (the unsure ones are written commented out and not applied). */
export const appliedMap = (p: FieldProposal): FieldMap =>
  Object.fromEntries(p.lines.filter((l) => !l.unsure).map((l) => [l.canonical, l.source]));

interface Candidate {
  pointer: string;
  scale?: number;
  unit?: 'ms';
}

export const ID = ['id', 'question_id', 'query_id', 'questionId', 'queryId', 'item_id', 'example_id', 'uid'];
export const QUESTION = ['question', 'query', 'q', 'prompt', 'input'];
/** Lists of what was retrieved, as strings or as objects with an id member. */
const RETRIEVED = [
  'contexts',
  'context',
  'documents',
  'docs',
  'retrieved',
  'retrieved_docs',
  'retrieved_documents',
  'chunks',
  'passages',
  'hits',
  'results',
  // Last: a top-level `sources` is more often what the answer cites (LangChain's "sources") than what was
  // retrieved, and is taken as the retrieved list only when the record has no other.
  'sources',
];
const DOC_ID = ['doc_id', 'id', 'document_id', 'docid', 'chunk_id', 'source_id'];
const ANSWER_PARENT = ['response', 'answer', 'output', 'result', 'generation', 'completion'];
const CLAIM_CHILD = ['text', 'answer', 'content', 'claim', 'output'];
const CITED = ['sources', 'citations', 'cited', 'cited_ids', 'references'];
const SECONDS = ['latency_s', 'latency_seconds', 'duration_s', 'elapsed_s', 'latency_sec', 'seconds'];
const MILLIS = ['latency', 'duration_ms', 'elapsed_ms', 'latency_millis'];
const TIME = ['timestamp', 'created_at', 'time', 'ts', 'created', 'start_time'];
const FACTS = [
  'gold_facts',
  'answers',
  'facts',
  'expected_facts',
  'gold_answers',
  'key_facts',
  'answer_substrings',
  'expected',
];
const EVIDENCE = ['relevant_ids', 'evidence', 'gold_doc_ids', 'relevant_docs', 'gold_ids', 'supporting_ids'];
const ANSWERABLE = ['is_answerable', 'has_answer', 'answerable'];

const at = (...tokens: string[]) => `/${tokens.join('/')}`;
const lists = (names: readonly string[], ids: readonly string[]): Candidate[] =>
  names.flatMap((n) => [{ pointer: at(n) }, ...ids.map((id) => ({ pointer: at(n, '*', id) }))]);

/** For each canonical member a record may hold elsewhere, the names tried, most likely first. */
const TRACE_CANDIDATES: Record<string, Candidate[]> = {
  '/qid': ID.map((n) => ({ pointer: at(n) })),
  '/q': QUESTION.map((n) => ({ pointer: at(n) })),
  '/retrieved_ids': [
    ...lists(RETRIEVED, DOC_ID),
    { pointer: '/retrieval/ids' },
    ...lists(['retrieved_ids'], DOC_ID).slice(1),
  ],
  '/answer_json/claim': [
    ...ANSWER_PARENT.flatMap((p) => CLAIM_CHILD.map((c) => ({ pointer: at(p, c) }))),
    ...ANSWER_PARENT.map((p) => ({ pointer: at(p) })),
    { pointer: '/claim' },
    { pointer: '/text' },
  ],
  '/answer_json/citations': [
    ...ANSWER_PARENT.flatMap((p) =>
      lists(
        CITED.map((c) => `${p}/${c}`),
        DOC_ID,
      ),
    ),
    ...lists(['citations', 'cited_ids', 'cited', 'sources'], DOC_ID),
  ],
  '/latency_ms': [
    ...SECONDS.map((n) => ({ pointer: at(n), scale: 1000 })),
    ...MILLIS.map((n) => ({ pointer: at(n) })),
  ],
  '/ts': TIME.map((n) => ({ pointer: at(n) })),
  // OpenAI's usage, Anthropic's, and LangChain's usage_metadata, at the top or under response/.
  '/tokens_in': usage(['prompt_tokens', 'input_tokens']),
  '/tokens_out': usage(['completion_tokens', 'output_tokens']),
  // The cached part of the input: OpenAI's Chat Completions and Responses, LangChain's usage_metadata. Not
  // Anthropic's cache_read_input_tokens, which its input_tokens does not include.
  '/tokens_cached': usage([
    'prompt_tokens_details/cached_tokens',
    'input_tokens_details/cached_tokens',
    'input_token_details/cache_read',
  ]),
  '/model': ['model', 'model_name', 'response/model', 'llm/model'].map((n) => ({ pointer: at(n) })),
};

/** Where logs keep a token count named one of `names`: under usage/ or usage_metadata/, or response/usage/. */
function usage(names: readonly string[]): Candidate[] {
  return ['usage', 'usage_metadata', 'response/usage'].flatMap((parent) =>
    names.map((n) => ({ pointer: at(parent, n) })),
  );
}

const GOLD_CANDIDATES: Record<string, Candidate[]> = {
  '/qid': ID.map((n) => ({ pointer: at(n) })),
  '/question': QUESTION.map((n) => ({ pointer: at(n) })),
  '/answerable': ANSWERABLE.map((n) => ({ pointer: at(n) })),
  '/gold_claim_substr': lists(FACTS, ['text', 'fact']),
  '/gold_citations': lists([...EVIDENCE, 'citations', 'sources'], DOC_ID),
};

/** The value a candidate reads from a record, `*` reading every element; undefined when absent. */
function read(record: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer) as string[];
  const star = tokens.indexOf('*');
  if (star < 0) return pointerGet(record, tokens);
  const list = pointerGet(record, tokens.slice(0, star));
  if (!Array.isArray(list)) return undefined;
  return list.map((x) => pointerGet(x, tokens.slice(star + 1)));
}

function fits(kind: ValueKind, v: unknown): boolean {
  switch (kind) {
    case 'id':
      return typeof v === 'string' && v !== '';
    case 'string':
      return typeof v === 'string';
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'boolean':
      return typeof v === 'boolean';
    case 'duration':
      return Number.isFinite(v) && (v as number) >= 0;
    case 'count':
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case 'timestamp':
      return Number.isFinite(v) || typeof v === 'string';
    case 'number-or-string':
      return Number.isFinite(v) || typeof v === 'string';
  }
}

/** The member's last token, as the user reads it: `retrieved_ids`, `answer_json.claim`. */
const memberName = (pointer: string) => pointer.slice(1).replaceAll('/', '.');

/**
 * The mapping that would make `records` contract records of `input`, each member from the first name tried
 * that holds a value of its kind on every sampled record. A member already in its own place is not mapped.
 */
export function proposeFields(records: readonly unknown[], input: 'traces' | 'gold'): FieldProposal {
  const s: Shape = input === 'traces' ? traceShape : goldShape;
  const table = input === 'traces' ? TRACE_CANDIDATES : GOLD_CANDIDATES;
  const kinds = new Map(shapeKinds(s));
  const objects = records.filter(isObject);
  const out: FieldProposal = { input, lines: [], missing: [], partial: {} };
  for (const [canonical, candidates] of Object.entries(table)) {
    const kind = kinds.get(canonical) as ValueKind;
    const required = isRequired(s, canonical);
    const own = objects.map((r) => read(r, canonical));
    if (objects.length && own.every((v) => v !== undefined && fits(kind, v))) continue;
    if (!required && own.some((v) => v !== undefined)) continue;
    const seen = candidates
      .filter((c) => c.pointer !== canonical)
      .map((c) => {
        const values = objects.map((r) => read(r, c.pointer));
        const present = values.filter((v) => v !== undefined && (!Array.isArray(v) || v.length > 0));
        const scaled = (v: unknown) => (c.scale && typeof v === 'number' ? v * c.scale : v);
        // A list left out where it would be empty (a refusal logged without its sources) is read as [].
        const absent = kind === 'strings' ? values.filter((v) => v === undefined).length : 0;
        return {
          c,
          present: present.length,
          absent,
          fit: values.filter((v) => v !== undefined && fits(kind, scaled(v))).length,
          fitsAll:
            (absent > 0 || values.every((v) => v !== undefined)) &&
            values.every((v) => (absent > 0 && v === undefined) || fits(kind, scaled(v))) &&
            present.length > 0,
          epochMs: kind === 'timestamp' && values.every((v) => typeof v === 'number' && v > 1e11),
        };
      })
      .filter((x) => x.present > 0);
    if (seen.length === 0) {
      if (required) out.missing.push(canonical);
      continue;
    }
    const sure = seen.filter((x) => x.fitsAll);
    const best = sure[0] ?? seen[0]!;
    const unit = best.epochMs ? ('ms' as const) : undefined;
    const absent = best.fitsAll ? best.absent : 0;
    const source: FieldSource = best.c.scale
      ? { from: best.c.pointer, scale: best.c.scale }
      : unit
        ? { from: best.c.pointer, unit }
        : absent
          ? { from: best.c.pointer, default: [] }
          : best.c.pointer;
    const others = (sure.length ? sure : seen).slice(1).map((x) => x.c.pointer);
    const name = best.c.pointer.slice(1).replaceAll('/', '.').replaceAll('.*.', '[*].');
    const how = best.c.scale
      ? `, seconds × ${best.c.scale}`
      : unit
        ? ', epoch milliseconds'
        : absent
          ? `; absent on ${absent} of ${objects.length} sampled records: read as []`
          : '';
    let unsure: string | undefined;
    if (sure.length === 0)
      unsure = `not ${kindWord(kind)} on all ${objects.length} sampled records (${best.present} have it)`;
    else if (others.length) unsure = `also ${others.join(', ')}`;
    // A required member must be read from somewhere: the first name tried is applied, the others named.
    if (unsure && required && sure.length > 0) {
      out.lines.push({
        canonical,
        source,
        note: `${name} → ${memberName(canonical)} (matched name "${name}"${how}; ${unsure})`,
      });
      continue;
    }
    if (unsure && required) {
      out.missing.push(canonical);
      out.partial[canonical] =
        `${name} is ${kindWord(kind)} on ${best.fit} of ${objects.length} sampled records; the contract needs it on each`;
    }
    out.lines.push({
      canonical,
      source,
      note: `${name} → ${memberName(canonical)} (matched name "${name}"${how})`,
      ...(unsure ? { unsure } : {}),
    });
  }
  return out;
}

const kindWord = (kind: ValueKind) =>
  ({
    id: 'a non-empty string',
    string: 'a string',
    strings: 'a list of strings',
    boolean: 'true or false',
    duration: 'a number ≥ 0',
    count: 'a whole number ≥ 0',
    timestamp: 'a number or a string',
    'number-or-string': 'a number or a string',
  })[kind];

function isRequired(s: Shape, pointer: string): boolean {
  let members = s.members;
  let ok = true;
  for (const t of pointer.slice(1).split('/')) {
    const m = members[t];
    if (!m) return false;
    ok = ok && !m.optional;
    if (typeof m.kind === 'object') members = m.kind.members;
  }
  return ok;
}

/** The sampled records after the sure lines of the proposal, when every one of them is then a contract record. */
export function mapped(records: readonly unknown[], p: FieldProposal): unknown[] | undefined {
  const map = appliedMap(p);
  const contract = p.input === 'traces' ? traceShape : goldShape;
  const compiled = Object.keys(map).length ? new CompiledFieldMap(map, contract) : undefined;
  const test = shapeTest(contract);
  const out = records.map((r) => (compiled ? compiled.apply(r) : r));
  return out.length && out.every(test) ? out : undefined;
}

/** The names a record holds, for a line saying why a file was not taken: `id, question, response, contexts`. */
export function keysOf(records: readonly unknown[]): string {
  const keys = new Set<string>();
  for (const r of records) if (isObject(r)) for (const k of Object.keys(r)) keys.add(k);
  const list = [...keys];
  return list.length > 8 ? `${list.slice(0, 8).join(', ')}, …` : list.join(', ');
}
