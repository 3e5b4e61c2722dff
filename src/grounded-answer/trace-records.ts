import { readRecordsOf } from '../io/records.js';
import { readOpenInference } from './spans/openinference.js';
import type { TraceRecord } from './spans/trace-assembly.js';
import type { TraceInput } from './trace-input.js';

// Traces read as records in one pass, whatever their format: what the records source and the latency
// suite read.

/**
 * The trace records of `files`, not yet mapped or checked, each with its file: spans (when the source
 * `readsSpans`) are assembled across all the files (one trace may be in several), other records read file by
 * file.
 */
export async function* traceRecords(
  files: readonly string[],
  input: TraceInput,
  spans: boolean,
): AsyncGenerator<TraceRecord> {
  if (spans) {
    yield* readOpenInference(files, input);
    return;
  }
  for (const file of files)
    for await (const r of readRecordsOf(file)) yield { file, line: r.line, value: r.value };
}
