const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO 8601 date-time as integer microseconds since the epoch, so differences are exact (Date.parse keeps
 * milliseconds only, and float seconds near 1.7e9 lose the last digits). Harbor's result.json writes local
 * times without a zone; they are read as UTC, which is right for differences between two of them.
 */
export function epochMicros(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = ISO.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return undefined;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const sign = digits.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const micros = Number(fraction.padEnd(6, '0').slice(0, 6));
  return (ms - offsetMinutes * 60_000) * 1000 + micros;
}

/** Seconds from `start` to `at`, both epoch microseconds. */
export function secondsBetween(start: number, at: number): number {
  return (at - start) / 1e6;
}
