import { optional, required, shape, shapeSchema } from '../../io/record-shape.js';
import { markedTraceShape, noListedCitations, traceShape } from '../../grounded-answer/contract.js';

/**
 * One run of a question under a seed and a prompt jitter (seed 004, semantic stability §3): the grounded
 * answer's own members, and a name for the run. Extra keys are allowed and ignored; `seed` and `jitter`
 * only name the run.
 */
export const runShape = shape({
  qid: required('id'),
  run_id: optional('id'),
  seed: optional('number-or-string'),
  jitter: optional('string'),
  answer_json: traceShape.members.answer_json,
  retrieved_ids: traceShape.members.retrieved_ids,
  refused: traceShape.members.refused,
});
export const runLineSchema = shapeSchema(runShape);

/** A run under citation_markers: its claim's markers are its citations (see markedTraceShape). */
export const markedRunShape = shape({
  ...runShape.members,
  answer_json: markedTraceShape.members.answer_json,
});
export const markedRunLineSchema = shapeSchema(markedRunShape).superRefine(noListedCitations);

/** What scoring keeps of a run line. */
export interface StabilityRun {
  qid: string;
  runId?: string;
  claim: string;
  citations: string[];
  constraintsEcho?: string[];
  retrieved: string[];
  /** The run's refused flag, when it has one: it decides over the claim's text. */
  refused?: boolean;
  source: { file: string; line: number };
}

/**
 * The per-question checks, most severe first (offenders sort by it), with the seed reference scorer's
 * short names: acr, cghc, css, ned50, rcr, scu_cons.
 */
export const CHECKS = [
  'refusal_consistency',
  'constraint_echo_consistency',
  'containment_rate',
  'citation_hit_rate',
  'citation_stability',
  'claim_edit_distance_median',
] as const;
export type Check = (typeof CHECKS)[number];

/** Per-question thresholds: each a minimum, except the edit distance, a maximum. */
export type Thresholds = Record<Check, number>;

/** The seed reference scorer's gates (and 1 for scu_cons, which it requires when constraints exist). */
export const DEFAULT_THRESHOLDS: Thresholds = {
  refusal_consistency: 0.98,
  constraint_echo_consistency: 1,
  containment_rate: 0.95,
  citation_hit_rate: 0.95,
  citation_stability: 0.7,
  claim_edit_distance_median: 0.2,
};
