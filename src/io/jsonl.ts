import { createReadStream } from 'node:fs';
import { InputError } from '../errors.js';

export interface JsonlRecord {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

export interface JsonlOptions {
  /** A longer line is an input error rather than an unbounded buffer. */
  maxLineBytes?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Streams a JSON Lines file: one JSON value per line, blank lines skipped, CRLF and a UTF-8 BOM tolerated.
 * Only the current line is held in memory, so a file of any size can be scored.
 */
export async function* readJsonl(file: string, options: JsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  for await (const { line, text } of readLines(file, options)) {
    if (isBlank(text)) continue;
    yield { line, value: parseJsonLine(file, line, text) };
  }
}

export interface TextLine {
  line: number;
  text: string;
}

/** Splits a file into lines by scanning bytes for `\n`; a trailing `\r` and a leading BOM are dropped. */
export async function* readLines(file: string, options: JsonlOptions = {}): AsyncGenerator<TextLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  let carry: Buffer | undefined;
  let lineNo = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
        lineNo++;
        if (nl - start > maxLineBytes) throw tooLong(file, lineNo, maxLineBytes);
        yield { line: lineNo, text: decode(buf, start, nl, lineNo) };
        start = nl + 1;
      }
      carry = start < buf.length ? buf.subarray(start) : undefined;
      if (carry && carry.length > maxLineBytes) throw tooLong(file, lineNo + 1, maxLineBytes);
    }
  } catch (err) {
    throw ioError(file, err);
  }
  if (carry && carry.length > 0) {
    lineNo++;
    yield { line: lineNo, text: decode(carry, 0, carry.length, lineNo) };
  }
}

function decode(buf: Buffer, start: number, end: number, lineNo: number): string {
  if (end > start && buf[end - 1] === CR) end--;
  // A BOM only makes sense at the very start of the file.
  if (lineNo === 1 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  return buf.toString('utf8', start, end);
}

function isBlank(text: string): boolean {
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
