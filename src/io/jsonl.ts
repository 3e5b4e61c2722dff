import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { InputError } from '../errors.js';

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
 * Splits a file into lines by scanning bytes for `\n`, a batch per read chunk (one await per megabyte,
 * not per line). A trailing `\r` and a leading BOM are dropped. Blank lines are included.
 */
export async function* readLineBatches(file: string, options: JsonlOptions = {}): AsyncGenerator<TextLine[]> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  let carry: Buffer | undefined;
  let carryOffset = 0;
  let lineNo = 0;
  let read = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
      const bufOffset = carry ? carryOffset : read;
      read += chunk.length;
      const batch: TextLine[] = [];
      let start = 0;
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
        lineNo++;
        if (nl - start > maxLineBytes) throw tooLong(file, lineNo, maxLineBytes);
        batch.push(decode(buf, start, nl, lineNo, bufOffset));
        start = nl + 1;
      }
      carry = start < buf.length ? buf.subarray(start) : undefined;
      carryOffset = bufOffset + start;
      if (carry && carry.length > maxLineBytes) throw tooLong(file, lineNo + 1, maxLineBytes);
      if (batch.length) yield batch;
    }
  } catch (err) {
    throw ioError(file, err);
  }
  if (carry && carry.length > 0) yield [decode(carry, 0, carry.length, lineNo + 1, carryOffset)];
}

/** One line at a time, for loaders where convenience beats the last bit of speed. */
export async function* readLines(file: string, options: JsonlOptions = {}): AsyncGenerator<TextLine> {
  for await (const batch of readLineBatches(file, options)) yield* batch;
}

/** Streams a JSON Lines file: one JSON value per line, blank lines skipped. */
export async function* readJsonl(file: string, options: JsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  for await (const batch of readLineBatches(file, options)) {
    for (const { line, text } of batch) {
      if (!isBlank(text)) yield { line, value: parseJsonLine(file, line, text) };
    }
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

function decode(buf: Buffer, start: number, end: number, lineNo: number, bufOffset: number): TextLine {
  const offset = bufOffset + start;
  if (end > start && buf[end - 1] === CR) end--;
  const length = end - start;
  // A BOM only makes sense at the very start of the file.
  if (lineNo === 1 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  return { line: lineNo, text: buf.toString('utf8', start, end), offset, length };
}

export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

export function parseJsonLine(file: string, line: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason, column } = describeJsonError(err, text);
    throw new InputError({ file, line, column }, `invalid JSON: ${reason}; expected one JSON value per line`);
  }
}

/** Reduces V8's JSON.parse message (which quotes the whole input) to its reason and a column. */
export function describeJsonError(err: unknown, text: string): { reason: string; column?: number } {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /at position (\d+)/.exec(message);
  let reason = message
    .replace(/,? ?(?:\.\.\.)?"[\s\S]*" is not valid JSON$/, '')
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

function ioError(file: string, err: unknown): unknown {
  if (err instanceof InputError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return new InputError({ file }, 'file not found');
  if (code === 'EISDIR') return new InputError({ file }, 'is a directory; expected a JSON Lines file');
  if (code === 'EACCES') return new InputError({ file }, 'permission denied');
  return err;
}
