/**
 * ISO-8601 times as traces write them: a date, optionally a time (`T` or a space; seconds and their fraction
 * to nanoseconds optional) and an offset (`Z`, `±hh:mm`, `±hhmm`, `±hh`). A time without an offset is UTC,
 * never the machine's zone (Date.parse reads it as local time: the same files passed under TZ=UTC and failed
 * under America/New_York). One reader for every input that holds such times, so they cannot drift apart.
 */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?)?$/i;

/** An instant: whole epoch milliseconds, and the nanoseconds past them (0–999,999). */
export interface IsoInstant {
  ms: number;
  nanos: number;
}

/**
 * The instant an ISO-8601 text names; undefined for any other text, or a date or time that does not exist.
 * A date alone (midnight UTC) only where `dateAlone` allows it: a trace's `ts` may be one (Date.parse took
 * it), a span's start or end may not.
 */
export function isoInstant(text: string, dateAlone = false): IsoInstant | undefined {
  const m = ISO.exec(text);
  if (!m || (m[4] === undefined && !dateAlone)) return undefined;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 10, 11].map(
    (k) => Number(m[k] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const fraction = Number((m[7] ?? '').padEnd(9, '0'));
  return {
    ms: date.getTime() + ((hour * 60 + minute - offset) * 60 + second) * 1000 + Math.floor(fraction / 1e6),
    nanos: fraction % 1e6,
  };
}

/** Epoch milliseconds of an ISO-8601 time (its fraction kept past the millisecond), or undefined. */
export function isoToMs(text: string, dateAlone = false): number | undefined {
  const t = isoInstant(text, dateAlone);
  return t && t.ms + t.nanos / 1e6;
}
