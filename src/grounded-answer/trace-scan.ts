import { stringArrayValue, stringValue } from '../io/json-scan.js';
import type { FieldMap } from '../io/field-map.js';
import { lineScanner, type Found, type LineScanner } from '../io/record-shape.js';
import { traceShape, type TraceLine } from './contract.js';

const scanner = lineScanner(traceShape);
/**
 * The scanner of traces mapped by `fields:` (slots number the canonical members whatever the mapping).
 * `every` for a reader of qid and ts alone (the scan): it reads lines through `*` too (see lineScanner).
 */
export const mappedTraceScanner = (fields: FieldMap, options?: { every?: boolean }): LineScanner =>
  lineScanner(traceShape, fields, options);
const QID = scanner.slot('/qid');
const TS = scanner.slot('/ts');
const RETRIEVED = scanner.slot('/retrieved_ids');
const CLAIM = scanner.slot('/answer_json/claim');
const CITATIONS = scanner.slot('/answer_json/citations');
const ECHO = scanner.slot('/answer_json/constraints_echo');
const REFUSED = scanner.slot('/refused');
const TOKENS_IN = scanner.slot('/tokens_in');
const TOKENS_OUT = scanner.slot('/tokens_out');
const MODEL = scanner.slot('/model');

/** Where scanTraceLine found each member of a trace line; one object, reused from line to line. */
export type TraceFields = Found;

export const traceFields = (): TraceFields => scanner.found();

/** Checks the trace line at b[start, end) on its bytes (see LineScanner.scan). */
export const scanTraceLine = (
  b: Buffer,
  start: number,
  end: number,
  out: TraceFields,
  using: LineScanner = scanner,
): boolean => using.scan(b, start, end, out);

/** The qid of the line scanTraceLine last accepted into `f`. */
export const scannedQid = (b: Buffer, f: TraceFields): string => stringValue(b, f.at[QID]!, f.end[QID]!);

/** Its `ts`: undefined when absent or null. */
export function scannedTs(b: Buffer, f: TraceFields): number | string | undefined {
  const at = f.at[TS]!;
  if (at < 0 || b[at] === 0x6e) return undefined;
  return b[at] === 0x22 ? stringValue(b, at, f.end[TS]!) : Number(b.toString('latin1', at, f.end[TS]));
}

/** What judging reads of a trace line. */
export type JudgedTrace = Pick<TraceLine, 'retrieved_ids' | 'refused'> & {
  answer_json: Pick<TraceLine['answer_json'], 'claim' | 'citations' | 'constraints_echo'>;
};

/**
 * The values judging reads from the line scanTraceLine last accepted into `f` (`end` is that line's end),
 * built from its bytes. Not JSON.parse: it interns every string value of ten characters or fewer, as most
 * ids are, into its isolate's string table, which at 200k judged lines grew the process by 20 MB and cost
 * more time than building the strings here.
 */
export function judgedTrace(b: Buffer, end: number, f: TraceFields): JudgedTrace {
  const answer: JudgedTrace['answer_json'] = {
    claim: stringValue(b, f.at[CLAIM]!, f.end[CLAIM]!),
    // Absent only under citation_markers, where judging reads the claim's markers instead.
    citations: f.at[CITATIONS]! >= 0 ? stringArrayValue(b, f.at[CITATIONS]!, end) : [],
  };
  if (f.at[ECHO]! >= 0) answer.constraints_echo = stringArrayValue(b, f.at[ECHO]!, end);
  const t: JudgedTrace = { retrieved_ids: stringArrayValue(b, f.at[RETRIEVED]!, end), answer_json: answer };
  // The scanner checked it is a boolean: its first byte says which.
  if (f.at[REFUSED]! >= 0) t.refused = b[f.at[REFUSED]!] === 0x74;
  return t;
}

/** The token counts and model of the line scanTraceLine last accepted into `f` (each absent when it has none). */
export function scannedUsage(
  b: Buffer,
  f: TraceFields,
): Pick<TraceLine, 'tokens_in' | 'tokens_out' | 'model'> {
  const out: Pick<TraceLine, 'tokens_in' | 'tokens_out' | 'model'> = {};
  // The scanner checked each is what the contract's kind says (a count refuses null): its bytes are the value.
  if (f.at[TOKENS_IN]! >= 0)
    out.tokens_in = Number(b.toString('latin1', f.at[TOKENS_IN]!, f.end[TOKENS_IN]!));
  if (f.at[TOKENS_OUT]! >= 0)
    out.tokens_out = Number(b.toString('latin1', f.at[TOKENS_OUT]!, f.end[TOKENS_OUT]!));
  if (f.at[MODEL]! >= 0) out.model = stringValue(b, f.at[MODEL]!, f.end[MODEL]!);
  return out;
}
