import { InputError, preview } from '../errors.js';
import { isoToMs } from '../io/iso-time.js';

/**
 * `ts` is epoch seconds as a number, or an ISO-8601 string (converted to epoch seconds; UTC when it has no
 * offset, see iso-time.ts); NaN when absent.
 */
export function timestamp(ts: number | string | null | undefined, file: string, line: number): number {
  if (ts === null || ts === undefined) return NaN;
  if (typeof ts === 'number') {
    if (!Number.isFinite(ts)) throw new InputError({ file, line }, 'field "ts": expected a finite number');
    return ts;
  }
  const ms = isoToMs(ts, true);
  if (ms === undefined) {
    throw new InputError(
      { file, line },
      `field "ts": ${preview(ts)} is not a date; expected epoch seconds or an ISO-8601 string (UTC when it has no offset)`,
    );
  }
  return ms / 1000;
}
