import { z } from 'zod';
import type { LineRef } from '../io/jsonl.js';
import { validateLine } from '../io/validate.js';

/** One line of the gold set (seed 004, §1.1). Extra keys are allowed and ignored. */
export const goldLineSchema = z.looseObject({
  qid: z.string().min(1, 'expected a non-empty qid'),
  question: z.string(),
  answerable: z.boolean(),
  gold_claim_substr: z.array(z.string()),
  gold_citations: z.array(z.string()),
  constraints: z.array(z.string()).optional(),
  notes: z.string().optional(),
});
export type GoldLine = z.infer<typeof goldLineSchema>;

/** One line of the pipeline's traces (seed 004, §1.2). Extra keys are allowed and ignored. */
export const traceLineSchema = z.looseObject({
  ts: z.union([z.number(), z.string()]).nullable().optional(),
  qid: z.string().min(1, 'expected a non-empty qid'),
  q: z.string().optional(),
  retrieved_ids: z.array(z.string()),
  answer_json: z.looseObject({
    claim: z.string(),
    citations: z.array(z.string()),
    constraints_echo: z.array(z.string()).optional(),
  }),
  ok: z.boolean().optional(),
  reason: z.string().optional(),
  latency_ms: z.number().nonnegative().optional(),
});
export type TraceLine = z.infer<typeof traceLineSchema>;

/** Shorter substrings match too much by accident (the seed requires ≥ 5 characters). */
export const MIN_SUBSTRING_LENGTH = 5;

/** A gold item as scored. Its text (question, notes) stays on disk: `source` finds it for the offenders. */
export interface GoldItem {
  qid: string;
  answerable: boolean;
  claimSubstrings: string[];
  citations: string[];
  constraints: string[];
  source: LineRef;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The gold contract checked by hand, as asTraceLine is for traces; on a miss the caller runs the schema.
 */
export function asGoldLine(v: unknown): GoldLine | undefined {
  if (!isObject(v)) return undefined;
  if (typeof v.qid !== 'string' || v.qid === '' || typeof v.question !== 'string') return undefined;
  if (typeof v.answerable !== 'boolean') return undefined;
  if (!isStrings(v.gold_claim_substr) || !isStrings(v.gold_citations)) return undefined;
  if (v.constraints !== undefined && !isStrings(v.constraints)) return undefined;
  if (v.notes !== undefined && typeof v.notes !== 'string') return undefined;
  return v as GoldLine;
}

/**
 * The trace contract checked by hand: the same rules as traceLineSchema, an order of magnitude cheaper on
 * a million lines. On a miss the caller runs the schema, which says what is wrong.
 */
export function asTraceLine(v: unknown): TraceLine | undefined {
  if (!isObject(v)) return undefined;
  if (typeof v.qid !== 'string' || v.qid === '' || !isStrings(v.retrieved_ids)) return undefined;
  const a = v.answer_json;
  if (!isObject(a) || typeof a.claim !== 'string' || !isStrings(a.citations)) return undefined;
  if (a.constraints_echo !== undefined && !isStrings(a.constraints_echo)) return undefined;
  // zod's numbers are finite: JSON's 1e999 parses to Infinity and must fail here too.
  if (v.ts !== undefined && v.ts !== null && !Number.isFinite(v.ts) && typeof v.ts !== 'string')
    return undefined;
  if (v.q !== undefined && typeof v.q !== 'string') return undefined;
  if (v.ok !== undefined && typeof v.ok !== 'boolean') return undefined;
  if (v.reason !== undefined && typeof v.reason !== 'string') return undefined;
  if (v.latency_ms !== undefined && !(Number.isFinite(v.latency_ms) && (v.latency_ms as number) >= 0))
    return undefined;
  return v as TraceLine;
}

const TRACE_WHAT = 'a trace {qid, retrieved_ids, answer_json: {claim, citations}}';

/** A parsed trace line checked against the contract: by hand, and by the schema to word an error. */
export function checkTraceLine(value: unknown, file: string, line: number): TraceLine {
  return asTraceLine(value) ?? validateLine(traceLineSchema, value, file, line, TRACE_WHAT);
}
