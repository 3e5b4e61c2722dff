import type { FieldMap } from '../io/field-map.js';

/** How a suite's traces are read: their format and `fields:` mapping (plain data: it crosses to workers). */
export interface TraceInput {
  /**
   * A format name of the registry (sources/index.ts), as gates.yaml's `format:` gives it; `otel` is read as
   * `openinference`: one reader of spans, whatever their vocabulary.
   */
  format: string;
  fields?: FieldMap;
  /** `openinference.qid` (see openinference.ts). */
  qid: string;
  /** `citation_markers:` is set: the claim's markers are the citations (see trace-checks.ts). */
  markers?: boolean;
  /** `openinference.document_id`, when not the default `document.id` (see openinference.ts). */
  documentId?: string;
  /**
   * The suite reads its winners' token counts: the sources that read runs as records (Parquet rows, spans)
   * keep each run's usage with it (see cost/held-usages.ts), and the read-back gives the winners' (see
   * ReadBack.usage); runs read again by their bytes are read for it there (suites/grounded-qa/usage.ts).
   */
  usage?: true;
}

export const CANONICAL_TRACES: TraceInput = { format: 'jsonl', qid: 'input.value' };

export function traceInput(config: {
  format?: string;
  openinference?: { qid: string; document_id?: string };
  fields?: FieldMap;
  citation_markers?: unknown;
}): TraceInput {
  const documentId = config.openinference?.document_id;
  return {
    format: config.format === 'otel' ? 'openinference' : (config.format ?? 'jsonl'),
    qid: config.openinference?.qid ?? 'input.value',
    ...(documentId !== undefined && documentId !== 'document.id' ? { documentId } : {}),
    ...(config.fields && Object.keys(config.fields).length > 0 ? { fields: config.fields } : {}),
    ...(config.citation_markers !== undefined && { markers: true }),
  };
}
