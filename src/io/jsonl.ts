import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { InputError, ioError } from '../errors.js';
import { excessDepth, tooDeep } from './json-depth.js';
import { checkUtf8 } from './utf8.js';
import { readWindows } from './windows.js';

export interface JsonlRecord {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

/** A line's place in its file, so a record can be read again later without keeping it in memory. */
export interface LineRef {
  file: string;
  line: number;
  /** Byte offset of the line's first byte, and its length in bytes (without the newline). */
  offset: number;
  length: number;
}

export interface JsonlOptions {
  /** A longer line is an input error rather than an unbounded buffer. */
  maxLineBytes?: number;
  /**
   * Reads only the bytes [start, end), which must begin and end on line starts (see splitLines). Line
   * numbers then count from the range's first line, and offsets stay offsets in the file.
   */
  start?: number;
  end?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

export interface TextLine {
  line: number;
  text: string;
  offset: number;
  length: number;
}

/**
 * The lines of one chunk of a file. A line's text is decoded only when asked for, so a loader that parses
 * as it goes holds one line's string at a time: thousands of decoded lines held for a whole chunk outlive
 * a young-generation collection or two and get promoted, and the old generation then grows by hundreds of
 * megabytes of garbage on a large file.
 */
export class LineBatch {
  constructor(
    /** The bytes the lines are in, valid only until the next batch is asked for. */
    readonly buf: Buffer,
    /** Each line's first byte and its end (before `\r\n` or `\n`) in buf. */
    private readonly bounds: readonly number[],
    /** Line number of the first line. */
    readonly firstLine: number,
    /** Offset of buf's first byte in the file. */
    private readonly bufOffset: number,
    /** The first line starts the file, where a BOM is dropped. */
    private readonly atFileStart: boolean,
  ) {}

  get length(): number {
    return this.bounds.length / 2;
  }

  line(i: number): number {
    return this.firstLine + i;
  }

  /** Byte offset of line i in the file, and its length in bytes without the newline. */
  offset(i: number): number {
    return this.bufOffset + this.bounds[2 * i]!;
  }

  byteLength(i: number): number {
    return this.bounds[2 * i + 1]! - this.bounds[2 * i]!;
  }

  /** Line i is buf[start(i), end(i)), without its newline (and without a BOM only in text()). */
  start(i: number): number {
    return this.bounds[2 * i]!;
  }

  end(i: number): number {
    return this.bounds[2 * i + 1]!;
  }

  /** Only spaces, tabs and carriage returns, read from the bytes (see isBlank). */
  blank(i: number): boolean {
    const b = this.buf;
    for (let k = this.bounds[2 * i]!, e = this.bounds[2 * i + 1]!; k < e; k++) {
      const c = b[k];
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
    }
    return true;
  }

