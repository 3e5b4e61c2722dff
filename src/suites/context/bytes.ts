import type { Interval } from '../../metrics/intervals.js';

/** Byte offset where each line starts: 0, then one past every `\n`. */
export function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The bytes of lines `start..end` (1-based, inclusive) as an inclusive interval, the end line's newline
 * included, the end clamped to the end of the file. A start line below 1 counts as 1, an end before the
 * start as the start. A range that starts past the last byte covers nothing (undefined): the evaluator
 * drops it too, except that it gives the line after a final newline, and an empty file, one phantom byte.
 */
export function lineRangeToBytes(
  starts: readonly number[],
  size: number,
  startLine: number,
  endLine: number,
): Interval | undefined {
  const first = Math.max(1, startLine);
  const last = Math.max(first, endLine);
  const startByte = starts[first - 1];
  if (startByte === undefined || startByte >= size) return undefined;
  const next = starts[last];
  const endByte = next === undefined ? size - 1 : next - 1;
  return [startByte, Math.max(startByte, endByte)];
}
