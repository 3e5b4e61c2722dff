import { confusableWith } from './confusables.js';

/**
 * Negations near a gold fact: a claim that says `not`, `no longer` or `never` right before the fact, or
 * between its words, does not state it. Words as normalize.ts leaves them (case-folded, apostrophes dropped,
 * contractions opened: `doesn't` is `does not`; a negation ending a sentence marked `no.`, which is none).
 */

/** How many tokens before a fact's first matched token a negation is looked for. */
export const NEGATION_WINDOW = 3;

const NEGATIONS = new Set(['not', 'no', 'never', 'nor', 'neither', 'without']);

/** Whether a word (as normalize.ts leaves it) is a negation word, whatever follows it. */
export const isNegation = (word: string): boolean => NEGATIONS.has(word);

/**
 * Contractions with `not`, apostrophe dropped, and the word before it: normalize.ts reads `doesn't` (and
 * `doesnt`) as `does not`, so that a fact's `does not expire` is in `doesn't expire`.
 */
const CONTRACTIONS: ReadonlyMap<string, string> = new Map([
  ['cannot', 'can'],
  ['cant', 'can'],
  ['dont', 'do'],
  ['doesnt', 'does'],
  ['didnt', 'did'],
  ['isnt', 'is'],
  ['arent', 'are'],
  ['wasnt', 'was'],
  ['werent', 'were'],
  ['wont', 'will'],
  ['wouldnt', 'would'],
  ['shouldnt', 'should'],
  ['couldnt', 'could'],
  ['hasnt', 'has'],
  ['havent', 'have'],
  ['hadnt', 'had'],
  ['mustnt', 'must'],
  ['neednt', 'need'],
  ['aint', 'is'],
]);

/** The word a contraction with `not` opens with (`doesnt`: `does`); undefined for any other word. */
export const contracted = (word: string): string | undefined => CONTRACTIONS.get(word);

/** A mixed-script word read as the negation or contraction it imitates (`nоt`, Cyrillic `о`: `not`). */
export const disguisedNegation = confusableWith([...NEGATIONS, ...CONTRACTIONS.keys()]);

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

/** `never exceed`, `must not exceed`, `not to exceed`: a bound too. */
const EXCEED = new Set(['exceed', 'exceeds', 'exceeding']);

/** Whether a negation at `at` opens a bound: `no more than`, `not exceed`, `not to exceed`. */
function opensBound(tokens: readonly string[], at: number): boolean {
  const next = tokens[at + 1] ?? '';
  if (COMPARATIVES.has(next)) return tokens[at + 2] === 'than';
  return EXCEED.has(next) || (next === 'to' && EXCEED.has(tokens[at + 2] ?? ''));
}

/** Whether token `at` of `tokens` negates: a negation word not opening a bound. */
export function negatesAt(tokens: readonly string[], at: number): boolean {
  return NEGATIONS.has(tokens[at]!) && !opensBound(tokens, at);
}
