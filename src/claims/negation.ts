/**
 * Negations near a gold fact: a claim that says `not`, `no longer` or `never` right before the fact, or
 * between its words, does not state it. Words as normalize.ts leaves them (case-folded, apostrophes dropped).
 */

/** How many tokens before a fact's first matched token a negation is looked for. */
export const NEGATION_WINDOW = 3;

const NEGATIONS = new Set([
  'not',
  'no',
  'never',
  'nor',
  'neither',
  'without',
  'cannot',
  'cant',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'arent',
  'wasnt',
  'werent',
  'wont',
  'wouldnt',
  'shouldnt',
  'couldnt',
  'hasnt',
  'havent',
  'hadnt',
  'mustnt',
  'neednt',
  'aint',
]);

/** `no more than`, `not later than`: a bound, not a negation. */
const COMPARATIVES = new Set([
  'more',
  'less',
  'fewer',
  'greater',
  'higher',
  'lower',
  'later',
  'earlier',
  'longer',
  'shorter',
  'larger',
  'smaller',
  'bigger',
]);

/** Whether token `at` of `tokens` negates: a negation word not opening a bound (`no more than`). */
export function negatesAt(tokens: readonly string[], at: number): boolean {
  if (!NEGATIONS.has(tokens[at]!)) return false;
  return !(COMPARATIVES.has(tokens[at + 1] ?? '') && tokens[at + 2] === 'than');
}

/** Whether a token in [from, to) of `tokens` negates. */
export function negatedBetween(tokens: readonly string[], from: number, to: number): boolean {
  for (let i = Math.max(0, from); i < to; i++) if (negatesAt(tokens, i)) return true;
  return false;
}
