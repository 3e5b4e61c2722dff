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
 * A number with digits as one numeral: digit groups joined (`2,000` → `2000`), leading zeros dropped (`09` →
 * `9`). The fraction stays as written: `2.5` is never `25`, and `1.10` (a version, often) is not `1.1`.
 */
export function canonicalNumber(digits: string): string {
  return digits.replaceAll(',', '').replace(/^0+(?=\d)/, '');
}

/** A token is a number (or a quantity, see units.ts) when it starts with a digit: words never do. */
export const isNumberToken = (token: string): boolean => {
  const c = token.charCodeAt(0);
  return c >= 0x30 && c <= 0x39;
};
