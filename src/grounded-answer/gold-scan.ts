import {
  ascii,
  keyIs,
  scanLineObject,
  skipBoolean,
  skipNonEmptyString,
  skipString,
  skipStringArray,
  skipValue,
  stringArrayValue,
  stringValue,
} from '../io/json-scan.js';
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
  /** The required members found so far, a bit each: the scan's own bookkeeping. */
  seen: number;
}

export const goldFields = (): GoldFields => ({
  qid: 0,
  qidEnd: 0,
  answerable: false,
  substrings: 0,
  citations: 0,
  constraints: -1,
  seen: 0,
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
  out.seen = 0;
  out.constraints = -1;
  return scanLineObject(b, start, end, out, goldMember) && out.seen === 31;
}

function goldMember(b: Buffer, k: number, v: number, end: number, out: GoldFields): number {
  if (keyIs(b, k, QID)) {
    const i = skipNonEmptyString(b, v, end);
    if (i < 0) return -1;
    out.qid = v;
    out.qidEnd = i;
    out.seen |= 1;
    return i;
  }
  if (keyIs(b, k, QUESTION)) {
    out.seen |= 2;
    return skipString(b, v, end);
  }
  if (keyIs(b, k, ANSWERABLE)) {
    out.answerable = b[v] === 0x74;
    out.seen |= 4;
    return skipBoolean(b, v, end);
  }
  if (keyIs(b, k, GOLD_CLAIM_SUBSTR)) {
    out.substrings = v;
    out.seen |= 8;
    return skipStringArray(b, v, end);
  }
  if (keyIs(b, k, GOLD_CITATIONS)) {
    out.citations = v;
    out.seen |= 16;
    return skipStringArray(b, v, end);
  }
  if (keyIs(b, k, CONSTRAINTS)) {
    out.constraints = v;
    return skipStringArray(b, v, end);
  }
  if (keyIs(b, k, NOTES)) return skipString(b, v, end);
  return skipValue(b, v, end, 1);
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
