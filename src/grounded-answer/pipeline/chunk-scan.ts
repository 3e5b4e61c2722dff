import { InputError, type Where } from '../../errors.js';
import type { Segment } from '../../io/split.js';

// What every thread's scan of chunks has in common, and what the thread that gathers them makes of it:
// line numbers made absolute, and the input's first error.

/** A scan a thread sends back: where it met bytes that are not UTF-8 comes along (see utf8.ts). */
export interface ThreadScan {
  utf8?: [string, number][];
}

/**
 * Each chunk's first line number in its file, less one, from the lines every thread counted in the chunks
 * it read to their end: the lines of the same file in the chunks before it.
 */
export function lineBases(
  scans: readonly { chunkLines: readonly [number, number][] }[],
  chunks: readonly Segment[],
): number[] {
  const chunkLines = new Map(scans.flatMap((s) => s.chunkLines));
  const base: number[] = [];
  chunks.forEach((c, i) => {
    const previous = i > 0 && chunks[i - 1]!.fileIndex === c.fileIndex;
    base[i] = previous ? base[i - 1]! + (chunkLines.get(i - 1) ?? 0) : 0;
  });
  return base;
}

/** The error a thread stopped at, in chunk `chunk`. */
export interface ChunkError {
  chunk: number;
  where: Where | undefined;
  detail: string;
}

/**
 * Throws the input error of the earliest failed chunk, if any: every chunk before it was read whole, so it is
 * the input's first. With `lineBase`, its line counts from the chunk's first line and is made absolute.
 */
export function throwFirstError(
  scans: readonly { error?: ChunkError }[],
  lineBase?: readonly number[],
): void {
  const errors = scans.flatMap((s) => (s.error ? [s.error] : [])).sort((a, b) => a.chunk - b.chunk);
  if (errors.length === 0) return;
  const { chunk, where, detail } = errors[0]!;
  const base = lineBase?.[chunk] ?? 0;
  throw new InputError(where && { ...where, line: where.line && where.line + base }, detail);
}
