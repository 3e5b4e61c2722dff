import {
  ascii,
  keyIs,
  memberValue,
  skipLiteral,
  skipSpace,
  skipString,
  skipStringArray,
  skipValue,
  stringArrayValue,
  stringValue,
} from '../../io/json-scan.js';
import type { GoldLine } from './contract.js';

/** Where scanGoldLine found the values loading reads; one object, reused from line to line. */
export interface GoldFields {
  qid: number;
  qidEnd: number;
  answerable: boolean;
  substrings: number;
  citations: number;
  /** -1 without constraints. */
  constraints: number;
}

export const goldFields = (): GoldFields => ({
  qid: 0,
  qidEnd: 0,
  answerable: false,
  substrings: 0,
  citations: 0,
  constraints: -1,
});

const QID = ascii('qid');
const QUESTION = ascii('question');
const ANSWERABLE = ascii('answerable');
const GOLD_CLAIM_SUBSTR = ascii('gold_claim_substr');
const GOLD_CITATIONS = ascii('gold_citations');
const CONSTRAINTS = ascii('constraints');
const NOTES = ascii('notes');

/**
 * Checks the gold line at b[start, end) against JSON and the gold contract (goldLineSchema) on its bytes,
 * and finds the values loading reads. False when it is not sure the line is good: the caller then parses
 * it (JSON.parse and the schema), as for a trace line (see scanTraceLine).
 */
export function scanGoldLine(b: Buffer, start: number, end: number, out: GoldFields): boolean {
  let i = skipSpace(b, start, end);
  if (i >= end || b[i] !== 0x7b) return false;
  let seen = 0;
  out.constraints = -1;
  i = skipSpace(b, i + 1, end);
  if (i < end && b[i] === 0x7d) return false;
  for (;;) {
    const k = i;
    const v = memberValue(b, k, end);
    if (v < 0 || v >= end) return false;
    const c = b[v]!;
    if (keyIs(b, k, QID)) {
      i = c === 0x22 ? skipString(b, v, end) : -1;
      if (i - v <= 2) return false; // not a string, or an empty one
      out.qid = v;
      out.qidEnd = i;
      seen |= 1;
    } else if (keyIs(b, k, QUESTION)) {
      i = skipString(b, v, end);
      seen |= 2;
    } else if (keyIs(b, k, ANSWERABLE)) {
      i = c === 0x74 || c === 0x66 ? skipLiteral(b, v, end) : -1;
      out.answerable = c === 0x74;
      seen |= 4;
    } else if (keyIs(b, k, GOLD_CLAIM_SUBSTR)) {
      i = skipStringArray(b, v, end);
      out.substrings = v;
      seen |= 8;
    } else if (keyIs(b, k, GOLD_CITATIONS)) {
      i = skipStringArray(b, v, end);
      out.citations = v;
      seen |= 16;
    } else if (keyIs(b, k, CONSTRAINTS)) {
      i = skipStringArray(b, v, end);
      out.constraints = v;
    } else if (keyIs(b, k, NOTES)) {
      i = skipString(b, v, end);
    } else {
      i = skipValue(b, v, end, 1);
    }
    if (i < 0) return false;
    i = skipSpace(b, i, end);
    if (i >= end) return false;
    if (b[i] === 0x7d) break;
    if (b[i] !== 0x2c) return false;
    i = skipSpace(b, i + 1, end);
  }
  return seen === 31 && skipSpace(b, i + 1, end) === end;
}

/** What loading reads of a gold line. */
export type LoadedGold = Pick<
  GoldLine,
  'qid' | 'answerable' | 'gold_claim_substr' | 'gold_citations' | 'constraints'
>;

/**
 * The values of the line scanGoldLine last accepted into `f` (`end` is that line's end), built from its
 * bytes rather than by JSON.parse, which interns every string of ten characters or fewer (most ids).
 */
export function loadedGold(b: Buffer, end: number, f: GoldFields): LoadedGold {
  const out: LoadedGold = {
    qid: stringValue(b, f.qid, f.qidEnd),
    answerable: f.answerable,
    gold_claim_substr: stringArrayValue(b, f.substrings, end),
    gold_citations: stringArrayValue(b, f.citations, end),
  };
  if (f.constraints >= 0) out.constraints = stringArrayValue(b, f.constraints, end);
  return out;
}
