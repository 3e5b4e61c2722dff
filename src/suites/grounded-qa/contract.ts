import { z } from 'zod';

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

/** A gold item as scored, with where it came from. */
export interface GoldItem {
  qid: string;
  question: string;
  answerable: boolean;
  claimSubstrings: string[];
  citations: string[];
  constraints: string[];
  source: { file: string; line: number };
}

/** The part of a trace line that scoring needs; the rest is dropped as soon as a line is read. */
export interface TraceRun {
  qid: string;
  /** Comparable time of the run; undefined sorts before every defined value. */
  ts?: number;
  retrieved: string[];
  claim: string;
  citations: string[];
  constraintsEcho?: string[];
  source: { file: string; line: number };
}
