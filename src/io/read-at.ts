import { open } from 'node:fs/promises';
import { ioError } from '../errors.js';
import { parseJsonLine, type LineRef } from './jsonl.js';

/** A line's bytes in a file, without its newline (as readLineBatches reports them). */
export interface ByteSpan {
  offset: number;
  length: number;
}

const WINDOW = 1 << 20;

/**
 * Reads many lines of one file back by their byte spans, in one forward pass through a reused window
 * rather than a read per line, and hands each span's index and text to `each`, in offset order. A BOM at
 * offset 0 is dropped, as readLineBatches does. A callback, not a generator: 200k lines cost 200k
 * microtask turns through an async generator.
 */
export async function forEachSpan(
  file: string,
  spans: readonly ByteSpan[],
  each: (index: number, text: string) => void,
): Promise<void> {
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.offset - spans[b]!.offset);
  const handle = await open(file, 'r').catch((err: unknown) => {
    throw ioError(file, err);
  });
  try {
    let buf = Buffer.alloc(WINDOW);
    let start = 0;
    let end = 0;
    for (const i of order) {
      const { offset, length } = spans[i]!;
      if (offset < start || offset + length > end) {
        if (length > buf.length) buf = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
        [start, end] = [offset, offset + bytesRead];
      }
      let from = offset - start;
      if (offset === 0 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) from += 3;
      each(i, buf.toString('utf8', from, offset - start + length));
    }
  } finally {
    await handle.close();
  }
}

/** Reads the JSON records at many line references back, one pass per file, keyed by reference. */
export async function readRecords(refs: readonly LineRef[]): Promise<Map<LineRef, unknown>> {
  const out = new Map<LineRef, unknown>();
  const byFile = new Map<string, LineRef[]>();
  for (const ref of refs) {
    const list = byFile.get(ref.file);
    if (list) list.push(ref);
    else byFile.set(ref.file, [ref]);
  }
  for (const [file, list] of byFile) {
    await forEachSpan(file, list, (i, text) => {
      const ref = list[i]!;
      out.set(ref, parseJsonLine(file, ref.line, text));
    });
  }
  return out;
}
