/**
 * C, containment: some gold substring occurs in the claim, both lowercased (JavaScript `toLowerCase`). One
 * of fewer than WHOLE_WORD_BELOW characters once trimmed ("2 GB", "v3", "TLS") is matched trimmed and as a
 * whole word or phrase (see containsWord); longer ones as plain substrings. docs/metrics.md states the rule.
 */
export const WHOLE_WORD_BELOW = 5;

/** A gold item's substrings as C matches them: plain data, built once per item, not once per claim. */
export interface Containment {
  /** Substrings of WHOLE_WORD_BELOW characters or more, lowercased. */
  substrings: string[];
  /** The shorter ones, trimmed and lowercased. */
  words: string[];
}

/** Fewer than WHOLE_WORD_BELOW characters (code points) once trimmed; a code point is 1 or 2 units. */
export function isShort(s: string): boolean {
  const t = s.trim();
  return t.length < 2 * WHOLE_WORD_BELOW && [...t].length < WHOLE_WORD_BELOW;
}

export function containment(goldSubstrings: readonly string[]): Containment {
  const substrings: string[] = [];
  const words: string[] = [];
  for (const s of goldSubstrings) {
    if (isShort(s)) words.push(s.trim().toLowerCase());
    else substrings.push(s.toLowerCase());
  }
  return { substrings, words };
}

/** C on a claim already lowercased. */
export function contains(lowerClaim: string, c: Containment): boolean {
  for (let i = 0; i < c.substrings.length; i++) if (lowerClaim.includes(c.substrings[i]!)) return true;
  for (let i = 0; i < c.words.length; i++) if (containsWord(lowerClaim, c.words[i]!)) return true;
  return false;
}

const NONE = 0;
const LETTER = 1;
const DIGIT = 2;
type Kind = typeof NONE | typeof LETTER | typeof DIGIT;

// Letters, digits and marks make words, except letters of scripts written without spaces between words:
// no boundary between two of their words can be seen, so each such character stands alone.
const WORD = /[\p{L}\p{N}\p{M}]/uy;
const NUMBER = /\p{N}/uy;
const UNSPACED =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/uy;

/** The kind of the character (code point) starting at `i`; NONE past either end. */
function kindAt(text: string, i: number): Kind {
  if (i < 0 || i >= text.length) return NONE;
  const c = text.charCodeAt(i);
  if (c < 0x80) {
    if (c >= 0x30 && c <= 0x39) return DIGIT;
    const l = c | 0x20;
    return l >= 0x61 && l <= 0x7a ? LETTER : NONE;
  }
  WORD.lastIndex = i;
  if (!WORD.test(text)) return NONE;
  UNSPACED.lastIndex = i;
  if (UNSPACED.test(text)) return NONE;
  NUMBER.lastIndex = i;
  return NUMBER.test(text) ? DIGIT : LETTER;
}

/** Where the code point that ends just before `i` starts; -1 at the start. */
function before(text: string, i: number): number {
  if (i <= 0) return -1;
  const c = text.charCodeAt(i - 1);
  const pair = c >= 0xdc00 && c <= 0xdfff && i >= 2 && (text.charCodeAt(i - 2) & 0xfc00) === 0xd800;
  return pair ? i - 2 : i - 1;
}

/** `.` and `,` between two digits do not end a word: "1.5" and "3,000" are one number each. */
const isJoiner = (c: number) => c === 0x2e || c === 0x2c;

/**
 * Whether the substring's edge character, of kind `own`, is continued by the text's character at `next` (the
 * one before the occurrence, step -1, or after it, step 1): by a letter, digit or mark, or, for a digit, by
 * a joiner and then a digit. Then the occurrence is inside a word.
 */
function continues(text: string, own: Kind, next: number, step: -1 | 1): boolean {
  if (own === NONE || next < 0 || next >= text.length) return false;
  if (kindAt(text, next) !== NONE) return true;
  if (own !== DIGIT || !isJoiner(text.charCodeAt(next))) return false;
  return kindAt(text, step < 0 ? before(text, next) : next + 1) === DIGIT;
}

/**
 * `word` occurs in `text` at word boundaries (Unicode's, UAX #29, simplified): a letter, digit or mark at
 * either edge of the occurrence is not continued in the text by another, nor a digit by `.` or `,` and a
 * digit. So "2 gb" is in "at most 2 gb." and "(2 gb)", but not in "12 gb", "2 gbs" or "1.2 gb"; "tls" is in
 * "tls 1.3" but not in "mtls". Any occurrence will do, or any that `accept`s (given where it starts).
 */
export function containsWord(text: string, word: string, accept?: (at: number) => boolean): boolean {
  if (word === '') return false;
  const first = kindAt(word, 0);
  const last = kindAt(word, before(word, word.length));
  // Occurrences may overlap ("1 1" in "11 1 1" is found at 3, after the one at 1 inside "11").
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    if (
      !continues(text, first, before(text, at), -1) &&
      !continues(text, last, at + word.length, 1) &&
      (accept === undefined || accept(at))
    )
      return true;
  }
  return false;
}

/** Whether `part` occurs in `text` at a place that `accept`s (given where it starts). */
export function containsWhere(text: string, part: string, accept: (at: number) => boolean): boolean {
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) if (accept(at)) return true;
  return false;
}
