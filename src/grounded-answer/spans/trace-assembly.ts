import { InputError, formatWhere, preview } from '../../errors.js';
import { type SpanFacts } from './span-values.js';

import { GENAI } from './vocabularies/genai.js';
import { parsedOrText } from './span-facts.js';
import { isObject } from '../../io/record-shape.js';
import { singleModel, spanUsage, type Usage } from '../../cost/usage.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

// One grounded-answer trace record assembled from an OpenInference trace's spans (see openinference.ts for
// which span gives which member).

export interface OpenInferenceOptions {
  qid: string;
  /** `openinference.document_id`: `document.id` (the default) or `metadata.<key>`, nested keys dotted. */
  documentId?: string;
  /** `citation_markers:` is set: a text output's citations are its markers, not a list made for it. */
  markers?: boolean;
}

/** A trace record and the file its root span is in. */
export interface TraceRecord {
  file: string;
  line: number;
  value: unknown;
  /** The trace's id, for a record assembled from spans. */
  traceId?: string;
  /** The spans its members came from, for a record assembled from spans. */
  spans?: TraceSpans;
  /** For a record assembled from spans, its LLM spans' token counts (see spanUsage), undefined when none counts. */
  usage?: Usage;
}

/** The spans a trace's record comes from (see assemble). */
export interface TraceSpans {
  /** The earliest span without a parent in the trace. */
  root: SpanFacts;
  /** Its RETRIEVER spans, by start time. */
  retrievers: SpanFacts[];
  /** The root, when it has an output, else the last LLM span that has one. */
  answering: SpanFacts | undefined;
  /** Every span of the trace, as read (for the latency suite's stage times). */
  all: readonly SpanFacts[];
}

/**
 * Picks the spans of a trace that make its record; undefined when it has no root (a cycle). A span whose
 * parent is not in the trace (not exported, or sampled out) may be its root; two spans without any parent,
 * or one span twice, are an error: the same trace id in two runs, or one export read twice, is not one trace;
 * so are spans whose parents lead round in a cycle beside the root: they descend from no root.
 */
export function traceSpans(spans: SpanFacts[]): TraceSpans | undefined {
  /** Each span's parent by its id; null once its line of parents is known to end (see checkAcyclic). */
  const ids = new Map<string, string | undefined | null>();
  let parentless: SpanFacts | undefined;
  for (const s of spans) {
    if (ids.has(s.spanId)) {
      const first = spans.find((x) => x.spanId === s.spanId)!;
      throw new InputError(
        { file: s.file, line: s.line },
        `trace ${preview(s.traceId)}: span ${preview(s.spanId)} again (first at ${formatWhere(first)}); expected each span once (one export read twice?)`,
      );
    }
    ids.set(s.spanId, s.parentId);
    if (s.parentId !== undefined) continue;
    if (parentless)
      throw new InputError(
        { file: s.file, line: s.line },
        `trace ${preview(s.traceId)}: a second span without a parent, ${preview(s.name ?? s.spanId)} (the first, ${preview(parentless.name ?? parentless.spanId)}, at ${formatWhere(parentless)}); expected one root span a trace (the same trace id in two runs?)`,
      );
    parentless = s;
  }
  const roots = spans.filter((s) => s.parentId === undefined || !ids.has(s.parentId));
  const byStart = (a: SpanFacts, b: SpanFacts) => a.start - b.start || a.line - b.line;
  const root = roots.sort(byStart)[0];
  if (!root) return undefined;
  checkAcyclic(spans, ids);
  const retrievers = spans.filter((x) => x.kind === 'RETRIEVER').sort(byStart);
  const answering =
    root.output !== undefined
      ? root
      : spans
          .filter((x) => x.kind === 'LLM' && x.output !== undefined)
          .sort((a, b) => a.end - b.end || a.line - b.line)
          .at(-1);
  return { root, retrievers, answering, all: spans };
}

