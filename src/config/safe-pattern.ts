import ret, { type Tokens } from 'ret';
import safeRegex from 'safe-regex2';

// gates.yaml may come from a fork, and a pattern that backtracks exponentially would hold the job on one
// crafted claim. Two shapes do that: a quantifier inside a quantified group (`(a+)+$`, safe-regex2's star-height
// test) and alternatives that can match the same text inside one (`(.|\s)*`, `(a|a)*`), which star height
// does not see. Both are refused; what is left can still be slow on a long text (`.*a.*b`), not exponential.

/** Why a pattern (already known to compile) may take exponential time, or undefined when it may not. */
export function whyUnsafe(source: string): string | undefined {
  // ret (safe-regex2's parser) knows no lookbehind; as a group it repeats alike.
  const parsed = source.replace(/\(\?<[=!]/g, '(?:');
  if (!safeRegex(parsed)) return 'a quantifier inside a quantified group';
  let root: Tokens;
  try {
    root = tokenize(parsed);
  } catch {
    return undefined;
  }
  return repeatsAlternatives(root, false)
    ? 'alternatives inside a group quantified more than 16 times, which may match the same text'
    : undefined;
}

/** A group of alternatives repeated at most this often backtracks through at most 2^16 ways: not a hold-up. */
const MAX_BOUNDED = 16;

// ret is CommonJS: its module is the tokenizer, with the token types as a member (its typings say otherwise).
const tokenize = ret as unknown as (source: string) => Tokens;
const { types } = ret as unknown as { types: typeof import('ret').types };

function repeatsAlternatives(t: Tokens, repeated: boolean): boolean {
  switch (t.type) {
    case types.ROOT:
    case types.GROUP:
      if (repeated && t.options && t.options.length > 1) return true;
      return [...(t.stack ?? []), ...(t.options ?? []).flat()].some((x) => repeatsAlternatives(x, repeated));
    case types.REPETITION:
      return repeatsAlternatives(t.value, repeated || t.max > MAX_BOUNDED);
    default:
      return false;
  }
}
