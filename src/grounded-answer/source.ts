import type { z } from 'zod';
import type { FieldMap } from '../io/field-map.js';
import { isParquet } from '../io/records.js';
import { readRecordsOf } from '../io/records.js';
import type { inputSettings } from './config.js';
import { readOpenInference } from './openinference.js';
import type { TraceRecord } from './trace-assembly.js';

/** How a suite's traces are read: their format and `fields:` mapping (plain data: it crosses to workers). */
export interface TraceInput {
  format: z.infer<typeof inputSettings.format>;
  fields?: FieldMap;
  /** `openinference.qid` (see openinference.ts). */
  qid: string;
  /** `citation_markers:` is set: the claim's markers are the citations (see trace-checks.ts). */
  markers?: boolean;
  /** `openinference.document_id`, when not the default `document.id` (see openinference.ts). */
  documentId?: string;
}

export const CANONICAL_TRACES: TraceInput = { format: 'jsonl', qid: 'input.value' };

export function traceInput(config: {
  format?: TraceInput['format'];
  openinference?: { qid: string; document_id?: string };
  fields?: FieldMap;
  citation_markers?: unknown;
}): TraceInput {
  const documentId = config.openinference?.document_id;
  return {
    format: config.format ?? 'jsonl',
    qid: config.openinference?.qid ?? 'input.value',
    ...(documentId !== undefined && documentId !== 'document.id' ? { documentId } : {}),
    ...(config.fields && Object.keys(config.fields).length > 0 ? { fields: config.fields } : {}),
    ...(config.citation_markers !== undefined && { markers: true }),
  };
}

/**
 * Whether traces are read as records held in memory (Parquet rows, OpenInference traces) rather than as
 * lines read again by their place in the file (see sources.ts).
 */
export const readsRecords = (files: readonly string[], input: TraceInput): boolean =>
  input.format === 'openinference' || files.some(isParquet);

/**
 * The trace records of `files`, not yet mapped or checked, each with its file: OpenInference spans are
 * assembled across all the files (one trace may be in several), other formats read file by file.
 */
export async function* traceRecords(
  files: readonly string[],
  input: TraceInput,
): AsyncGenerator<TraceRecord> {
  if (input.format === 'openinference') {
    yield* readOpenInference(files, input);
    return;
  }
  for (const file of files)
    for await (const r of readRecordsOf(file)) yield { file, line: r.line, value: r.value };
}
