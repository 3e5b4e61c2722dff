import { canonicalNumber, numberWord, takesUnitWord } from './numbers.js';
import { leads, TWO_WORD_UNITS, unitOf } from './units.js';

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
// spaces (alone, as containment.ts reads them), a word (apostrophes inside it dropped), a percent or currency
// sign. Anything else separates tokens.
const UNSPACED = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}`;
const TOKEN = new RegExp(
  String.raw`(?<![\p{L}\p{N}\p{M}])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)` +
    String.raw`|([${UNSPACED}])` +
    String.raw`|((?:(?![${UNSPACED}])[\p{L}\p{N}\p{M}])+(?:['’](?:(?![${UNSPACED}])[\p{L}\p{N}\p{M}])+)*)` +
    String.raw`|([%\p{Sc}])`,
  'gu',
);

// The same on ASCII text, where the classes above are these (`\p{Sc}` is `$`, no mark, no unspaced script):
// five times faster on English claims.
// A word starts with a letter here and takes the digits after it, so no lookbehind is needed.
const ASCII_TOKEN =
  /(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|((?!))|([A-Za-z][A-Za-z0-9]*(?:'[A-Za-z0-9]+)*)|([%$])/g;
const NOT_ASCII = /[\u0080-\uffff]/;

const ARTICLES = new Set(['a', 'an', 'the']);

/** Case folding as far as `toLowerCase` falls short of Unicode's: `ß` is `ss`, a final sigma is `σ`. */
function fold(word: string): string {
  const lower = word.toLowerCase();
  return NOT_ASCII.test(lower) ? lower.replaceAll('ß', 'ss').replaceAll('ς', 'σ') : lower;
}

/** A word, number or sign as read, before quantities are formed. */
interface Piece {
  text: string;
  /** The unit it names, if it could follow (or, for a currency, lead) a number. */
  unit?: string;
  number?: boolean;
  /** A percent or currency sign. */
  sign?: boolean;
  /** A tens word (`twenty`), which a unit word after it joins. */
  tens?: boolean;
}

export function normalize(text: string, options: NormalizeOptions): string[] {
  // ASCII is its own NFC and NFKC.
  if (!NOT_ASCII.test(text)) return quantities(pieces(text, ASCII_TOKEN));
  return quantities(pieces(text.normalize(options.nfkc ? 'NFKC' : 'NFC'), TOKEN));
}

function pieces(text: string, token: RegExp): Piece[] {
  const out: Piece[] = [];
  for (const m of text.matchAll(token)) {
    const [, digits, unspaced, word, sign] = m;
    if (digits !== undefined) out.push({ text: canonicalNumber(digits), number: true });
    else if (unspaced !== undefined) out.push({ text: fold(unspaced) });
    else if (sign !== undefined) out.push({ text: sign, unit: unitOf(sign, sign), sign: true });
    else {
      const cased = word!.includes("'") || word!.includes('’') ? word!.replaceAll(/['’]/g, '') : word!;
      const folded = fold(cased);
      const value = numberWord(folded);
      const last = out.at(-1);
      // `twenty-five`, `twenty five`: the unit word joins the tens before it.
      if (value !== undefined && value < 10 && last?.number && last.tens) {
        last.text = String(Number(last.text) + value);
        last.tens = false;
      } else if (value !== undefined)
        out.push({ text: String(value), number: true, tens: takesUnitWord(value) });
      else out.push({ text: folded, unit: unitOf(cased, folded) });
    }
  }
  return out;
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
function quantities(ps: readonly Piece[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (p.number) {
      const [unit, taken] = unitAfter(ps, i);
      out.push(unit === undefined ? p.text : `${p.text} ${unit}`);
      i += taken;
    } else if (p.unit !== undefined && leads(p.unit) && ps[i + 1]?.number && !unitAfter(ps, i + 1)[0]) {
      out.push(`${ps[i + 1]!.text} ${p.unit}`);
      i++;
    } else if (!p.sign && !ARTICLES.has(p.text)) out.push(p.text);
  }
  return out;
}
