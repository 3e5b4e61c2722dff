import { isNumberToken } from './numbers.js';
import { NEGATION_WINDOW, negatedBetween } from './negation.js';
import { normalize, type NormalizeOptions } from './normalize.js';

/**
 * Normalized matching (`claims: {match: normalized}`, docs/metrics.md "Claims"): a gold fact is contained in a
 * claim when its tokens (see normalize.ts) appear in the claim in order, at most MAX_GAP claim tokens between
 * two of them, with no negation between them or in the NEGATION_WINDOW tokens before the first.
 * `min_token_recall` below 1 lets some of the fact's tokens be missing (each may stand in for one claim token).
 */
export interface NormalizedRule extends NormalizeOptions {
  /** The share of a fact's tokens that must be found, in (0, 1]. */
  minTokenRecall: number;
}

/** Claim tokens allowed between two matched ones ("encrypted at rest" in "encrypted fully at rest"). */
export const MAX_GAP = 2;

/** A gold fact's tokens as its claims are matched against them: plain data, made once per item. */
export const normalizeFact = (fact: string, rule: NormalizeOptions): string[] => normalize(fact, rule);

/** A claim's tokens, made once per run, then matched against each fact. */
export const normalizeClaim = (claim: string, rule: NormalizeOptions): string[] => normalize(claim, rule);

/** A claim token stands for a fact token when equal, or a quantity of the fact's bare number (`2` in `2 gb`). */
function same(claim: string, fact: string): boolean {
  if (claim === fact) return true;
  return (
    isNumberToken(fact) &&
    claim.length > fact.length &&
    claim.charCodeAt(fact.length) === 0x20 &&
    claim.startsWith(fact) &&
    !fact.includes(' ')
  );
}

/** Whether a claim (tokens) contains a gold fact (tokens) by the normalized rule. */
export function containsNormalized(
  claim: readonly string[],
  fact: readonly string[],
  rule: Pick<NormalizedRule, 'minTokenRecall'>,
): boolean {
  const n = fact.length;
  if (n === 0 || claim.length === 0) return false;
  // A tolerance of 1e-9 keeps 0.75 of 4 tokens at 3 despite binary fractions.
  const need = Math.max(1, Math.ceil(rule.minTokenRecall * n - 1e-9));
  const search: Search = { claim, fact, need, failed: new Set() };
  for (let k = 0; k <= n - need; k++)
    for (let at = 0; at < claim.length; at++)
      if (
        same(claim[at]!, fact[k]!) &&
        !negatedBetween(claim, at - NEGATION_WINDOW, at) &&
        extendsFrom(search, k, at, n - need - k)
      )
        return true;
  return false;
}

interface Search {
  claim: readonly string[];
  fact: readonly string[];
  need: number;
  /** States (k, at, skips) known not to extend: repeated tokens would otherwise be tried again and again. */
  failed: Set<number>;
}

/**
 * Whether fact token k found at claim token `at`, with `skips` more fact tokens allowed to be missing, extends
 * to `need` tokens found: depth first over the places of the fact's next tokens.
 */
function extendsFrom(s: Search, k: number, at: number, skips: number): boolean {
  const { claim, fact } = s;
  const found = k + 1 - (fact.length - s.need - skips);
  if (found >= s.need) return true;
  const state = (k * claim.length + at) * fact.length + skips;
  if (s.failed.has(state)) return false;
  for (let next = k + 1; next < fact.length && next - k - 1 <= skips; next++) {
    const missing = next - k - 1;
    const last = Math.min(claim.length - 1, at + 1 + MAX_GAP + missing);
    for (let to = at + 1; to <= last; to++) {
      // A negation between two of the fact's tokens: "exports are not encrypted" states no "exports encrypted".
      if (to - 1 > at && negatedBetween(claim, to - 1, to)) break;
      if (same(claim[to]!, fact[next]!) && extendsFrom(s, next, to, skips - missing)) return true;
    }
  }
  s.failed.add(state);
  return false;
}
