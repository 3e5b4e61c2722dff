import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { recordWord } from '../errors.js';

/**
 * Input that is not UTF-8 is read with U+FFFD in place of the bad bytes, as every decoder here does; that is
 * said once per file, naming the first such line, never silently. Readers note where they met it (a byte
 * offset, cheap to keep: validating costs ~30 ms a gigabyte) and run() turns the notes into warnings.
 */
const notes = new Map<string, number>();

/** Notes the first line of bytes [start, end) of `buf`, at file offset `fileOffset`, that is not UTF-8. */
export function checkUtf8(
  file: string,
  buf: Uint8Array,
  start: number,
  end: number,
  fileOffset: number,
): void {
  if (isUtf8(buf.subarray(start, end))) return;
  // Windows hold whole lines, and no UTF-8 sequence holds a newline: each line is valid or not on its own.
  for (let from = start; from < end;) {
    const nl = buf.indexOf(0x0a, from);
    const to = nl === -1 || nl >= end ? end : nl;
    if (!isUtf8(buf.subarray(from, to))) {
      noteInvalidUtf8(file, fileOffset + (from - start));
      return;
    }
    from = to + 1;
  }
}

/** Notes bytes that are not UTF-8 at `offset` of `file`; of a Parquet file, in its row `offset` (from 1). */
export function noteInvalidUtf8(file: string, offset: number): void {
  const key = path.resolve(file);
  const known = notes.get(key);
  if (known === undefined || offset < known) notes.set(key, offset);
}

/** The notes since the last call, as [absolute file, byte offset of its first bad line]; they are cleared. */
export function takeUtf8Notes(): [string, number][] {
  const out = [...notes];
  notes.clear();
  return out;
}

/** A whole file as text, checked as readers of JSON Lines check theirs. */
export function readText(file: string): string {
  const buf = readFileSync(file);
  checkUtf8(file, buf, 0, buf.length, 0);
  return buf.toString('utf8');
}

/** One warning per noted file, naming its first bad line (counted now: only a broken file pays for it). */
export async function utf8Warnings(
  taken: readonly [string, number][],
  name: (file: string) => string,
): Promise<string[]> {
  const out: string[] = [];
  for (const [file, offset] of [...taken].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const word = recordWord(file);
    // A Parquet file's note is its row, not a byte offset (see parquet.ts). A JSON Lines file was read a
    // moment ago; should it be gone now, the warning goes without its line.
    const at =
      word === 'row'
        ? ` row ${offset}`
        : await lineAt(file, offset).then(
            (line) => `:${line}`,
            () => '',
          );
    out.push(
      `${name(file)}${at}: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes (first such ${word}; expected UTF-8 text)`,
    );
  }
  return out;
}

async function lineAt(file: string, offset: number): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let line = 1;
    for (let at = 0; at < offset;) {
      const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, offset - at), at);
      if (bytesRead === 0) break;
      for (let i = buf.indexOf(0x0a, 0); i !== -1 && i < bytesRead; i = buf.indexOf(0x0a, i + 1)) line++;
      at += bytesRead;
    }
    return line;
  } finally {
    await handle.close();
  }
}
