import { contracted, disguisedNegation, isNegation } from './negation.js';
import { canonicalNumber, numberPattern, numberWord, takesUnitWord } from './numbers.js';
import { leads, prefixedCurrency, TWO_WORD_UNITS, unitOf } from './units.js';

/**
 * A claim or a gold fact as normalized matching reads it (docs/metrics.md, "Claims"): a list of tokens, each
 * a case-folded word, a number (`2000`, `2.5`) or a quantity (`2 gb`, `10 ms`, `5 usd`, `50 %`). In order:
 * Unicode NFC (NFKC when asked), numbers read before any punctuation is dropped, units read beside them,
 * case folded, articles and punctuation dropped.
 */
export interface NormalizeOptions {
  nfkc: boolean;
}

// One token at a time: a number not inside a word (`v3` is a word), a character of a script written without
// spaces (alone, as containment.ts reads them), a word (apostrophes inside it dropped, a version after its
// digits kept: `v3.1`), a percent or currency sign. Anything else separates tokens.
const UNSPACED = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}`;
const WORD_CHAR = String.raw`[\p{L}\p{N}\p{M}]`;
const LETTER = String.raw`(?:(?![${UNSPACED}])[\p{L}\p{N}\p{M}])`;
/** Apostrophes as typed: `'`, `’`, `‘`, `ʼ` (U+02BC), a backtick, an acute accent, a prime, a full-width `'`. */
const APOSTROPHES = "'’‘ʼ`´′＇";
const TOKEN = new RegExp(
  String.raw`(?<!${WORD_CHAR})(${numberPattern(WORD_CHAR)})` +
    String.raw`|([${UNSPACED}])` +
    String.raw`|(${LETTER}+(?:[${APOSTROPHES}]${LETTER}+)*(?:(?<=\d)\.\d+)*)` +
    String.raw`|([%\p{Sc}])`,
  'gu',
);

// The same on ASCII text, where the classes above are these (`\p{Sc}` is `$`, no mark, no unspaced script):
// five times faster on English claims.
// A word starts with a letter here and takes the digits after it, so a number needs no lookbehind of its own.
const ASCII_TOKEN = new RegExp(
  String.raw`(${numberPattern('[A-Za-z0-9]')})|((?!))|([A-Za-z][A-Za-z0-9]*(?:['\x60][A-Za-z0-9]+)*(?:(?<=\d)\.\d+)*)|([%$])`,
  'g',
);
const NOT_ASCII = /[\u0080-\uffff]/;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const APOSTROPHE = new RegExp(`[${APOSTROPHES}]`, 'g');
const APOSTROPHE_IN = new RegExp(`[${APOSTROPHES}]`);
/** What may stand between a tens word and its unit word: `twenty-five`, `twenty five`, not `twenty, five`. */
const TENS_JOIN = /^(?:\s+|\s*[-‐]\s*)$/;
/** `no.` before a number is "number" (`port no. 7420`), not a negation. */
const NUMBER_SIGN = /^\.\s*$/;
/** What ends a sentence: a negation before it (`No. Windows is not supported`) answers, and negates nothing after. */
const SENTENCE_END = /^\s*[.!?;]/;

const ARTICLES = new Set(['a', 'an', 'the']);

/** Case folding as far as `toLowerCase` falls short of Unicode's: `ß` is `ss`, a final sigma is `σ`. */
function fold(word: string): string {
  const lower = word.toLowerCase();
  return NOT_ASCII.test(lower) ? lower.replaceAll('ß', 'ss').replaceAll('ς', 'σ') : lower;
}

/** A word, number or sign as read, before quantities are formed. */
interface Piece {
  text: string;
  /** Where it was read, in the text as prepared (see prepare). */
  start: number;
  end: number;
  /** The unit it names, if it could follow (or, for a currency, lead) a number. */
  unit?: string;
  number?: boolean;
  /** A percent or currency sign. */
  sign?: boolean;
  /** A tens word (`twenty`), which a unit word after it joins. */
  tens?: boolean;
}

export function normalize(text: string, options: NormalizeOptions): string[] {
  // ASCII is its own NFC and NFKC, and has no default-ignorable character.
  if (!NOT_ASCII.test(text)) return quantities(pieces(text, ASCII_TOKEN));
  return quantities(pieces(prepare(text, options), TOKEN));
}

/**
 * The text as tokens are read from it: default-ignorable characters (zero-width spaces and joiners, soft
 * hyphens) dropped, so that `n\u200bot` is `not`, then Unicode NFC (NFKC when asked).
 */
export function prepare(text: string, options: NormalizeOptions): string {
  if (!NOT_ASCII.test(text)) return text;
  return text.replace(IGNORABLE, '').normalize(options.nfkc ? 'NFKC' : 'NFC');
}

