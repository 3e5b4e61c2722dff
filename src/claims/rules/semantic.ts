import { z } from 'zod';
import { pricingSchema } from '../../cost/pricing.js';
import { normalized, normalizedKeys } from './normalized.js';
import type { ClaimRule } from './types.js';

// The judge's endpoint, key and model are never read from gates.yaml: a fork's pull request writes that file.
const options = z
  .strictObject({
    ...normalizedKeys,
    /** The judgments file, committed: the judge's verdicts by key. A run with a key rewrites it. */
    cache: z
      .string()
      .trim()
      .regex(/\.jsonl$/i, 'expected a JSON Lines file (.jsonl), which a run with a key rewrites')
      .optional(),
    /** A claim miss the judge could not be asked about: kept as a miss (warn) or precision refused (fail). */
    unjudged: z.enum(['warn', 'fail']).optional(),
    /** Precision is refused when any judgment was not in the committed file (main, release sign-off). */
    require_committed: z.boolean().optional(),
    /** Claim hits also judged, to measure agreement on hits. */
    judge_hits_sample: z.int().min(0).max(100_000).optional(),
    /** Human verdicts (JSON Lines {qid, verdict, claim?}): judge vs human agreement. */
    labels: z.string().trim().min(1).optional(),
    /** Semantic matching refused when judge vs human kappa is below it (or not computable). */
    min_kappa: z.number().min(-1).max(1).optional(),
    /**
     * The judge model's price (USD per million tokens), inline or in a file named here: what a dry run
     * estimates and a run reports the judge's spend in, and what GROUNDGATE_JUDGE_MAX_COST_USD is held to.
     */
    pricing: z.union([z.string().trim().min(1), pricingSchema]).optional(),
  })
  .superRefine((claims, ctx) => {
    if (claims.cache === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['match'],
        message:
          "semantic matching reads the judge's verdicts from a committed file; expected cache: with it (e.g. cache: .groundgate/judgments.jsonl)",
      });
    if (claims.min_kappa !== undefined && claims.labels === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['min_kappa'],
        message: 'is judge vs human agreement; expected labels: (human verdicts, JSON Lines) with it',
      });
  });

/**
 * The normalized rule, then the judge (docs/metrics.md, "Semantic matching"): judging matches as normalized
 * does; the judge's pass over the misses it leaves (claims/semantic.ts) makes those it supports this rule's
 * hits. report.json called these `judged` before.
 */
export const semantic: ClaimRule<typeof options, ReturnType<typeof normalized.create>> = {
  name: 'semantic',
  formerly: ['judged'],
  options,
  create: normalized.create,
  match: normalized.match,
  asksJudge: true,
  advice:
    'grounded and cited, but no gold fact is in the claim, normalized or as the judge reads it: make the answer state the fact the cited chunk gives',
};
