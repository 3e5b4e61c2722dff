import { skipSpace, skipStringArray } from '../io/json-scan.js';
import { lineScanner } from '../io/record-shape.js';
import { answerShape } from './contract.js';

// The JSON bytes of a trace's members retrieved_ids and answer_json, checked in the contract's shape without
// being parsed: a Parquet trace's JSON columns are (parquet-runs.ts), and only the winners' are ever parsed.

/** An array of strings. */
export const STRINGS = 1;
/** An answer in the contract's shape. */
export const ANSWER = 2;

const answerScanner = lineScanner(answerShape);

/**
 * Tells STRINGS or ANSWER from JSON bytes (space around them allowed), or 0 when they are neither or the
 * scanners are unsure: bytes it tags are JSON, and JSON.parse gives a value of that shape. One per thread:
 * it keeps the answer scanner's state.
 */
export function memberShapes(): (b: Uint8Array) => number {
  const found = answerScanner.found();
  return (b) => {
    const end = skipStringArray(b, skipSpace(b, 0, b.length), b.length);
    if (end > 0 && skipSpace(b, end, b.length) === b.length) return STRINGS;
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    return answerScanner.scan(buf, 0, b.length, found) ? ANSWER : 0;
  };
}
