// Exports of tracing tools that hold one record per step of a trace, not one per question: Langfuse
// observations and LangSmith runs. groundgate reads one record per question, and no `fields:` mapping
// joins the records of one trace, so init names what it found, what it could read, and what the user
// must choose; it proposes no suite for them.
//
// Langfuse: the public API's observations (camelCase: traceId, startTime, parentObservationId; langfuse
// js reference, ApiObservation) and the blob storage export's observations_v2/ rows (snake_case: trace_id,
// start_time, parent_observation_id; input and output as strings of text or JSON), by the documented
// schema: https://langfuse.com/docs/api-and-data-platform/features/blob-storage-export-fields.
// LangSmith: runs as the langsmith npm package types them (lib/schemas.d.ts, BaseRun and Run: run_type,
// inputs, outputs, trace_id, parent_run_id, reference_example_id; a retriever's outputs.documents are
// RetrieverOutput, [{page_content, type: "Document", metadata}]).
import { docRef } from '../docs.js';
import { isObject } from '../io/record-shape.js';

type Json = Record<string, unknown>;

const LANGFUSE_TYPES = new Set([
  'SPAN',
  'GENERATION',
  'EVENT',
  'AGENT',
  'TOOL',
  'CHAIN',
  'RETRIEVER',
  'EVALUATOR',
  'EMBEDDING',
  'GUARDRAIL',
]);
const LANGSMITH_TYPES = new Set(['llm', 'chain', 'tool', 'retriever', 'embedding', 'prompt', 'parser']);

const text = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** A member in either spelling the tool writes (API camelCase, export snake_case). */
const either = (r: Json, snake: string, camel: string): unknown => r[snake] ?? r[camel];

/** A payload as the export writes it: JSON in a string (the blob export's input and output) parsed. */
function payload(v: unknown): unknown {
  if (typeof v !== 'string' || !/^\s*[[{]/.test(v)) return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** "RETRIEVER 5, SPAN 10": how many records of each type, most first, then by name. */
function tally(types: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
}

/** The members of a list of documents (`metadata` members dotted), where a doc id may be: `id, metadata.doc_id`. */
function documentKeys(outputs: readonly unknown[]): string[] {
  const keys = new Set<string>();
  for (const out of outputs) {
    const v = payload(out);
    const docs = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.documents) ? v.documents : [];
    for (const d of docs) {
      if (!isObject(d)) continue;
      for (const [k, m] of Object.entries(d)) {
        if (k === 'metadata' && isObject(m)) for (const mk of Object.keys(m)) keys.add(`metadata.${mk}`);
        else if (k !== 'page_content' && k !== 'pageContent' && k !== 'type') keys.add(k);
      }
    }
  }
  return [...keys].sort();
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function langfuse(records: readonly Json[]): string {
  const traces = new Set(records.map((r) => either(r, 'trace_id', 'traceId')));
  const retrievers = records.filter((r) => r.type === 'RETRIEVER');
  const keys = documentKeys(retrievers.map((r) => r.output));
  return [
    `Langfuse observations: ${plural(records.length, 'sampled observation')} of ${plural(traces.size, 'trace')} (${tally(records.map((r) => String(r.type)))})`,
    'not read: groundgate reads one record per question, these are one per observation, and no fields: mapping joins the observations of a trace',
    `to read them, choose the qid (trace_id, or the metadata key that names the question), the retrieved ids (${
      retrievers.length
        ? keys.length
          ? `the RETRIEVER output's documents hold ${keys.join(', ')}`
          : 'the RETRIEVER output holds no list of documents with members'
        : 'no RETRIEVER observation sampled: which observation lists them'
    }) and the answer (which observation's output holds it, e.g. the trace's last GENERATION), then write one record per trace (${docRef('docs/formats.md')}), or export the traces over OpenTelemetry with OpenInference attributes (format: openinference)`,
  ].join(' — ');
}

function langsmith(records: readonly Json[]): string {
  const traces = new Set(records.map((r) => r.trace_id ?? r.id));
  const retrievers = records.filter((r) => r.run_type === 'retriever');
  const keys = documentKeys(retrievers.map((r) => r.outputs));
  const examples = records.filter((r) => text(r.reference_example_id)).length;
  return [
    `LangSmith runs: ${plural(records.length, 'sampled run')} of ${plural(traces.size, 'trace')} (${tally(records.map((r) => String(r.run_type)))})`,
    'not read: groundgate reads one record per question, these are one per run, and no fields: mapping joins the runs of a trace (trace_id, parent_run_id)',
    `to read them, choose the qid (${
      examples
        ? `reference_example_id, on ${examples} sampled runs: the dataset example each root run answers`
        : 'no sampled run has a reference_example_id: the inputs key that names the question'
    }), the retrieved ids (${
      retrievers.length
        ? keys.length
          ? `the retriever runs' outputs.documents hold ${keys.join(', ')}`
          : "the retriever runs' outputs hold no documents with metadata"
        : 'no retriever run sampled: which run lists them'
    }) and the answer (the root run's outputs), then write one record per trace (${docRef('docs/formats.md')})`,
  ].join(' — ');
}

/**
 * The listing line for a tracing tool's export (every sampled record a Langfuse observation, or every one a
 * LangSmith run): what was found and what the user must choose. Undefined for anything else.
 */
export function toolExport(records: readonly unknown[]): string | undefined {
  if (!records.length || !records.every(isObject)) return undefined;
  if (
    records.every(
      (r) =>
        text(r.id) &&
        text(either(r, 'trace_id', 'traceId')) &&
        typeof r.type === 'string' &&
        LANGFUSE_TYPES.has(r.type) &&
        text(either(r, 'start_time', 'startTime')),
    )
  )
    return langfuse(records);
  if (
    records.every(
      (r) =>
        typeof r.run_type === 'string' &&
        LANGSMITH_TYPES.has(r.run_type) &&
        text(r.name) &&
        isObject(r.inputs),
    )
  )
    return langsmith(records);
  return undefined;
}
