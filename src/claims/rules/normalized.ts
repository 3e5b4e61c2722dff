import { z } from 'zod';
import {
  containsChecked,
  containsNormalized,
  normalizeClaim,
  normalizeFact,
  type NormalizedRule,
} from '../match.js';
import { substring } from './substring.js';
import type { ClaimRule } from './types.js';

/** normalized's keys, which semantic reads too: the judge sees only what these rules leave. */
export const normalizedKeys = {
  /** NFKC instead of NFC: folds compatibility forms (`x²` → `x2`, `ﬁ` → `fi`, full-width digits). */
  nfkc: z.boolean().default(false),
  /** The share of a gold fact's tokens the claim must hold, in order (1: all of them). */
  min_token_recall: z
    .number()
    .gt(0, 'expected a share of tokens above 0, which every claim would meet')
    .max(1, 'expected a share of tokens of at most 1')
    .default(1),
};

const options = z.strictObject(normalizedKeys);

/**
 * A fact's tokens in the claim in order, numbers and units read as values, not negated (claims/match.ts).
 * A substring hit is tried first and counts only where it passes the same checks: `12 GB` does not hold
 * `2 GB`.
 */
export const normalized: ClaimRule<typeof options, NormalizedRule> = {
  name: 'normalized',
  options,
  create: (o) => ({ nfkc: o.nfkc, minTokenRecall: o.min_token_recall }),
  match(claim, _lower, item, rule) {
    if (containsChecked(claim, item.facts, rule)) return substring.name;
    return containsFact(claim, item.facts, rule) ? 'normalized' : undefined;
  },
  advice:
    'grounded and cited, but no gold fact is in the claim even normalized (its words in order, numbers and units as values, case, articles and punctuation aside, not negated): make the answer state the fact as the cited chunk words it',
};

/** Whether the claim contains any of the facts by the normalized rule: the claim is normalized once. */
function containsFact(claim: string, facts: readonly string[], rule: NormalizedRule): boolean {
  const tokens = normalizeClaim(claim, rule);
  for (let i = 0; i < facts.length; i++)
    if (containsNormalized(tokens, normalizeFact(facts[i]!, rule), rule)) return true;
  return false;
}
