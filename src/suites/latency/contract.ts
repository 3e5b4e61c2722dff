import { optional, required, shape, shapeSchema, shapeTest } from '../../io/record-shape.js';
import { traceShape } from '../../grounded-answer/contract.js';
import type { Usage } from '../../cost/usage.js';

/** Pipeline stages a latency CSV may time, in the order of the seed's header. */
export const STAGES = ['retrieval', 'rerank', 'llm', 'guard'] as const;
export type Stage = (typeof STAGES)[number];

/** The seed's CSV header (what its reference harness writes). `qid` and `e2e_ms` are required. */
export const CSV_HEADER = ['ts', 'qid', 'e2e_ms', 'retrieval_ms', 'rerank_ms', 'llm_ms', 'guard_ms', 'knobs'];
export const REQUIRED_COLUMNS = ['qid', 'e2e_ms'] as const;

/** One timed request: a CSV row, or a trace line with `latency_ms`. */
export interface LatencySample {
  /** The knobs value of a CSV row, or the trace file the line came from. */
  configuration: string;
  qid: string;
  e2eMs: number;
  /** Per-stage times; a stage the row left empty is absent. */
  stageMs: Partial<Record<Stage, number>>;
  /** The request's token counts (traces only); absent when its trace counts none. */
  usage?: Usage;
  source: { file: string; line: number };
}

/**
 * What a latency suite reads of a trace: the request's qid and its time, whatever else the line holds. The
 * grounded-answer contract applies where answers are scored (gold with several configurations).
 */
export const timedShape = shape({
  qid: required('id'),
  latency_ms: optional('duration'),
  tokens_in: traceShape.members.tokens_in,
  tokens_out: traceShape.members.tokens_out,
  tokens_cached: traceShape.members.tokens_cached,
  model: traceShape.members.model,
});
export const timedLineSchema = shapeSchema(timedShape);
export const timedTest = shapeTest(timedShape);
export const TIMED_WHAT = 'a timed request {qid, latency_ms}';
