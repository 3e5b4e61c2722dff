/**
 * Numbers as normalized matching compares them: written with digits (`2,000`, `2.5`) or as an English number
 * word (`two`, `twenty-five`), each read to one canonical numeral, so that numbers are equal or not, never near.
 */

/** The number words read as numbers: zero to nineteen, and the tens, which take a unit after them. */
const SMALL = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

const WORDS = new Map<string, number>([
  ...SMALL.map((w, n): [string, number] => [w, n]),
  ...TENS.map((w, i): [string, number] => [w, 20 + 10 * i]),
]);

/** The value of a lowercased number word; undefined for any other word. */
export const numberWord = (word: string): number | undefined => WORDS.get(word);

/** Whether a number word's value takes a unit word after it (`twenty` `five` → 25). */
export const takesUnitWord = (value: number): boolean => value >= 20 && value % 10 === 0;

/**
 * A number written with digits, as a regular expression's source: its sign (`-2`, `−2`, when nothing of a word
 * is before it), its digits (`2,000` in groups of three, never `2,0000`; `2.5`; `.5`; a version `1.2.3`), a
 * fraction (`1/2`), an exponent (`10^10`, `1e10`) and a magnitude (`2k`, `2M`, `2mn`, `2bn`) against it. `word`
 * is the class of characters that continue a word, which a magnitude must not be followed by (`2Mb` is a unit).
 */
export const numberPattern = (word: string): string =>
  String.raw`(?:(?<!${word})[-\u2212](?=\.?\d))?` +
  String.raw`(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)*|(?<!${word})\.\d+)` +
  String.raw`(?:(?:/\d+)+|\^[-\u2212]?\d+|[eE][-+\u2212]?\d+)?` +
  String.raw`(?:(?:[kKM]|mn|bn)(?!${word}))?`;

const PLAIN = /^\d+$/;
const MAGNITUDES: Record<string, string> = { k: 'k', K: 'k', M: 'mn', mn: 'mn', bn: 'bn' };

/**
 * A number read by numberPattern as one numeral: the minus sign `-`, digit groups joined (`2,000` → `2000`),
 * leading zeros dropped (`09` → `9`, `.5` → `0.5`), the magnitude one way (`2K` → `2k`, `2M` → `2mn`), the
 * exponent `e`. The rest stays as written: `2.5` is never `25`, `1.10` (a version, often) is not `1.1`, and
 * `2k` is not `2000` (numbers are equal or not, never converted).
 */
export function canonicalNumber(written: string): string {
  // Most numbers are plain digits: they need nothing more than their leading zeros dropped.
  if (PLAIN.test(written)) return written.charCodeAt(0) === 0x30 ? written.replace(/^0+(?=\d)/, '') : written;
  const [, sign = '', body = '', magnitude = ''] = /^([-\u2212]?)(.*?)([kKM]|mn|bn)?$/.exec(written)!;
  const digits = body
    .replaceAll(',', '')
    .replace(/^\./, '0.')
    .replace(/^0+(?=\d)/, '')
    .replace(/[eE]([-+\u2212]?)/, (_, s: string) => `e${s === '\u2212' ? '-' : s}`)
    .replace('^\u2212', '^-');
  return `${sign && '-'}${digits}${MAGNITUDES[magnitude] ?? ''}`;
}

/** A token is a number (or a quantity, see units.ts) when it starts with a digit, or `-` and a digit. */
export const isNumberToken = (token: string): boolean => {
  const c = token.charCodeAt(token.charCodeAt(0) === 0x2d ? 1 : 0);
  return c >= 0x30 && c <= 0x39;
};
