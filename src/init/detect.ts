import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { documentSchemaV1_x } from '../suites/agent-retrieval/contract.js';
import { pairLineSchema } from '../suites/consistency/contract.js';
import { goldRowSchema, predictionSchema } from '../suites/context/contract.js';
import { goldLineSchema, traceLineSchema } from '../grounded-answer/contract.js';
import { REQUIRED_COLUMNS } from '../suites/latency/contract.js';
import { qrelsLineSchema, rankedLineSchema, scoredLineSchema } from '../suites/ranking/contract.js';
import { runLineSchema } from '../suites/stability/contract.js';
import { keysOf, mapped, proposeFields, type FieldProposal } from './field-proposal.js';
import { documentLine } from './shapes/documents.js';
import { readAsTool } from './shapes/index.js';
import type { ClaimsProposal } from './shapes/tool-shape.js';
import { firstColumn, idsInFile, recordId } from './ids.js';
import { timedRequests } from './timed-requests.js';
import { toolExport } from './tool-exports.js';
import { describeSpans, sampledTraces, type SampledTrace } from './span-proposal.js';

/**
 * What `groundgate init` recognises, each by the contract its suite kind reads it with: a file is a
 * candidate for a role when its first records pass that role's schema. One table, in the order roles are
 * tried (a stability run also passes the trace schema, so stability comes first).
 */
export type Role =
  | 'qa-gold'
  | 'stability-runs'
  | 'qa-traces'
  | 'pairs'
  | 'qrels'
  | 'run'
  | 'latency-csv'
  | 'latency-traces'
  | 'context-gold'
  | 'context-predictions'
  | 'events';

interface RoleSpec {
  role: Role;
  /** What it is, for the listing. */
  what: string;
  /** Why a file fits, given the sample that did. */
  test(sample: Sample): string | undefined;
}

export interface Sample {
  file: string;
  /** The first lines of the file (up to 64 KiB), the last one dropped when cut. */
  lines: string[];
  /** The whole file parsed as JSON, when it is small enough and is one JSON value. */
  json?: unknown;
  /** The first non-empty lines as JSON values (parsed once for every role's test), when all of them are. */
  records?: unknown[];
}

export interface Candidate {
  file: string;
  role: Role;
  what: string;
  why: string;
  /**
   * The qids (or instance ids) of the whole file, for the roles that pair (see wholeFile): pairs a gold set
   * with its traces, qrels with their run.
   */
  ids: string[];
  /** Some sampled record has locked constraints (grounded-answer gold): SCU is worth turning on. */
  constraints: boolean;
  /** A near miss: the `fields:` mapping that makes its records contract records. */
  fields?: FieldProposal;
  /** The sampled records in the contract's shape (mapped when `fields` is set). */
  records?: unknown[];
  /** The tool that wrote it, when its names were recognised (shapes/). */
  tool?: string;
  /** Traces whose ids may sit elsewhere: the mapping whose ids meet the paired gold set's. */
  meet?: (goldIds: ReadonlySet<string>) => FieldProposal;
  /** Gold facts that are whole answers: the claim rule that can hold them. */
  claims?: ClaimsProposal;
  /** What init cannot know and the user must choose. */
  choose?: string[];
  /** Traces as OpenInference spans: paired with a gold set, and read, by the keys that meet its ids. */
  spans?: SampledTrace[];
  /** Settings its suite needs to read it as it is (qrels_format: llamaindex). */
  settings?: Record<string, string>;
}

/** Why a file looked at was taken or not: one line each, for the listing. */
export interface Look {
  file: string;
  taken: boolean;
  line: string;
}

const FIRST = 20;

/** The first non-empty lines as JSON values, or undefined when one is not JSON or none is there. */
function jsonLines(lines: readonly string[]): unknown[] | undefined {
  const values: unknown[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      return undefined;
    }
    if (values.length === FIRST) break;
  }
  return values.length ? values : undefined;
}

/** Every sampled record passes the schema (and `also`): the fields that made it fit, for the listing. */
function linesOf<S extends z.ZodType>(
  schema: S,
  fields: string,
  also: (v: z.infer<S>) => boolean = () => true,
): (sample: Sample) => string | undefined {
  return (sample) => {
    const values = sample.records;
    if (!values) return undefined;
    for (const v of values) {
      const parsed = schema.safeParse(v);
      if (!parsed.success || !also(parsed.data)) return undefined;
    }
    return `${values.length === FIRST ? `the first ${FIRST} records have` : `${values.length} record${values.length === 1 ? ' has' : 's have'}`} ${fields}`;
  };
}

const has = (v: unknown, key: string) => typeof v === 'object' && v !== null && key in v;

