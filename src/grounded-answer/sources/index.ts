import { jsonlSource } from './jsonl/jsonl-source.js';
import { otlpSource } from './otlp/otlp-source.js';
import { parquetSource } from './parquet/parquet-source.js';
import { recordsSource } from './records/records-source.js';
import { InputError } from '../../errors.js';
import { RECORD_READS } from '../record-reads.js';
import type { TraceInput } from '../trace-input.js';
import type { TraceReads } from '../trace-reads.js';
import type { TraceSource } from './source.js';

// The registry of trace formats: a format is one source module and one line here. Exactly one source
// accepts any input, whatever their order here.

const SOURCES: TraceSource[] = [
  otlpSource as TraceSource,
  parquetSource as TraceSource,
  recordsSource as TraceSource,
  jsonlSource as TraceSource,
];

/** The source that reads these trace files as `input` says. */
export function sourceFor(files: readonly string[], input: TraceInput): TraceSource {
  const accepting = SOURCES.filter((s) => s.accepts(files, input));
  if (accepting.length > 1)
    throw new Error(
      `internal: trace sources ${accepting.map((s) => s.name).join(' and ')} both accept the input`,
    );
  if (accepting.length === 0)
    throw new InputError(
      files[0] !== undefined ? { file: files[0] } : undefined,
      `traces: no trace format reads these files as format: ${input.format}; expected one of: ${SOURCES.map((s) => `${s.name} — ${s.explanation}`).join('; ')}`,
    );
  return accepting[0]!;
}

/**
 * Adds a trace format to the registry: the public way to add one (a module that calls it once), which
 * the architecture test uses to score the example through a format of its own. Returns its removal.
 */
export function registerSource(source: TraceSource): () => void {
  if (SOURCES.some((s) => s.name === source.name))
    throw new Error(`internal: a trace source named ${JSON.stringify(source.name)} is registered already`);
  SOURCES.push(source);
  return () => void SOURCES.splice(SOURCES.indexOf(source), 1);
}

/** The `format:` names gates.yaml accepts: those the registered sources read, sorted. */
export function formatNames(): string[] {
  return [...new Set(SOURCES.flatMap((s) => s.formats))].sort();
}

/** The source a helper is told to read its chunks with (see WorkerInput.source). */
export function sourceNamed(name: string): TraceSource {
  const source = SOURCES.find((s) => s.name === name);
  if (!source) throw new Error(`internal: no trace source named ${JSON.stringify(name)}`);
  return source;
}

/**
 * How traces of `input`'s format are read (TraceSource.reads), known from the format alone: a result or a merge
 * of partials has no trace files to pick a source by, so the sources sharing a `format:` name must agree.
 */
export function readsOf(input: TraceInput): TraceReads {
  const reads = new Set(SOURCES.filter((s) => s.formats.includes(input.format)).map((s) => s.reads?.(input)));
  if (reads.size > 1)
    throw new Error(
      `internal: the trace sources of format ${input.format} read its traces in different ways`,
    );
  return [...reads][0] ?? RECORD_READS;
}
