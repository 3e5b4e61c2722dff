import prototypes from 'unhomoglyph/data.json' with { type: 'json' };

/**
 * Words spelled with letters of two scripts that look alike (`nоt` with a Cyrillic `о`), read as the word
 * they imitate. The data is Unicode's confusables (UTS #39 confusables.txt) as the unhomoglyph package ships
 * it: each confusable character to its prototype. Only words mixing Latin with another script are read this
 * way: a word wholly in Cyrillic (`по`, "along") is a word of its own language, not a disguise.
 */
const PROTOTYPES: Readonly<Record<string, string>> = prototypes;

const LATIN = /\p{Script=Latin}/u;
const OTHER_LETTER = /(?!\p{Script=Latin})\p{L}/u;

/** The skeleton of a word, UTS #39's, without its NFD steps: each character replaced by its prototype. */
export function skeleton(word: string): string {
  let out = '';
  for (const c of word) out += PROTOTYPES[c] ?? c;
  return out;
}

/** Whether a word mixes Latin letters with letters of another script. */
export const mixesScripts = (word: string): boolean => LATIN.test(word) && OTHER_LETTER.test(word);

/**
 * A lookup of `words` (plain Latin) by skeleton: `spelled(token)` is the word a mixed-script token imitates,
 * else undefined.
 */
export function confusableWith(words: Iterable<string>): (token: string) => string | undefined {
  const bySkeleton = new Map<string, string>();
  for (const w of words) bySkeleton.set(skeleton(w).toLowerCase(), w);
  return (token) => (mixesScripts(token) ? bySkeleton.get(skeleton(token).toLowerCase()) : undefined);
}