/** Throws when following the parents from a span comes back to one already on the way (a cycle). */
function checkAcyclic(spans: readonly SpanFacts[], parents: Map<string, string | undefined | null>): void {
  for (const s of spans) {
    // More steps than spans: the line of parents went round. Each line is walked to its end once.
    let id: string | undefined | null = s.spanId;
    for (let steps = 0; id && parents.get(id); steps++) {
      if (steps > spans.length) throw cycleAt(spans, parents, id);
      id = parents.get(id);
    }
    for (id = s.spanId; id && parents.get(id);) {
      const next: string | null | undefined = parents.get(id);
      parents.set(id, null);
      id = next;
    }
  }
}

/** The error for a cycle through span `id`: named by its span read first. */
function cycleAt(
  spans: readonly SpanFacts[],
  parents: ReadonlyMap<string, string | undefined | null>,
  id: string,
): InputError {
  const on = new Set<string>();
  for (let at: string = id; !on.has(at); at = parents.get(at)!) on.add(at);
  const s = spans.find((x) => on.has(x.spanId))!;
  return new InputError(
    { file: s.file, line: s.line },
    `trace ${preview(s.traceId)}: span ${preview(s.name ?? s.spanId)} is its own ancestor (its parentSpanId ${preview(s.parentId)} leads back to it: a cycle); expected the parents of every span to end at the root`,
  );
}

/** Visits the retrieved ids by their span and place: every RETRIEVER span's documents in order. */
export function forEachRetrieved(
  retrievers: readonly SpanFacts[],
  each: (s: SpanFacts, n: number) => void,
): void {
  for (const s of retrievers) for (let n = 0; n < s.documents.length; n++) each(s, n);
}

/**
 * The ids of a RETRIEVER span's documents, read where `documentId` says (see OpenInferenceOptions). Documents
 * are numbered from 0 without a gap and every document the span names has an id, a string (in metadata, an
 * integer too, as its decimal digits), as the canonical retrieved_ids are: a document left out, or ids read
 * where the exporter wrote none, would score recall and precision 0 without a word.
 */
