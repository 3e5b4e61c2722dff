import { InputError, preview } from '../../errors.js';
import type { ScoredRecord } from './contract.js';

const QRELS_FIELDS = 'qid iter docid rel';
const RUN_FIELDS = 'qid Q0 docid rank score tag';

interface Fields {
  values: string[];
  /** 1-based column of each field, for messages. */
  columns: number[];
}

/** Splits a line on whitespace as C's isspace (trec_eval's parser) does, by scanning characters. */
export function splitFields(text: string): Fields {
  const values: string[] = [];
  const columns: number[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x20;
    const space = c === 0x20 || (c >= 0x09 && c <= 0x0d);
    if (space && start !== -1) {
      values.push(text.slice(start, i));
      columns.push(start + 1);
      start = -1;
    } else if (!space && start === -1) {
      start = i;
    }
  }
  return { values, columns };
}

/** A `qid iter docid rel` line; undefined for a blank line. `iter` is ignored, as trec_eval does. */
export function parseQrelsLine(
  text: string,
  file: string,
  line: number,
): { qid: string; docid: string; rel: number } | undefined {
  const { values, columns } = splitFields(text);
  if (values.length === 0) return undefined;
  if (values.length !== 4) throw fieldCount(values.length, 4, QRELS_FIELDS, 'qrels', file, line);
  const [qid, , docid, relText] = values as [string, string, string, string];
  if (!isInteger(relText) || !Number.isSafeInteger(Number(relText))) {
    throw new InputError(
      { file, line, column: columns[3] },
      `rel ${preview(relText)} is not an integer; expected an integer relevance grade (${QRELS_FIELDS})`,
    );
  }
  return { qid, docid, rel: Number(relText) };
}

/** A `qid Q0 docid rank score tag` line; undefined for a blank line. The rank column is ignored, as trec_eval does. */
export function parseRunLine(text: string, file: string, line: number): ScoredRecord | undefined {
  const { values, columns } = splitFields(text);
  if (values.length === 0) return undefined;
  if (values.length !== 6) throw fieldCount(values.length, 6, RUN_FIELDS, 'run', file, line);
  const [qid, , docid, , scoreText] = values as [string, string, string, string, string];
  const score = isDecimal(scoreText) ? Number(scoreText) : NaN;
  if (!Number.isFinite(score)) {
    throw new InputError(
      { file, line, column: columns[4] },
      `score ${preview(scoreText)} is not a finite number; expected a decimal score such as 12.5 or -3e-2 (${RUN_FIELDS})`,
    );
  }
  return { qid, docid, score, file, line };
}

function fieldCount(
  found: number,
  expected: number,
  layout: string,
  what: string,
  file: string,
  line: number,
): InputError {
  return new InputError(
    { file, line },
    `found ${found} field${found === 1 ? '' : 's'}; expected ${expected} whitespace-separated fields "${layout}" (TREC ${what})`,
  );
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const afterSign = (s: string, i: number) => (s[i] === '+' || s[i] === '-' ? i + 1 : i);

function afterDigits(s: string, i: number): number {
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  return i;
}

/** [+-]digits: what an integer grade looks like (trec_eval's atol would read "1.7" as 1 and "x" as 0). */
export function isInteger(s: string): boolean {
  const start = afterSign(s, 0);
  const end = afterDigits(s, start);
  return end > start && end === s.length;
}

/**
 * [+-]digits[.digits][e[+-]digits]: a decimal number. Number() alone would also take "0x1f", "Infinity" and
 * "0b1", and trec_eval's atof reads garbage as 0, which would silently tie a bad line with every zero score.
 */
export function isDecimal(s: string): boolean {
  const start = afterSign(s, 0);
  let end = afterDigits(s, start);
  let digits = end - start;
  if (s[end] === '.') {
    const fractionEnd = afterDigits(s, end + 1);
    digits += fractionEnd - end - 1;
    end = fractionEnd;
  }
  if (digits === 0) return false;
  if (s[end] === 'e' || s[end] === 'E') {
    const exponent = afterSign(s, end + 1);
    end = afterDigits(s, exponent);
    if (end === exponent) return false;
  }
  return end === s.length;
}