function pieces(text: string, token: RegExp): Piece[] {
  const out: Piece[] = [];
  // exec on the shared pattern, not matchAll: no copy of the pattern nor iterator per text.
  token.lastIndex = 0;
  for (let m = token.exec(text); m !== null; m = token.exec(text)) {
    const [all, digits, unspaced, word, sign] = m;
    const start = m.index;
    const end = start + all.length;
    const last = out.at(-1);
    const glued = last !== undefined && last.end === start;
    // A single space after a negation changes nothing: most gaps are one.
    const spaced = last !== undefined && last.end === start - 1 && text.charCodeAt(last.end) === 0x20;
    if (last !== undefined && !glued && !spaced && isNegation(last.text)) {
      const gap = text.slice(last.end, start);
      if (digits !== undefined && last.text === 'no' && NUMBER_SIGN.test(gap)) last.text = 'number';
      else if (SENTENCE_END.test(gap)) last.text += '.';
    }
    if (digits !== undefined) {
      out.push({ text: canonicalNumber(digits), number: true, start, end });
    } else if (unspaced !== undefined) out.push({ text: fold(unspaced), start, end });
    else if (sign !== undefined) {
      // `C$20` is Canadian dollars, not `$20`: the capitals against the sign name the currency.
      const prefixed = glued ? prefixedCurrency(text.slice(last.start, last.end), sign) : undefined;
      if (prefixed !== undefined) out.pop();
      out.push({
        text: sign,
        unit: prefixed ?? unitOf(sign, sign),
        sign: true,
        start: prefixed ? last!.start : start,
        end,
      });
    } else readWord(out, word!, start, end, text, token === TOKEN);
  }
  return out;
}

/** Reads a word into `out`: a number word, a unit, a contraction opened, or a word against a number's digits. */
function readWord(
  out: Piece[],
  word: string,
  start: number,
  end: number,
  text: string,
  unicode: boolean,
): void {
  const apostrophe = unicode ? APOSTROPHE_IN.test(word) : word.includes("'") || word.includes('`');
  const cased = apostrophe ? word.replace(APOSTROPHE, '') : word;
  let folded = unicode ? fold(cased) : cased.toLowerCase();
  if (unicode && NOT_ASCII.test(folded)) folded = disguisedNegation(folded) ?? folded;
  const last = out.at(-1);
  const unit = unitOf(cased, folded);
  // `2nd`, `4o`, `3x`: digits against letters that name no unit are one word, never the bare number.
  if (last?.number && last.end === start && unit === undefined && !TWO_WORD_UNITS.has(folded)) {
    Object.assign(last, { text: last.text + folded, number: false, tens: false, end });
    return;
  }
  const value = numberWord(folded);
  // `twenty-five`, `twenty five`: the unit word joins the tens before it.
  if (
    value !== undefined &&
    value < 10 &&
    last?.number &&
    last.tens &&
    TENS_JOIN.test(text.slice(last.end, start))
  ) {
    Object.assign(last, { text: String(Number(last.text) + value), tens: false, end });
    return;
  }
  if (value !== undefined) {
    out.push({ text: String(value), number: true, tens: takesUnitWord(value), start, end });
    return;
  }
  // Every contraction with `not` ends in `t`.
  const opens = folded.charCodeAt(folded.length - 1) === 0x74 ? contracted(folded) : undefined;
  if (opens !== undefined) out.push({ text: opens, start, end }, { text: 'not', start, end });
  else out.push({ text: folded, unit, start, end });
}

/** The unit after number `at` and how many pieces it takes (`per cent`: two); none, 0. */
function unitAfter(ps: readonly Piece[], at: number): [unit: string | undefined, pieces: number] {
  const next = ps[at + 1];
  if (next === undefined || next.number) return [undefined, 0];
  if (next.unit !== undefined) return [next.unit, 1];
  const two = TWO_WORD_UNITS.get(next.text);
  return two && ps[at + 2]?.text === two[0] ? [two[1], 2] : [undefined, 0];
}

/**
 * Each number with its unit as one token (`2 gb`), so that words between cannot separate them. A percent or
 * currency sign away from any number is punctuation. Articles go only now, lest "$20 a month" read as 20 months.
 */
function quantities(ps: readonly Piece[], spans?: number[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (p.number) {
      const [unit, taken] = unitAfter(ps, i);
      out.push(unit === undefined ? p.text : `${p.text} ${unit}`);
      // A sign dropped before a number that has a unit of its own still belongs to it (`¥20 RMB`).
      const sign = ps[i - 1]?.sign && ps[i - 1]!.end === p.start ? ps[i - 1]!.start : p.start;
      spans?.push(sign, p.end, ps[i + taken]!.end);
      i += taken;
    } else if (p.unit !== undefined && leads(p.unit) && ps[i + 1]?.number && !unitAfter(ps, i + 1)[0]) {
      out.push(`${ps[i + 1]!.text} ${p.unit}`);
      spans?.push(p.start, ps[i + 1]!.end, ps[i + 1]!.end);
      i++;
    } else if (!p.sign && !ARTICLES.has(p.text)) {
      out.push(p.text);
      spans?.push(p.start, p.end, p.end);
    }
  }
  return out;
}

/**
 * The tokens of a text already prepared (see prepare), each with where it was read: token i spans
 * [spans[3i], spans[3i + 2]) of `prepared`, and its number ends at spans[3i + 1] (where a unit after it
 * starts, or the end). A quantity spans its number and its unit (`C$20`, `2 GB`).
 */
export function tokensAt(prepared: string): { tokens: string[]; spans: number[] } {
  const spans: number[] = [];
  const tokens = quantities(pieces(prepared, NOT_ASCII.test(prepared) ? TOKEN : ASCII_TOKEN), spans);
  return { tokens, spans };
}
