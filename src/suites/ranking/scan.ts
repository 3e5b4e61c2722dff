import { isAscii } from 'node:buffer';
import { InputError } from '../../errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/jsonl.js';
import { readWindows } from '../../io/windows.js';
import type { ScoredRecord } from './contract.js';
import { parseQrelsLine, parseRunLine } from './trec.js';

/**
 * TREC files read as bytes. A run has millions of short lines, so the common line is taken apart where it
 * lies in the read buffer: no string per line, no array per line, a qid decoded once per query and a score
 * parsed from its digits. Any line the fast path does not take (another field count, an exponent, more
 * than 15 digits, ...) is decoded and handed to parseRunLine / parseQrelsLine, which decide what it means
 * and word the errors, so both paths accept the same lines and say the same things.
 */

/** Bytes per read. */
const CHUNK = 1 << 22;

const NEWLINE = 0x0a;

/** 10^0 … 10^22: the powers of ten a double holds exactly. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Reads `file` in chunks of whole lines: `visit(buf, start, end, line)` gets bytes [start, end) holding
 * complete lines, each ended by `\n` except the file's last, and the number of the first; it returns the
 * number of the line after them. A leading BOM is skipped. One await per read, none per line.
 */
async function forEachChunk(
  file: string,
  visit: (buf: Buffer, start: number, end: number, line: number) => number,
): Promise<void> {
  let line = 1;
  for await (const { buf, length, offset } of readWindows(file, {
    size: CHUNK,
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    longLine: () => tooLong(file, line),
    what: 'a TREC file',
  })) {
    const bom = offset === 0 && length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
    line = visit(buf, bom ? 3 : 0, length, line);
  }
}

/** A line longer than this is an input error rather than an unbounded buffer (as readLineBatches). */
function checkLength(buf: Buffer, start: number, next: number, file: string, line: number): void {
  if (next - start <= DEFAULT_MAX_LINE_BYTES) return;
  const length = next - start - (buf[next - 1] === NEWLINE ? 1 : 0);
  if (length > DEFAULT_MAX_LINE_BYTES) throw tooLong(file, line);
}

function tooLong(file: string, line: number): InputError {
  return new InputError(
    { file, line },
    `line is longer than ${DEFAULT_MAX_LINE_BYTES} bytes; expected one TREC record per line`,
  );
}

/** C's isspace (trec_eval's parser): space, \t, \n, \v, \f, \r. */
const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

/**
 * Splits the line starting at `i` into whitespace-separated fields: the [start, end) of the first
 * MAX_FIELDS go into `bounds`, the position after the line's `\n` into `bounds[2 * MAX_FIELDS]`. Returns
 * the number of fields (which may exceed MAX_FIELDS).
 */
