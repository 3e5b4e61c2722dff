import type { TraceLine } from './contract.js';
import {
  ascii,
  keyIs,
  scanLineObject,
  scanMembers,
  skipBoolean,
  skipNonEmptyString,
  skipString,
  skipStringArray,
  skipNumber,
  skipValue,
  skipLiteral,
  stringArrayValue,
  stringValue,
} from '../io/json-scan.js';

/**
 * Where scanTraceLine found the values the scan and judging read (see judgedTrace), and its bookkeeping;
 * one object, reused from line to line.
 */
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
  /** The required members found so far, a bit each: the scan's own bookkeeping. */
  seen: number;
  answerSeen: number;
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
  seen: 0,
  answerSeen: 0,
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
  out.seen = 0;
  out.tsKind = 'none';
  return scanLineObject(b, start, end, out, traceMember) && out.seen === 7;
}

function traceMember(b: Buffer, k: number, v: number, end: number, out: TraceFields): number {
  const c = b[v]!;
  if (keyIs(b, k, QID)) {
    const i = skipNonEmptyString(b, v, end);
    if (i < 0) return -1;
    out.qidStart = v;
    out.qidEnd = i;
    out.seen |= 1;
    return i;
  }
  if (keyIs(b, k, RETRIEVED_IDS)) {
    out.retrieved = v;
    out.seen |= 2;
    return skipStringArray(b, v, end);
  }
  if (keyIs(b, k, ANSWER_JSON)) {
    out.seen |= 4;
    return scanAnswer(b, v, end, out);
  }
  if (keyIs(b, k, TS)) {
    if (c === 0x22) {
      out.tsKind = 'string';
      out.tsStart = v;
      return (out.tsEnd = skipString(b, v, end));
    }
    if (c === 0x6e) {
      out.tsKind = 'none';
      return skipLiteral(b, v, end);
    }
    const i = skipNumber(b, v, end);
    if (i < 0) return -1;
    out.tsKind = 'number';
    out.ts = Number(b.toString('latin1', v, i));
    return Number.isFinite(out.ts) ? i : -1;
  }
  if (keyIs(b, k, Q) || keyIs(b, k, REASON)) return skipString(b, v, end);
  if (keyIs(b, k, OK)) return skipBoolean(b, v, end);
  if (keyIs(b, k, LATENCY_MS)) {
    const i = skipNumber(b, v, end);
    if (i < 0) return -1;
    const ms = Number(b.toString('latin1', v, i));
    return Number.isFinite(ms) && ms >= 0 ? i : -1;
  }
  return skipValue(b, v, end, 1);
}

/** answer_json: an object with a string claim, string citations and, if any, string constraints_echo. */
function scanAnswer(b: Buffer, i: number, end: number, out: TraceFields): number {
  out.answerSeen = 0;
  out.echo = -1;
  const close = scanMembers(b, i, end, out, answerMember);
  return out.answerSeen === 3 ? close : -1;
}

function answerMember(b: Buffer, k: number, v: number, end: number, out: TraceFields): number {
  if (keyIs(b, k, CLAIM)) {
    out.claim = v;
    out.answerSeen |= 1;
    return (out.claimEnd = skipString(b, v, end));
  }
  if (keyIs(b, k, CITATIONS)) {
    out.citations = v;
    out.answerSeen |= 2;
    return skipStringArray(b, v, end);
  }
  if (keyIs(b, k, CONSTRAINTS_ECHO)) {
    out.echo = v;
    return skipStringArray(b, v, end);
  }
  return skipValue(b, v, end, 2);
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