function documentIds(s: SpanFacts, documentId: string): readonly unknown[] {
  const docs = s.documents;
  const fromMetadata = documentId !== OPENINFERENCE.documentId;
  // The canonical case, checked without making anything: every trace of a large export comes here.
  if (!fromMetadata && s.documentPast === undefined && (s.documentsNamed ?? 0) <= docs.length) {
    let n = 0;
    while (n < docs.length && typeof docs[n] === 'string') n++;
    if (n === docs.length) return docs;
  }
  const attribute = fromMetadata ? 'metadata' : 'id';
  const named = Math.max(docs.length, s.documentsNamed ?? 0);
  if (named === 0 && s.documentPast === undefined) return [];
  const where = { file: s.file, line: s.line };
  const span = () => `span ${preview(s.name ?? s.spanId)} (RETRIEVER)`;
  const last = s.documentPast ?? String(docs.length - 1);
  const gap = (n: number) =>
    new InputError(
      where,
      `retriever span ${preview(s.name ?? s.spanId)} has no retrieval.documents.${n}.document.${attribute}, but one numbered ${last}; expected documents numbered from 0 without a gap`,
    );
  const path = fromMetadata ? documentId.split('.').slice(1) : [];
  const idOf = (n: number): unknown => (fromMetadata ? keyAt(parsedOrText(docs[n]), path) : docs[n]);
  // Without an id where it looks for one, no document has: the error says where they may be.
  let any = !fromMetadata && docs.length > 0;
  for (let n = 0; n < docs.length && !any; n++) any = n in docs && idOf(n) !== undefined;
  if (!any && s.documentPast === undefined) {
    const first = fromMetadata ? docs[0] : s.firstMetadata;
    const hint = metadataKeys(first);
    // Set to a metadata key, the documents may carry document.id all along (openinference-core writes it).
    const orDefault = fromMetadata
      ? '; or leave openinference.document_id unset if they carry document.id'
      : '';
    throw new InputError(where, `${span()}: its documents have no ${documentId}; ${hint}${orDefault}`);
  }
  const ids: string[] = [];
  for (let n = 0; n < docs.length; n++) {
    if (!(n in docs)) throw gap(n);
    const id = idOf(n);
    if (typeof id === 'string') {
      ids.push(id);
      continue;
    }
    if (!fromMetadata)
      throw new InputError(
        where,
        `retriever span ${preview(s.name ?? s.spanId)} has ${s.genai ? `${GENAI.documents}[${n}].id` : `retrieval.documents.${n}.document.id`} ${preview(id)}; expected a string`,
      );
    if (id === undefined) {
      const keys = describeKeys(parsedOrText(docs[n]));
      throw new InputError(
        where,
        `${span()}: its document ${n} has no ${documentId} (its document.metadata ${keys ? `has ${keys}` : `is ${preview(docs[n])}`}); expected every document's id there (see openinference.document_id)`,
      );
    }
    // A JSON number past 2^53 was rounded when parsed: another document's id, maybe.
    if (typeof id === 'number' && Number.isSafeInteger(id)) ids.push(String(id));
    else
      throw new InputError(
        where,
        `${span()}: its document ${n} has ${documentId} ${preview(id)}; expected a string, or an integer of at most 2^53 (read as its decimal digits)`,
      );
  }
  if (s.documentPast !== undefined) throw gap(docs.length);
  if (named > docs.length)
    throw new InputError(
      where,
      `${span()}: its document ${docs.length} has no ${fromMetadata ? OPENINFERENCE.documentMetadata : OPENINFERENCE.documentId}, though the documents before it have; expected every document's id (see openinference.document_id)`,
    );
  return ids;
}