/** Whitespace-separated text lines: every one with `columns` fields that pass `ok`. */
function columnsOf(columns: number, ok: (cells: string[]) => boolean, fields: string) {
  return (sample: Sample): string | undefined => {
    const lines = sample.lines.filter((l) => l.trim()).slice(0, FIRST);
    if (!lines.length) return undefined;
    for (const line of lines) {
      const cells = line.trim().split(/\s+/);
      if (cells.length !== columns || !ok(cells)) return undefined;
    }
    // How many lines the whole file has is said once it is read (wholeFile).
    return fields;
  };
}

const INTEGER = /^-?\d+$/;
const LLAMAINDEX_DATASET = 'a LlamaIndex EmbeddingQAFinetuneDataset (queries, corpus, relevant_docs)';
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export const ROLES: readonly RoleSpec[] = [
  {
    role: 'qa-gold',
    what: 'grounded-answer gold set',
    test: linesOf(goldLineSchema, 'qid, question, answerable, gold_claim_substr, gold_citations'),
  },
  {
    role: 'stability-runs',
    what: 'repeated runs (seeds, prompt jitters)',
    test: linesOf(
      runLineSchema,
      'qid, seed or jitter, answer_json, retrieved_ids',
      (v) => v.seed !== undefined || v.jitter !== undefined || v.run_id !== undefined,
    ),
  },
  {
    role: 'pairs',
    what: 'Scholar/Auditor verdict pairs',
    test: linesOf(pairLineSchema, 'qid, scholar, auditor'),
  },
  {
    role: 'qa-traces',
    what: 'grounded-answer traces',
    test: linesOf(traceLineSchema, 'qid, retrieved_ids, answer_json'),
  },
  {
    role: 'qrels',
    what: 'relevance judgments (qrels)',
    test: (s) =>
      columnsOf(4, (c) => INTEGER.test(c[3]!), 'TREC qrels (qid iter docid rel)')(s) ??
      linesOf(qrelsLineSchema, 'qid, docid, rel', (v) => !has(v, 'score') && !has(v, 'rank'))(s) ??
      (datasetQids(s.json) && LLAMAINDEX_DATASET),
  },
  {
    role: 'run',
    what: 'ranked run',
    test: (s) =>
      columnsOf(
        6,
        (c) => INTEGER.test(c[3]!) && NUMBER.test(c[4]!),
        'a TREC run (qid Q0 docid rank score tag)',
      )(s) ??
      linesOf(scoredLineSchema, 'qid, docid, score')(s) ??
      linesOf(rankedLineSchema, 'qid, ranked')(s),
  },
  {
    role: 'latency-csv',
    what: 'latency samples (CSV)',
    test: (s) => {
      const header = s.lines[0]
        ?.replace(/^\uFEFF/, '')
        .trim()
        .split(',')
        .map((c) => c.trim());
      const rows = s.lines.slice(1).filter((l) => l.trim()).length;
      return header && rows > 0 && REQUIRED_COLUMNS.every((c) => header.includes(c))
        ? `a CSV with ${header.filter((c) => c.endsWith('_ms') || c === 'qid').join(', ')}`
        : undefined;
    },
  },
  {
    role: 'context-gold',
    what: 'ContextBench gold rows',
    test: linesOf(
      goldRowSchema,
      'an instance id and gold context',
      (v) =>
        (v.instance_id ?? v.inst_id ?? v.original_inst_id) !== undefined &&
        (v.gold_context ?? v.gold_ctx ?? v.init_ctx) != null,
    ),
  },
  {
    role: 'context-predictions',
    what: 'ContextBench predictions',
    test: linesOf(predictionSchema, 'instance_id, traj_data'),
  },
  {
    role: 'events',
    what: 'retrieval-event documents',
    test: (s) =>
      s.json !== undefined && documentSchemaV1_x.safeParse(s.json).success
        ? 'a retrieval-event document (schema 1.x)'
        : undefined,
  },
];

/** Folders never worth a look: dependencies, build output, VCS. */
const SKIP = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'lib',
  'coverage',
  'target',
  'vendor',
  '__pycache__',
]);
const EXTENSIONS = /\.(jsonl|ndjson|json|csv|qrels|run|txt|tsv|trec)$/i;
const SAMPLE_BYTES = 64 * 1024;
/** A .json file is one document (an event document runs to a few hundred kB): read whole up to this. */
const JSON_BYTES = 4 * 1024 * 1024;

/**
 * Files under `dir` that fit a role, in path order. At most `maxFiles` files are opened, each read up to its
 * first 64 KiB: a large repository costs a bounded look.
 */