const MAX_FIELDS = 7;
function splitLine(buf: Buffer, i: number, end: number, bounds: Int32Array): number {
  let n = 0;
  while (i < end) {
    const c = buf[i]!;
    if (c === NEWLINE) {
      i++;
      break;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    do i++;
    while (i < end && !isSpace(buf[i]!));
    if (n < MAX_FIELDS) {
      bounds[2 * n] = start;
      bounds[2 * n + 1] = i;
    }
    n++;
  }
  bounds[2 * MAX_FIELDS] = i;
  return n;
}

/**
 * `[+-]digits[.digits]` with at most 15 digits, or NaN when the text is anything else. Such a mantissa and
 * the power of ten are exact doubles, so the one division rounds once: the same double as Number(text).
 */
function fastDecimal(buf: Buffer, i: number, end: number, integer: boolean): number {
  let negative = false;
  let c = buf[i]!;
  if (c === 0x2d || c === 0x2b) {
    negative = c === 0x2d;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let fraction = -1;
  for (; i < end; i++) {
    c = buf[i]!;
    if (c >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      digits++;
      if (fraction >= 0) fraction++;
    } else if (c === 0x2e && fraction < 0 && !integer) {
      fraction = 0;
    } else {
      return NaN;
    }
  }
  if (digits === 0 || digits > 15) return NaN;
  const value = fraction > 0 ? mantissa / POW10[fraction]! : mantissa;
  return negative ? -value : value;
}

/** The line as readLineBatches gives it: UTF-8, without its `\n` and a trailing `\r`. */
function lineText(buf: Buffer, start: number, next: number): string {
  let end = next;
  if (end > start && buf[end - 1] === NEWLINE) end--;
  if (end > start && buf[end - 1] === 0x0d) end--;
  return buf.toString('utf8', start, end);
}

/** Decodes qids once per run of equal bytes: a run's lines come grouped by query. */
class QidCache {
  private bytes = Buffer.alloc(64);
  private length = -1;
  value = '';

  get(buf: Buffer, start: number, end: number): string {
    const n = end - start;
    let same = n === this.length;
    for (let k = 0; same && k < n; k++) same = buf[start + k] === this.bytes[k];
    if (!same) {
      if (n > this.bytes.length) this.bytes = Buffer.alloc(2 * n);
      buf.copy(this.bytes, 0, start, end);
      this.length = n;
      // A copy, never a slice of the chunk: qids outlive it (results, warnings).
      this.value = buf.toString('utf8', start, end);
    }
    return this.value;
  }
}

/**
 * Streams a TREC run (`qid Q0 docid rank score tag`) to `visit`, blank lines skipped. The record passed is
 * reused for the next line: `visit` copies what it keeps. Its docid may be a slice of the chunk being read,
 * so a docid kept past the query's block must be copied (Block's `detach`).
 */
export async function forEachTrecRun(file: string, visit: (record: ScoredRecord) => void): Promise<void> {
  const record: ScoredRecord = { qid: '', docid: '', score: 0, file, line: 0 };
  const qids = new QidCache();
  const bounds = new Int32Array(2 * MAX_FIELDS + 1);
  await forEachChunk(file, (buf, start, end, line) => {
    // An ASCII chunk is decoded once and docids are sliced from it; otherwise each docid is decoded.
    const text = isAscii(buf.subarray(start, end)) ? buf.toString('latin1', start, end) : undefined;
    let i = start;
    while (i < end) {
      const n = splitLine(buf, i, end, bounds);
      const next = bounds[2 * MAX_FIELDS]!;
      checkLength(buf, i, next, file, line);
      if (n === 6) {
        const score = fastDecimal(buf, bounds[8]!, bounds[9]!, false);
        if (score === score) {
          record.qid = qids.get(buf, bounds[0]!, bounds[1]!);
          record.docid =
            text === undefined
              ? buf.toString('utf8', bounds[4], bounds[5])
              : text.slice(bounds[4]! - start, bounds[5]! - start);
          record.score = score;
          record.line = line;
          visit(record);
        } else {
          slow(buf, i, next, line);
        }
      } else if (n !== 0) {
        slow(buf, i, next, line);
      }
      i = next;
      line++;
    }
    return line;
  });

  function slow(buf: Buffer, start: number, next: number, line: number): void {
    const r = parseRunLine(lineText(buf, start, next), file, line);
    if (!r) return;
    record.qid = r.qid;
    record.docid = r.docid;
    record.score = r.score;
    record.line = line;
    visit(record);
  }
}

export interface TrecJudgment {
  qid: string;
  docid: string;
  rel: number;
  line: number;
}

/** Streams TREC qrels (`qid iter docid rel`) to `visit`, blank lines skipped; the judgment is reused. */
export async function forEachTrecJudgment(
  file: string,
  visit: (judgment: TrecJudgment) => void,
): Promise<void> {
  const judgment: TrecJudgment = { qid: '', docid: '', rel: 0, line: 0 };
  const qids = new QidCache();
  const bounds = new Int32Array(2 * MAX_FIELDS + 1);
  await forEachChunk(file, (buf, start, end, line) => {
    let i = start;
    while (i < end) {
      const n = splitLine(buf, i, end, bounds);
      const next = bounds[2 * MAX_FIELDS]!;
      checkLength(buf, i, next, file, line);
      const rel = n === 4 ? fastDecimal(buf, bounds[6]!, bounds[7]!, true) : NaN;
      if (rel === rel) {
        judgment.qid = qids.get(buf, bounds[0]!, bounds[1]!);
        // Copied: judgments are kept for the whole run.
        judgment.docid = buf.toString('utf8', bounds[4], bounds[5]);
        judgment.rel = rel;
        judgment.line = line;
        visit(judgment);
      } else if (n !== 0) {
        const j = parseQrelsLine(lineText(buf, i, next), file, line);
        if (j) visit({ ...j, line });
      }
      i = next;
      line++;
    }
    return line;
  });
}