/** The value at `path` in a JSON object (own keys only); undefined where a key is missing. */
function keyAt(v: unknown, path: readonly string[]): unknown {
  for (const key of path) {
    if (!isObject(v) || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

/** At most this many of a metadata's keys are named in an error. */
const KEYS_NAMED = 10;

/** A metadata object's keys, listed for an error; undefined for anything else. */
function describeKeys(metadata: unknown): string | undefined {
  if (!isObject(metadata)) return undefined;
  const keys = Object.keys(metadata);
  if (keys.length === 0) return 'no keys';
  const more = keys.length > KEYS_NAMED ? `, … (${keys.length} in all)` : '';
  return keys.slice(0, KEYS_NAMED).join(', ') + more;
}

/**
 * What the first document's metadata (as written) holds, and the openinference.document_id that would read
 * its ids: its key `id`, else one named like an id (doc_id, chunkId), when it holds a string or an integer.
 */
function metadataKeys(raw: unknown): string {
  const expected =
    'expected retrieval.documents.N.document.id, or openinference.document_id: metadata.<key> naming the key of document.metadata that holds each document’s id';
  if (raw === undefined) return `its first document has no document.metadata either; ${expected}`;
  const metadata = parsedOrText(raw);
  if (!isObject(metadata)) return `its document.metadata is ${preview(raw)}, not a JSON object; ${expected}`;
  if (Object.keys(metadata).length === 0) return `its document.metadata has no keys; ${expected}`;
  const idLike = (k: string) => k === 'id' || /[_-]id$/i.test(k) || /[a-z]Id$/.test(k);
  const idValue = (v: unknown) => typeof v === 'string' || Number.isSafeInteger(v);
  const key =
    Object.keys(metadata).find((k) => k === 'id' && idValue(metadata[k])) ??
    Object.keys(metadata).find((k) => idLike(k) && idValue(metadata[k]));
  return key !== undefined && !key.includes('.')
    ? `its document.metadata has ${describeKeys(metadata)}: set openinference.document_id: metadata.${key}`
    : `its document.metadata has ${describeKeys(metadata)}: set openinference.document_id: metadata.<key>, the key that holds each document’s id`;
}

/**
 * One trace from all its spans, in the order they were read: its root (the earliest span without a parent
 * in the trace) gives the question, qid, time and latency, its RETRIEVER spans the retrieved ids, and the
 * root's or the last LLM span's output the answer.
 */
export function assemble(spans: SpanFacts[], options: OpenInferenceOptions): TraceRecord {
  const picked = traceSpans(spans);
  if (!picked)
    throw new InputError(
      { file: spans[0]!.file, line: spans[0]!.line },
      `trace ${preview(spans[0]!.traceId)} has no root span: every span's parentSpanId names another span of the trace (a cycle); expected one span without a parent`,
    );
  const { root, retrievers, answering } = picked;
  const where = { file: root.file, line: root.line };
  const traceId = root.traceId;
  const documentId = options.documentId ?? OPENINFERENCE.documentId;
  const retrieved: unknown[] = [];
  for (const s of retrievers) for (const id of documentIds(s, documentId)) retrieved.push(id);
  const record: Record<string, unknown> = { retrieved_ids: retrieved };
  if (answering) {
    const output = parsedOrText(answering.output);
    record.output = output;
    record.answer_json = isObject(output)
      ? output
      : { claim: output, ...(!options.markers && { citations: [] }) };
  }
  // A GenAI trace's question: its root's last user message, else what its first retrieval searched for.
  const question = root.input ?? retrievers.find((r) => r.query !== undefined)?.query;
  if (question !== undefined) record.q = question;
  const metadata = parsedOrText(root.metadata);
  if (metadata !== undefined) record.metadata = metadata;
  record.ts = root.start / 1000;
  if (root.end < root.start)
    throw new InputError(
      where,
      `trace ${preview(traceId)}: its root span ${preview(root.name ?? root.spanId)} ends before it starts (${root.end - root.start} ms); expected endTimeUnixNano at or after startTimeUnixNano`,
    );
  record.latency_ms = root.end - root.start;
  const usage = spanUsage(picked.all);
  if (usage?.tokensIn !== undefined) record.tokens_in = usage.tokensIn;
  if (usage?.tokensOut !== undefined) record.tokens_out = usage.tokensOut;
  if (usage?.cachedIn !== undefined) record.tokens_cached = usage.cachedIn;
  const model = usage && singleModel(usage);
  if (model !== undefined) record.model = model;

  const qid = options.qid;
  let id: unknown;
  if (qid === OPENINFERENCE.input) id = question;
  else if (qid.startsWith('metadata.')) {
    const key = qid.slice('metadata.'.length);
    id = isObject(metadata) && Object.hasOwn(metadata, key) ? metadata[key] : undefined;
  } else id = root.qid;
  // A JSON number past 2^53 was rounded when parsed: another question's id, maybe.
  if (typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id))
    throw new InputError(
      where,
      `trace ${preview(traceId)}: its root span ${preview(root.name ?? root.spanId)} has ${qid} as a JSON number past 2^53 (read as ${id}, maybe not the digits written: JSON numbers do not hold such integers exactly); expected the id as a string (or an intValue's digits in a string)`,
    );
  if (typeof id === 'number') id = String(id);
  if (typeof id !== 'string' || id === '') {
    const found = id === undefined ? 'no' : id === '' ? 'an empty' : `a non-string (${preview(id)})`;
    throw new InputError(
      where,
      `trace ${preview(traceId)}: its root span ${preview(root.name ?? root.spanId)} has ${found} ${qid}; expected the question ${qid === OPENINFERENCE.input ? 'text of a gold item' : 'id'} (see openinference.qid)`,
    );
  }
  record.qid = id;
  return { file: root.file, line: root.line, value: record, traceId, spans: picked, ...(usage && { usage }) };
}