export function detect(
  dir: string,
  maxFiles = 5_000,
): { candidates: Candidate[]; looked: number; looks: Look[] } {
  const candidates: Candidate[] = [];
  const looks: Look[] = [];
  let looked = 0;
  const walk = (folder: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (looked >= maxFiles) return;
      const full = path.join(folder, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name) && !e.name.startsWith('.')) walk(full);
      } else if (e.isFile() && EXTENSIONS.test(e.name)) {
        looked++;
        const sample = sampleOf(full);
        if (!sample) {
          looks.push({ file: full, taken: false, line: 'not read (no permission, or not a file)' });
          continue;
        }
        const before = candidates.length;
        for (const spec of ROLES) {
          const fits = spec.test(sample);
          if (fits) {
            const whole = wholeFile(full, spec.role, sample);
            // Text lines (TREC) are recognised by the first of them, and counted whole.
            const why = whole && !sample.records ? `${whole.lines} lines of ${fits}` : fits;
            looks.push({ file: full, taken: true, line: `${spec.what}: ${why}` });
            candidates.push({
              file: full,
              role: spec.role,
              what: spec.what,
              why,
              ids: whole?.ids ?? idsOf(sample),
              constraints: (sample.records ?? []).some(
                (v) =>
                  Array.isArray((v as { constraints?: unknown }).constraints) &&
                  (v as { constraints: unknown[] }).constraints.length > 0,
              ),
              records: sample.records,
              ...(datasetQids(sample.json) ? { settings: { qrels_format: 'llamaindex' } } : {}),
            });
            break;
          }
        }
        const tool = candidates.length === before ? readAsTool(sample.records) : undefined;
        const spans = candidates.length === before && !tool ? spanCandidate(sample) : undefined;
        if (tool) {
          for (const { input, qids, ...read } of tool.inputs)
            candidates.push({
              file: full,
              ...ROLE_OF[input],
              why: `${tool.what}, read through fields:`,
              ids: qids,
              constraints: false,
              tool: tool.what,
              ...read,
            });
          looks.push({ file: full, taken: tool.inputs.length > 0, line: tool.line });
        } else if (spans) {
          if (spans.candidate) candidates.push(spans.candidate);
          looks.push({ file: full, taken: spans.candidate !== undefined, line: spans.line });
        } else if (candidates.length === before) {
          const near = nearMiss(sample);
          // A tracing tool's export is named before a log of timed requests: its steps carry times too.
          const exported = 'candidate' in near ? undefined : toolExport(sample.records ?? []);
          const fit: { candidate?: Candidate; line: string } =
            'candidate' in near ? near : exported ? { line: exported } : (timedCandidate(sample) ?? near);
          if (fit.candidate) {
            const whole = wholeFile(full, fit.candidate.role, sample, fit.candidate.fields);
            candidates.push(whole ? { ...fit.candidate, ids: whole.ids } : fit.candidate);
          }
          looks.push({ file: full, taken: fit.candidate !== undefined, line: fit.line });
        }
      }
    }
  };
  walk(dir);
  return { candidates, looked, looks };
}

const ROLE_OF = {
  traces: { role: 'qa-traces', what: 'grounded-answer traces' },
  gold: { role: 'qa-gold', what: 'grounded-answer gold set' },
} as const;

/** A file of OpenTelemetry spans, as grounded-answer traces paired with a gold set by what meets its ids (see plan.ts). */
export function spanCandidate(sample: Sample): { candidate: Candidate; line: string } | undefined {
  const values =
    sample.json !== undefined ? (Array.isArray(sample.json) ? sample.json : [sample.json]) : sample.records;
  const spans = sampledTraces(sample.file, values);
  if (!spans) return undefined;
  const what = 'grounded-answer traces (OpenTelemetry spans)';
  const why = describeSpans(spans);
  return {
    line: `${what}: ${why}`,
    candidate: { file: sample.file, role: 'qa-traces', what, why, ids: [], constraints: false, spans },
  };
}

/**
 * A file no role takes as it is: taken as grounded-answer traces or gold when a `fields:` mapping makes its
 * sampled records contract records; else why not, naming what its records hold.
 */
