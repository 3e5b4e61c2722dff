import { InputError, preview } from '../errors.js';

// How long a Parquet decoder may take, apart from hyparquet (parquet.ts is loaded only for a .parquet file).

/** Seconds a decoder may take for the next rows before the file is taken for one that never decodes. */
const DECODE_SECONDS = 60;

/** DECODE_SECONDS, or GROUNDGATE_DECODE_SECONDS when set. */
export function decodeSeconds(): number {
  const env = process.env.GROUNDGATE_DECODE_SECONDS;
  if (env === undefined || env === '') return DECODE_SECONDS;
  const n = Number(env);
  if (!(n > 0) || !Number.isFinite(n))
    throw new InputError(
      undefined,
      `GROUNDGATE_DECODE_SECONDS=${preview(env)}: expected a positive number of seconds`,
    );
  return n;
}

/** The input error for rows from `row` on that no decoder gave within `seconds`. */
export function notDecoded(file: string, row: number, seconds: number): InputError {
  return new InputError(
    { file, line: row },
    `the rows from here were not decoded within ${seconds} s; expected a Parquet file that decodes (a corrupt page can make the decoder loop; GROUNDGATE_DECODE_SECONDS sets the limit)`,
  );
}
