import { open } from 'node:fs/promises';
import { ioError } from '../errors.js';
import { checkUtf8 } from './utf8.js';

/** Whole lines in a read buffer: bytes [0, length) of `buf`, which starts at byte `offset` of the file. */
export interface LineWindow {
  buf: Buffer;
  length: number;
  offset: number;
}

export interface WindowOptions {
  /** Bytes per read; a line longer than this widens the buffer. */
  size: number;
  /** Reads only bytes [start, end) of the file. */
  start?: number;
  end?: number;
  /** A line still unfinished past this many bytes is an input error: `longLine()` says which. */
  maxLineBytes: number;
  longLine: () => Error;
  /** What the file should be, for the error when it is a directory (e.g. "a JSON Lines file"). */
  what: string;
}

const NEWLINE = 0x0a;

/**
 * Read buffers given back by finished readers, for the next: a large input is read as hundreds of chunks,
 * and a fresh megabyte for each left the C allocator's heap fragmented (about 15 MB more at the peak of the
 * 1x grounded-qa benchmark).
 */
const spare: Buffer[] = [];

/**
 * Reads a file as windows of whole lines, in one buffer reused for the whole file (and then by the next
 * reader): every window ends with a `\n` except the last, which holds whatever follows the file's last
 * newline. A window is valid until the next is asked for, or the reading ends. One await per read, none
 * per line; a large file costs no allocation per read, whose garbage would otherwise linger in the
 * process's memory. A BOM is left in place: it is part of the first line's bytes, and each caller decides
 * what to do with it.
 */
export async function* readWindows(file: string, options: WindowOptions): AsyncGenerator<LineWindow> {
  const start = options.start ?? 0;
  const end = options.end ?? Infinity;
  if (end <= start) return;
  const handle = await open(file, 'r').catch((err: unknown) => {
    throw ioError(file, err, options.what);
  });
  const kept = spare.findIndex((b) => b.length === options.size);
  let buf = kept >= 0 ? spare.splice(kept, 1)[0]! : Buffer.allocUnsafe(options.size);
  try {
    let have = 0; // bytes of a line not yet complete, kept at the start of the buffer
    let offset = start;
    for (;;) {
      if (have === buf.length) {
        const wider = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(wider, 0, 0, have);
        buf = wider;
      }
      const want = Math.min(buf.length - have, end - (offset + have));
      const read = want > 0 ? (await handle.read(buf, have, want, offset + have)).bytesRead : 0;
      if (read === 0) break;
      const filled = have + read;
      const cut = buf.lastIndexOf(NEWLINE, filled - 1) + 1;
      if (cut > 0) {
        checkUtf8(file, buf, 0, cut, offset);
        yield { buf, length: cut, offset };
      }
      have = filled - cut;
      if (have > options.maxLineBytes) throw options.longLine();
      buf.copy(buf, 0, cut, filled);
      offset += cut;
    }
    if (have > 0) {
      checkUtf8(file, buf, 0, have, offset);
      yield { buf, length: have, offset };
    }
  } catch (err) {
    throw ioError(file, err, options.what);
  } finally {
    if (buf.length === options.size && spare.length < 4) spare.push(buf);
    await handle.close();
  }
}