export function nearMiss(
  sample: Sample,
  inputs: readonly ('gold' | 'traces')[] = ['gold', 'traces'],
): { candidate: Candidate; line: string } | { line: string } {
  const records = sample.records;
  if (!records) {
    if (/\.csv$/i.test(sample.file)) {
      const header = (sample.lines[0] ?? '').replace(/^\uFEFF/, '').trim();
      const columns = header.split(',').map((c) => c.trim());
      const lacking = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
      return {
        line: `latency CSV? ${lacking.length ? `no column ${lacking.join(', ')}` : 'no rows'}: its header has ${columns.slice(0, 8).join(', ') || 'nothing'}`,
      };
    }
    if (sample.json !== undefined)
      return { line: documentLine(sample.json) ?? 'JSON, but not a retrieval-event document (schema 1.x)' };
    return {
      line: sample.lines.some((l) => l.trim()) ? 'not JSON Lines, nor TREC qrels or run lines' : 'empty',
    };
  }
  if (!records.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r)))
    return { line: 'JSON Lines, but not every record is an object' };
  const tries = inputs.map((input) => {
    const proposal = proposeFields(records, input);
    return { input, proposal, records: proposal.missing.length ? undefined : mapped(records, proposal) };
  });
  const fit = tries.find((t) => t.records);
  if (fit) {
    const { role, what } = ROLE_OF[fit.input];
    const sure = fit.proposal.lines.filter((l) => !l.unsure);
    const why = `read through fields: ${sure.map((l) => l.note.replace(/ \(.*$/, '')).join(', ') || 'none needed'}`;
    return {
      line: `${what}: ${why}`,
      candidate: {
        file: sample.file,
        role,
        what,
        why,
        ids: fit.records!.flatMap((r) => {
          const qid = (r as { qid?: unknown }).qid;
          return typeof qid === 'string' ? [qid] : [];
        }),
        constraints: false,
        fields: fit.proposal,
        records: fit.records,
      },
    };
  }
  // The nearer contract: the one with fewer required members found under no name.
  const near = tries.sort((a, b) => a.proposal.missing.length - b.proposal.missing.length)[0]!;
  const lacking = near.proposal.missing.map((m) => {
    const partial = near.proposal.partial[m];
    return `${JSON.stringify(m.slice(1).replaceAll('/', '.'))}${partial ? ` (${partial})` : ''}`;
  });
  return {
    line: `${near.input}? no ${lacking.join(', ') || 'record in the contract after mapping'}: its records have ${keysOf(records)}`,
  };
}

const TIMED = 'timed requests (JSON Lines)';

/** A log of timed requests (timed-requests.ts): a latency suite's traces, alone. */
function timedCandidate(sample: Sample): { candidate: Candidate; line: string } | undefined {
  const timed = sample.records && timedRequests(sample.records);
  if (!timed) return undefined;
  const { fields, records, why } = timed;
  return {
    line: `${TIMED}: ${why}`,
    candidate: {
      file: sample.file,
      role: 'latency-traces',
      what: TIMED,
      why,
      ids: [],
      constraints: false,
      records,
      ...(fields ? { fields } : {}),
    },
  };
}

export function sampleOf(file: string): Sample | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const cap = /\.json$/i.test(file) ? JSON_BYTES : SAMPLE_BYTES;
    const buffer = Buffer.alloc(cap);
    const size = readSync(fd, buffer, 0, cap, 0);
    const text = buffer.subarray(0, size).toString('utf8');
    const whole = size < cap;
    const lines = text.split(/\r?\n/);
    if (!whole) lines.pop();
    let json: unknown;
    if (whole && /\.json$/i.test(file)) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { file, lines, json, records: jsonLines(lines) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The roles whose files pair with another's by their item ids. */
const PAIRED: ReadonlySet<Role> = new Set([
  'qa-gold',
  'qa-traces',
  'stability-runs',
  'qrels',
  'run',
  'context-gold',
  'context-predictions',
]);

/**
 * The item ids and line count of a whole file of lines that fits a role that pairs; undefined for a JSON
 * document (read whole already) and for files that are not read again (it vanished since its sample).
 */
function wholeFile(file: string, role: Role, sample: Sample, fields?: FieldProposal) {
  if (!PAIRED.has(role) || sample.json !== undefined) return undefined;
  try {
    return idsInFile(file, sample.records ? recordId(fields) : firstColumn);
  } catch {
    return undefined;
  }
}

/**
 * The qids of a LlamaIndex retrieval dataset (its relevant_docs, an object of docid lists), read as qrels with
 * `qrels_format: llamaindex` (suites/ranking/llamaindex.ts); undefined for any other value.
 */
function datasetQids(json: unknown): string[] | undefined {
  const relevant = (json as { relevant_docs?: unknown } | null | undefined)?.relevant_docs;
  if (typeof relevant !== 'object' || relevant === null || Array.isArray(relevant)) return undefined;
  const lists = Object.values(relevant);
  if (!lists.length || !lists.every((l) => Array.isArray(l))) return undefined;
  return Object.keys(relevant);
}

/** Item ids of the first records (qid, or a ContextBench instance id): what a JSON document's pairing reads. */
function idsOf(sample: Sample): string[] {
  const qids = datasetQids(sample.json);
  if (qids) return qids;
  const values = sample.records;
  if (values) {
    return values.flatMap((v) => {
      const r = v as Record<string, unknown>;
      const id = r.qid ?? r.instance_id ?? r.inst_id ?? r.original_inst_id;
      return typeof id === 'string' ? [id] : [];
    });
  }
  // TREC text: the first column.
  return [
    ...new Set(
      sample.lines
        .filter((l) => l.trim())
        .slice(0, FIRST)
        .map((l) => l.trim().split(/\s+/)[0]!),
    ),
  ];
}
