import type { TraceLine } from './contract.js';
import {
  ascii,
  keyIs,
  memberValue,
  skipSpace,
  skipString,
  skipStringArray,
  skipNumber,
  skipValue,
  skipLiteral,
  stringArrayValue,
  stringValue,
} from '../../io/json-scan.js';

/** Where scanTraceLine found the fields a scan needs; one object, reused from line to line. */
export interface TraceFields {
  /** The qid's string, quotes included: [qidStart, qidEnd). */
  qidStart: number;
  qidEnd: number;
  /** `ts`: absent or null, a number (its value), or a string at [tsStart, tsEnd), quotes included. */
  tsKind: 'none' | 'number' | 'string';
  ts: number;
  tsStart: number;
  tsEnd: number;
  /** Where the values judging reads start (see judgedTrace); `echo` is -1 without constraints_echo. */
  retrieved: number;
  claim: number;
  claimEnd: number;
  citations: number;
  echo: number;
}

/** What judging reads of a trace line. */
export type JudgedTrace = Pick<TraceLine, 'retrieved_ids'> & {
  answer_json: Pick<TraceLine['answer_json'], 'claim' | 'citations' | 'constraints_echo'>;
};

export const traceFields = (): TraceFields => ({
  qidStart: 0,
  qidEnd: 0,
  tsKind: 'none',
  ts: NaN,
  tsStart: 0,
  tsEnd: 0,
  retrieved: 0,
  claim: 0,
  claimEnd: 0,
  citations: 0,
  echo: -1,
});

const QID = ascii('qid');
const RETRIEVED_IDS = ascii('retrieved_ids');
const ANSWER_JSON = ascii('answer_json');
const TS = ascii('ts');
const Q = ascii('q');
const OK = ascii('ok');
const REASON = ascii('reason');
const LATENCY_MS = ascii('latency_ms');
const CLAIM = ascii('claim');
const CITATIONS = ascii('citations');
const CONSTRAINTS_ECHO = ascii('constraints_echo');

/**
 * Checks the trace line at b[start, end) against JSON and the trace contract (traceLineSchema) on its
 * bytes, and finds its qid and ts. False when it is not sure the line is good: the caller then parses it
 * (JSON.parse and the schema), which words the error, or accepts the rare good line refused here (a key
 * written with escapes, very deep nesting, a non-finite number).
 */
export function scanTraceLine(b: Buffer, start: number, end: number, out: TraceFields): boolean {
  let i = skipSpace(b, start, end);
  if (i >= end || b[i] !== 0x7b) return false;
  let seen = 0;
  out.tsKind = 'none';
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
      out.qidStart = v;
      out.qidEnd = i;
      seen |= 1;
    } else if (keyIs(b, k, RETRIEVED_IDS)) {
      i = skipStringArray(b, v, end);
      out.retrieved = v;
      seen |= 2;
    } else if (keyIs(b, k, ANSWER_JSON)) {
      i = scanAnswer(b, v, end, out);
      seen |= 4;
    } else if (keyIs(b, k, TS)) {
      if (c === 0x22) {
        i = skipString(b, v, end);
        out.tsKind = 'string';
        out.tsStart = v;
        out.tsEnd = i;
      } else if (c === 0x6e) {
        i = skipLiteral(b, v, end);
        out.tsKind = 'none';
      } else {
        i = skipNumber(b, v, end);
        if (i < 0) return false;
        out.tsKind = 'number';
        out.ts = Number(b.toString('latin1', v, i));
        if (!Number.isFinite(out.ts)) return false;
      }
    } else if (keyIs(b, k, Q) || keyIs(b, k, REASON)) {
      i = skipString(b, v, end);
    } else if (keyIs(b, k, OK)) {
      i = c === 0x74 || c === 0x66 ? skipLiteral(b, v, end) : -1;
    } else if (keyIs(b, k, LATENCY_MS)) {
      i = skipNumber(b, v, end);
      if (i < 0) return false;
      const ms = Number(b.toString('latin1', v, i));
      if (!(Number.isFinite(ms) && ms >= 0)) return false;
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
  return seen === 7 && skipSpace(b, i + 1, end) === end;
}

/** answer_json: an object with a string claim, string citations and, if any, string constraints_echo. */
function scanAnswer(b: Buffer, i: number, end: number, out: TraceFields): number {
  if (i >= end || b[i] !== 0x7b) return -1;
  let seen = 0;
  out.echo = -1;
  i = skipSpace(b, i + 1, end);
  if (i < end && b[i] === 0x7d) return -1;
  for (;;) {
    const k = i;
    const v = memberValue(b, k, end);
    if (v < 0) return -1;
    if (keyIs(b, k, CLAIM)) {
      i = skipString(b, v, end);
      out.claim = v;
      out.claimEnd = i;
      seen |= 1;
    } else if (keyIs(b, k, CITATIONS)) {
      i = skipStringArray(b, v, end);
      out.citations = v;
      seen |= 2;
    } else if (keyIs(b, k, CONSTRAINTS_ECHO)) {
      i = skipStringArray(b, v, end);
      out.echo = v;
    } else {
      i = skipValue(b, v, end, 2);
    }
    if (i < 0) return -1;
    i = skipSpace(b, i, end);
    if (i >= end) return -1;
    if (b[i] === 0x7d) return seen === 3 ? i + 1 : -1;
    if (b[i] !== 0x2c) return -1;
    i = skipSpace(b, i + 1, end);
  }
}

/**
 * The values judging reads from the line scanTraceLine last accepted into `f` (`end` is that line's end),
 * built from its bytes. Not JSON.parse: it interns every string value of ten characters or fewer, as most
 * ids are, into its isolate's string table, which at 200k judged lines grew the process by 20 MB and cost
 * more time than building the strings here.
 */
export function judgedTrace(b: Buffer, end: number, f: TraceFields): JudgedTrace {
  const answer: JudgedTrace['answer_json'] = {
    claim: stringValue(b, f.claim, f.claimEnd),
    citations: stringArrayValue(b, f.citations, end),
  };
  if (f.echo >= 0) answer.constraints_echo = stringArrayValue(b, f.echo, end);
  return { retrieved_ids: stringArrayValue(b, f.retrieved, end), answer_json: answer };
}
