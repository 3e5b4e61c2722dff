import { isoInstant } from '../../io/iso-time.js';

/**
 * An ISO 8601 date-time as integer microseconds since the epoch, so differences are exact (Date.parse keeps
 * milliseconds only, and float seconds near 1.7e9 lose the last digits). Harbor's result.json writes local
 * times without a zone; they are read as UTC (as iso-time.ts reads every time), which is right for
 * differences between two of them.
 */
export function epochMicros(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const t = isoInstant(value.trim());
  return t && t.ms * 1000 + Math.floor(t.nanos / 1000);
}

/** Seconds from `start` to `at`, both epoch microseconds. */
export function secondsBetween(start: number, at: number): number {
  return (at - start) / 1e6;
}
