import { z } from 'zod';

/**
 * The normalized retrieval-event document, schema 1.0 (CodeScaleBench `retrieval_events_schema.json`):
 * one document per task and config. This contract has the schema's fields, required keys and enums.
 *
 * Versions: a `1.x` document is read; another major version is rejected (see load.ts). A `1.0` document
 * may carry no key the 1.0 schema lacks, except the `ground_truth.expected_edit_files*` keys the reference
 * normalizer writes into its 1.0 documents; a later minor version may add optional keys anywhere, which
 * are ignored.
 */
export const SCHEMA_VERSION = '1.0';
export const SCHEMA_MAJOR = 1;

export const TOOL_CATEGORIES = [
  'file_read',
  'file_search',
  'symbol_navigation',
  'code_search',
  'commit_search',
  'deep_search',
  'file_write',
  'other',
] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

export const CONFIDENCES = ['high', 'medium', 'low'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

const TRACE_SOURCES = ['trajectory', 'transcript', 'merged'] as const;
export type TraceSource = (typeof TRACE_SOURCES)[number];

const dateTime = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with a time zone' });
const count = z.int();

/** Strict objects for 1.0 (the schema's additionalProperties: false); unknown keys dropped for 1.1 and later. */
function object<T extends z.ZodRawShape>(shape: T, strict: boolean) {
  return strict ? z.strictObject(shape) : z.object(shape);
}

function documentSchema(strict: boolean) {
  const provenance = object(
    {
      run_id: z.string(),
      batch_timestamp: z.string().nullable().optional(),
      task_name: z.string(),
      trial_name: z.string().nullable().optional(),
      config_name: z.string(),
      benchmark: z.string(),
      model: z.string().nullable().optional(),
    },
    strict,
  );
  const coverage = object(
    {
      has_trajectory: z.boolean(),
      has_transcript: z.boolean(),
      has_ground_truth: z.boolean(),
      has_chunk_ground_truth: z.boolean().optional(),
      trace_source: z.enum(TRACE_SOURCES).nullable(),
      degraded_reason: z.string().nullable(),
      ground_truth_source: z.string().nullable().optional(),
      ground_truth_confidence: z.enum(CONFIDENCES).nullable().optional(),
    },
    strict,
  );
  const symbol = object(
    { file: z.string(), symbol: z.string(), repo: z.string().nullable().optional() },
    strict,
  );
  const chunk = object(
    {
      file: z.string(),
      line_start: z.int().min(1),
      line_end: z.int().min(1),
      annotation: z.string().nullable().optional(),
    },
    strict,
  );
  const groundTruth = object(
    {
      files: z.array(z.string()),
      symbols: z.array(symbol).optional(),
      chunks: z.array(chunk).optional(),
      // Not in the 1.0 schema, but written by the reference normalizer into 1.0 documents.
      expected_edit_files: z.array(z.string()).optional(),
      expected_edit_files_source: z.string().nullable().optional(),
      expected_edit_files_confidence: z.enum(CONFIDENCES).nullable().optional(),
    },
    strict,
  );
  const event = object(
    {
      step_index: z.int().min(0),
      timestamp: dateTime.nullable(),
      tool_name: z.string(),
      tool_category: z.enum(TOOL_CATEGORIES),
      is_mcp: z.boolean(),
      arguments: z.record(z.string(), z.unknown()).optional(),
      target_files: z.array(z.string()),
      target_symbols: z.array(z.string()).optional(),
      hits_ground_truth: z.boolean().optional(),
      matched_ground_truth_files: z.array(z.string()).optional(),
      is_subagent: z.boolean().optional(),
      cumulative_tokens: z.int().nullable().optional(),
      elapsed_seconds: z.number().nullable().optional(),
    },
    strict,
  );
  const summary = object(
    {
      total_events: count.optional(),
      mcp_events: count.optional(),
      local_events: count.optional(),
      unique_files_accessed: count.optional(),
      ground_truth_files_hit: count.optional(),
      ground_truth_files_total: count.optional(),
      first_ground_truth_hit_step: count.nullable().optional(),
      events_by_category: z.record(z.string(), count).optional(),
    },
    strict,
  );
  return object(
    {
      schema_version: z.string(),
      generated_at: dateTime,
      provenance,
      coverage,
      ground_truth: groundTruth,
      events: z.array(event),
      summary: summary.optional(),
    },
    strict,
  );
}

/** A 1.0 document (strict). */
export const documentSchemaV1_0 = documentSchema(true);
/** A 1.1+ document: the 1.0 fields, anything added later ignored. */
export const documentSchemaV1_x = documentSchema(false);

export type EventDocument = z.infer<typeof documentSchemaV1_0>;
export type RetrievalEvent = EventDocument['events'][number];
export type EventSummary = NonNullable<EventDocument['summary']>;
export type GroundTruthChunk = NonNullable<EventDocument['ground_truth']['chunks']>[number];
export type GroundTruthSymbol = NonNullable<EventDocument['ground_truth']['symbols']>[number];
export type Coverage = EventDocument['coverage'];

/** A document as scored, with where it was read from. */
export interface LoadedDocument {
  doc: EventDocument;
  file: string;
}
