import { stringArrayValue, stringValue } from '../io/json-scan.js';
import type { FieldMap } from '../io/field-map.js';
import { lineScanner, type Found, type LineScanner } from '../io/record-shape.js';
import { goldShape, type GoldLine } from './contract.js';

const scanner = lineScanner(goldShape);
/** The scanner of gold mapped by `fields:` (slots number the canonical members whatever the mapping). */
export const mappedGoldScanner = (fields: FieldMap): LineScanner => lineScanner(goldShape, fields);
const QID = scanner.slot('/qid');
const ANSWERABLE = scanner.slot('/answerable');
const SUBSTRINGS = scanner.slot('/gold_claim_substr');
const CITATIONS = scanner.slot('/gold_citations');
const CONSTRAINTS = scanner.slot('/constraints');

/** Where scanGoldLine found each member of a gold line; one object, reused from line to line. */
export type GoldFields = Found;

export const goldFields = (): GoldFields => scanner.found();

/** Checks the gold line at b[start, end) on its bytes (see LineScanner.scan). */
export const scanGoldLine = (
  b: Buffer,
  start: number,
  end: number,
  out: GoldFields,
  using: LineScanner = scanner,
): boolean => using.scan(b, start, end, out);

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
    qid: stringValue(b, f.at[QID]!, f.end[QID]!),
    answerable: b[f.at[ANSWERABLE]!] === 0x74,
    gold_claim_substr: stringArrayValue(b, f.at[SUBSTRINGS]!, end),
    gold_citations: stringArrayValue(b, f.at[CITATIONS]!, end),
  };
  if (f.at[CONSTRAINTS]! >= 0) out.constraints = stringArrayValue(b, f.at[CONSTRAINTS]!, end);
  return out;
}
