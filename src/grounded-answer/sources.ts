import { jsonlSource } from './jsonl-source.js';
import { otlpSource } from './otlp-source.js';
import { parquetSource } from './parquet-source.js';
import { recordsSource } from './records-source.js';
import type { TraceInput } from './trace-input.js';
import type { TraceSource } from './trace-source.js';

// The registry of trace formats: a format is one source module and one line here. The first source that
// reads the input does; JSON Lines reads whatever the others do not.

const SOURCES: readonly TraceSource[] = [
  otlpSource as TraceSource,
  parquetSource as TraceSource,
  recordsSource as TraceSource,
  jsonlSource as TraceSource,
];

/** The source that reads these trace files as `input` says. */
export const sourceFor = (files: readonly string[], input: TraceInput): TraceSource =>
  SOURCES.find((s) => s.reads(files, input))!;

/** The source a helper is told to read its chunks with (see WorkerInput.source). */
export function sourceNamed(name: string): TraceSource {
  const source = SOURCES.find((s) => s.name === name);
  if (!source) throw new Error(`internal: no trace source named ${JSON.stringify(name)}`);
  return source;
}
