import { skipSpace, skipStringArray, stringArrayValue, stringValue } from '../io/json-scan.js';
import { lineScanner } from '../io/record-shape.js';
import { answerShape } from './contract.js';
import type { JudgedTrace } from './trace-scan.js';

// The JSON bytes of a trace's members retrieved_ids and answer_json, checked in the contract's shape without
// being parsed: a Parquet trace's JSON columns are (parquet-scan.ts), and only the winners' are ever parsed.

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

const CLAIM = answerScanner.slot('/claim');
const CITATIONS = answerScanner.slot('/citations');
const ECHO = answerScanner.slot('/constraints_echo');

/** What judging reads of a run from the bytes of its members, which memberShapes tagged STRINGS and ANSWER. */
export function memberReader(): (ids: Buffer, answer: Buffer) => JudgedTrace {
  const found = answerScanner.found();
  return (ids, answer) => {
    // Tagged on another thread by the same scanners; parsed should they ever disagree.
    if (!answerScanner.scan(answer, 0, answer.length, found))
      return {
        retrieved_ids: JSON.parse(ids.toString()),
        answer_json: JSON.parse(answer.toString()),
      } as JudgedTrace;
    const end = answer.length;
    const answer_json: JudgedTrace['answer_json'] = {
      claim: stringValue(answer, found.at[CLAIM]!, found.end[CLAIM]!),
      citations: stringArrayValue(answer, found.at[CITATIONS]!, end),
    };
    if (found.at[ECHO]! >= 0) answer_json.constraints_echo = stringArrayValue(answer, found.at[ECHO]!, end);
    return { retrieved_ids: stringArrayValue(ids, skipSpace(ids, 0, ids.length), ids.length), answer_json };
  };
}
