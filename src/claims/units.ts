/**
 * The units normalized matching reads after a number, each spelled one way: bytes (decimal and binary, never
 * the one for the other), bits, time, percent and currencies. A small table rather than a library: the
 * libraries that parse units (convert-units, js-quantities, mathjs) convert between them, which matching must
 * not do (`2 GB` is not `2000 MB` for a gold fact), and none reads currency symbols or `per cent`.
 */

const TABLE: Record<string, readonly string[]> = {
  byte: ['byte', 'bytes'],
  kb: ['kb', 'kilobyte', 'kilobytes'],
  mb: ['mb', 'megabyte', 'megabytes'],
  gb: ['gb', 'gigabyte', 'gigabytes'],
  tb: ['tb', 'terabyte', 'terabytes'],
  pb: ['pb', 'petabyte', 'petabytes'],
  kib: ['kib', 'kibibyte', 'kibibytes'],
  mib: ['mib', 'mebibyte', 'mebibytes'],
  gib: ['gib', 'gibibyte', 'gibibytes'],
  tib: ['tib', 'tebibyte', 'tebibytes'],
  bit: ['bit', 'bits'],
  kbit: ['kbit', 'kilobit', 'kilobits'],
  mbit: ['mbit', 'megabit', 'megabits'],
  gbit: ['gbit', 'gigabit', 'gigabits'],
  tbit: ['tbit', 'terabit', 'terabits'],
  ns: ['ns', 'nsec', 'nanosecond', 'nanoseconds'],
  // The micro sign (U+00B5) and the Greek mu (U+03BC): NFC keeps them apart.
  µs: ['µs', 'μs', 'us', 'usec', 'microsecond', 'microseconds'],
  ms: ['ms', 'msec', 'msecs', 'millisecond', 'milliseconds'],
  s: ['s', 'sec', 'secs', 'second', 'seconds'],
  min: ['min', 'mins', 'minute', 'minutes'],
  h: ['h', 'hr', 'hrs', 'hour', 'hours'],
  day: ['day', 'days'],
  week: ['week', 'weeks', 'wk', 'wks'],
  month: ['month', 'months'],
  year: ['year', 'years', 'yr', 'yrs'],
  '%': ['%', 'percent', 'pct'],
  usd: ['$', 'usd', 'dollar', 'dollars'],
  eur: ['€', 'eur', 'euro', 'euros'],
  gbp: ['£', 'gbp'],
  jpy: ['¥', 'jpy', 'yen'],
  cny: ['cny', 'rmb', 'yuan'],
  inr: ['₹', 'inr', 'rupee', 'rupees'],
};

const UNITS = new Map(Object.entries(TABLE).flatMap(([unit, names]) => names.map((n) => [n, unit])));

/**
 * Bits written with a capital and a small b (`Mb`), read before case is folded: `MB` is bytes. `B` alone is
 * bytes (`512 B`), a small `b` alone nothing.
 */
const CASED = new Map([
  ['B', 'byte'],
  ['Kb', 'kbit'],
  ['Mb', 'mbit'],
  ['Gb', 'gbit'],
  ['Tb', 'tbit'],
]);

/** The canonical unit a token names, `cased` as written and `folded` case-folded; undefined if none. */
export const unitOf = (cased: string, folded: string): string | undefined =>
  ((cased.charCodeAt(cased.length - 1) | 0x20) === 0x62 && CASED.get(cased)) || UNITS.get(folded);

const CURRENCIES = new Set(['usd', 'eur', 'gbp', 'jpy', 'cny', 'inr']);

/** Whether a unit may come before its number (`$5`, `EUR 5`, `C$5`): currencies only. */
export const leads = (unit: string): boolean => CURRENCIES.has(unit) || PREFIXED.test(unit);

const PREFIXED = /^[a-z]{1,3}\p{Sc}$/u;

/** The prefixes that name the currency the sign alone names, or that `¥` alone does not. */
const PREFIX_OF: ReadonlyMap<string, string> = new Map([
  ['us$', 'usd'],
  ['cn¥', 'cny'],
  ['jp¥', 'jpy'],
]);

/**
 * A currency sign with 1 to 3 capitals against it (`C$`, `A$`, `R$`, `NZ$`, `US$`) is another currency than
 * the sign's: `c$`, unless the prefix names the sign's own (`US$` is `usd`). Undefined when `prefix` is not one.
 */
export const prefixedCurrency = (prefix: string, sign: string): string | undefined =>
  /^[A-Z]{1,3}$/.test(prefix)
    ? (PREFIX_OF.get(`${prefix}${sign}`.toLowerCase()) ?? `${prefix}${sign}`.toLowerCase())
    : undefined;

/** Units written in two words, by their first: `per cent`. */
export const TWO_WORD_UNITS: ReadonlyMap<string, readonly [second: string, unit: string]> = new Map([
  ['per', ['cent', '%']],
]);