  text(i: number): string {
    let start = this.bounds[2 * i]!;
    const end = this.bounds[2 * i + 1]!;
    const b = this.buf;
    if (i === 0 && this.atFileStart && b[start] === 0xef && b[start + 1] === 0xbb && b[start + 2] === 0xbf)
      start += 3;
    return b.toString('utf8', start, end);
  }
}

/**
 * Splits a file into lines by scanning bytes for `\n`, a batch per megabyte read (see readWindows: a batch
 * is only valid until the next is asked for). A trailing `\r` and a leading BOM are dropped. Blank lines
 * are included.
 */
export async function* readLineBatches(file: string, options: JsonlOptions = {}): AsyncGenerator<LineBatch> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let lineNo = 0;
  for await (const { buf, length, offset } of readWindows(file, {
    size: 1 << 20,
    start: options.start,
    end: options.end,
    maxLineBytes,
    longLine: () => tooLong(file, lineNo + 1, maxLineBytes),
    what: 'a JSON Lines file',
  })) {
    const batch = lineBatch(file, buf, length, offset, lineNo + 1, maxLineBytes);
    lineNo += batch.length;
    yield batch;
  }
}

/** The lines of buf[0, length), which starts at byte `offset` of the file, the first being line `firstLine`. */
function lineBatch(
  file: string,
  buf: Buffer,
  length: number,
  offset: number,
  firstLine: number,
  maxLineBytes: number,
): LineBatch {
  const bounds: number[] = [];
  let lineNo = firstLine - 1;
  let from = 0;
  while (from < length) {
    // Every window but the last ends with a newline; the last may end with a line that has none.
    const found = buf.indexOf(NEWLINE, from);
    const nl = found === -1 || found >= length ? length : found;
    lineNo++;
    if (nl - from > maxLineBytes) throw tooLong(file, lineNo, maxLineBytes);
    bounds.push(from, nl > from && buf[nl - 1] === CR ? nl - 1 : nl);
    from = nl + 1;
  }
  return new LineBatch(buf, bounds, firstLine, offset, offset === 0);
}

/**
 * The lines of bytes [start, end) of a file already open (whole lines, as splitLines cuts them), read at
 * once and synchronously into `into` (a larger buffer when they do not fit): for a thread that reads
 * thousands of small runs of one file, where an open, a read and a close awaited for each left it idle a
 * tenth of the time. Checked for UTF-8 as readLineBatches is; lines count from the run's first.
 */
export function readLinesAt(
  fd: number,
  file: string,
  start: number,
  end: number,
  into: Buffer,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): LineBatch {
  const buf = end - start <= into.length ? into : Buffer.allocUnsafe(end - start);
  let length = 0;
  try {
    while (length < end - start) {
      const read = readSync(fd, buf, length, end - start - length, start + length);
      if (read === 0) break;
      length += read;
    }
  } catch (err) {
    throw ioError(file, err);
  }
  checkUtf8(file, buf, 0, length, start);
  return lineBatch(file, buf, length, start, 1, maxLineBytes);
}

/** One line at a time, for loaders where convenience beats the last bit of speed. */
export async function* readLines(file: string, options: JsonlOptions = {}): AsyncGenerator<TextLine> {
  for await (const batch of readLineBatches(file, options)) {
    for (let i = 0; i < batch.length; i++)
      yield {
        line: batch.line(i),
        text: batch.text(i),
        offset: batch.offset(i),
        length: batch.byteLength(i),
      };
  }
}

/** Streams a JSON Lines file: one JSON value per line, blank lines skipped. */
export async function* readJsonl(file: string, options: JsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  for await (const { line, text } of readLines(file, options)) {
    if (!isBlank(text)) yield { line, value: parseJsonLine(file, line, text) };
  }
}

/** Reads one line again by its reference (for the few records a report shows in full). */
export async function readRecord(ref: LineRef): Promise<unknown> {
  const handle = await open(ref.file, 'r');
  try {
    const buf = Buffer.alloc(ref.length);
    await handle.read(buf, 0, ref.length, ref.offset);
    return parseJsonLine(
      ref.file,
      ref.line,
      buf
        .toString('utf8')
        .replace(/^\ufeff/, '')
        .replace(/\r$/, ''),
    );
  } finally {
    await handle.close();
  }
}

export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

export function parseJsonLine(file: string, line: number, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const { reason, column } = describeJsonError(err, text);
    throw new InputError({ file, line, column }, `invalid JSON: ${reason}; expected one JSON value per line`);
  }
  // After the parse: a text that is not JSON says so first, and its brackets are then sure to pair.
  const depth = excessDepth(text);
  if (depth !== undefined) throw new InputError({ file, line }, tooDeep(depth));
  return value;
}

/** Reduces V8's JSON.parse message (which quotes the whole input) to its reason and a column. */
export function describeJsonError(err: unknown, text: string): { reason: string; column?: number } {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /at position (\d+)/.exec(message);
  let reason = message
    .replace(/,? ?(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .trim();
  if (/^Unexpected end of JSON input/.test(message)) reason = 'unexpected end of line';
  if (reason === '' || reason.length > 80) reason = 'malformed value';
  reason = reason.charAt(0).toLowerCase() + reason.slice(1);
  if (pos) return { reason, column: Number(pos[1]) + 1 };
  const token = /Unexpected token '?(.)'?/.exec(message);
  if (token) {
    const idx = text.indexOf(token[1]!);
    if (idx >= 0) return { reason, column: idx + 1 };
  }
  return { reason };
}

function tooLong(file: string, line: number, max: number): InputError {
  return new InputError(
    { file, line },
    `line is longer than ${max} bytes; expected one JSON object per line`,
  );
}
