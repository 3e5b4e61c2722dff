import { z } from 'zod';

/** The seed's label space: tri-state plus abstain. Any other label is an input error. */
export const LABELS = ['VALID', 'NOT_IN_CONTEXT', 'REJECT', 'ABSTAIN'] as const;
export type Verdict = (typeof LABELS)[number];

const judgment = z.looseObject({ label: z.string(), reason: z.string().optional() });

/** One line of a merged pairs file (seed 004, cross-agent consistency §2.1). Extra keys are ignored. */
export const pairLineSchema = z.looseObject({
  qid: z.string().min(1, 'expected a non-empty qid'),
  scholar: judgment,
  auditor: judgment,
  answer_json: z.looseObject({ citations: z.array(z.string()).optional() }).optional(),
  retrieved_ids: z.array(z.string()).optional(),
  flags: z
    .looseObject({
      provenance_violation: z.boolean().optional(),
      constraints_mismatch: z.boolean().optional(),
    })
    .optional(),
});

/** One line of a separate scholar or auditor file: `{qid, label, reason?}`. */
export const raterLineSchema = z.looseObject({
  qid: z.string().min(1, 'expected a non-empty qid'),
  label: z.string(),
  reason: z.string().optional(),
});

export interface Judgment {
  label: Verdict;
  reason?: string;
  source: { file: string; line: number };
}

/** Both agents' labels for one item, and what arbitration needs from a pairs file. */
export interface Pair {
  qid: string;
  scholar: Judgment;
  auditor: Judgment;
  /** `flags.provenance_violation` or `flags.constraints_mismatch` (pairs files only). */
  redFlag: boolean;
  /** Some citation is not among `retrieved_ids` (pairs files only). */
  citationOutOfScope: boolean;
}
