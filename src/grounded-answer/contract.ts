import type { z } from 'zod';
import type { LineRef } from '../io/jsonl.js';
import { optional, required, shape, shapeSchema, shapeTest, type Infer } from '../io/record-shape.js';
import { validateLine } from '../io/validate.js';

// The grounded-answer contracts (seed 004, §1), each declared once: the zod schemas, the checks by hand,
// the byte scanners (trace-scan.ts, gold-scan.ts) and the pointers a `fields:` mapping may name are derived
// from these tables. Extra keys are allowed and ignored.

/** One line of the gold set (§1.1). */
export const goldShape = shape({
  qid: required('id'),
  question: required('string'),
  answerable: required('boolean'),
  gold_claim_substr: required('strings'),
  gold_citations: required('strings'),
  constraints: optional('strings'),
  notes: optional('string'),
});

/** What a pipeline answered: a claim, the ids it cites, and the constraints it echoes (§1.2). */
export const answerShape = shape({
  claim: required('string'),
  citations: required('strings'),
  constraints_echo: optional('strings'),
});

/** One line of the pipeline's traces (§1.2). */
export const traceShape = shape({
  ts: optional('timestamp'),
  qid: required('id'),
  q: optional('string'),
  retrieved_ids: required('strings'),
  answer_json: required(answerShape),
  ok: optional('boolean'),
  reason: optional('string'),
  latency_ms: optional('duration'),
  /** The pipeline's own word that it declined to answer: when present, it decides over the claim's text. */
  refused: optional('boolean'),
  /**
   * Tokens the answer's model calls read and wrote (summed over a trace's LLM spans), the part of tokens_in
   * served from the provider's prompt cache, and their model.
   */
  tokens_in: optional('count'),
  tokens_out: optional('count'),
  tokens_cached: optional('count'),
  model: optional('string'),
});

/**
 * The trace contract under `citation_markers` (docs/formats.md, "Inline citation markers"): the markers in
 * the claim are its citations, so answer_json.citations is not required, and a trace that lists them anyway
 * is refused (one source of truth). Derived from the table above: the same members, the same slots.
 */
export const markedTraceShape = shape({
  ...traceShape.members,
  answer_json: required(
    shape({ ...answerShape.members, citations: optional(answerShape.members.citations.kind) }),
  ),
});

export type GoldLine = Infer<typeof goldShape>;
export type TraceLine = Infer<typeof traceShape>;

export const goldLineSchema = shapeSchema(goldShape);
export const traceLineSchema = shapeSchema(traceShape);

/** A gold item as scored. Its text (question, notes) stays on disk: `source` finds it for the offenders. */
export interface GoldItem {
  qid: string;
  answerable: boolean;
  claimSubstrings: string[];
  citations: string[];
  constraints: string[];
  source: LineRef;
  /**
   * The question, kept where reading it again costs more than keeping it: a Parquet gold set's offenders
   * decoded its whole column again (0.4 s of the 0.5x benchmark's 8), a JSON line is read by its offset.
   */
  question?: string;
}

export const MARKED_CITATIONS =
  'a citations list beside citation_markers; expected none: the markers in the claim are its citations (one source of truth)';
export const MARKED_TRACE_WHAT =
  'a trace {qid, retrieved_ids, answer_json: {claim}}, citing by markers in its claim';

/** The one source of truth under citation_markers: a record that lists citations is refused. */
export function noListedCitations(t: { answer_json: { citations?: unknown } }, ctx: z.RefinementCtx): void {
  if (t.answer_json.citations !== undefined)
    ctx.addIssue({ code: 'custom', path: ['answer_json', 'citations'], message: MARKED_CITATIONS });
}

export const markedTraceLineSchema = shapeSchema(markedTraceShape).superRefine(noListedCitations);
const markedTest = shapeTest(markedTraceShape);
/** Typed as a trace line: under citation_markers nothing reads a trace's own citations (see judgeInto). */
export const markedTraceTest = (v: unknown): v is TraceLine =>
  markedTest(v) && v.answer_json.citations === undefined;

export const goldTest = shapeTest(goldShape);
export const traceTest = shapeTest(traceShape);

/** The gold contract checked by hand; on a miss the caller runs the schema, which says what is wrong. */
export const asGoldLine = (v: unknown): GoldLine | undefined => (goldTest(v) ? v : undefined);

/** The trace contract checked by hand; on a miss the caller runs the schema, which says what is wrong. */
export const asTraceLine = (v: unknown): TraceLine | undefined => (traceTest(v) ? v : undefined);

export const GOLD_WHAT = 'a gold item {qid, question, answerable, gold_claim_substr, gold_citations}';
export const TRACE_WHAT = 'a trace {qid, retrieved_ids, answer_json: {claim, citations}}';

/** The contract under citation_markers checked by hand (see markedTraceTest). */
export const asMarkedTraceLine = (v: unknown): TraceLine | undefined => (markedTraceTest(v) ? v : undefined);

/** A parsed trace line checked against the contract: by hand, and by the schema to word an error. */
export function checkTraceLine(value: unknown, file: string, line: number): TraceLine {
  return asTraceLine(value) ?? validateLine(traceLineSchema, value, file, line, TRACE_WHAT);
}
