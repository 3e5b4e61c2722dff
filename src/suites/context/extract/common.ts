import { compareCodeUnits } from '../../../io/files.js';
import { mergeIntervals, type Interval } from '../../../metrics/intervals.js';
import type { Source, SpanJson, TrajData } from '../contract.js';

/** A trajectory turned into the evaluator's prediction form, with where it was read from. */
export interface Extracted {
  instance_id: string;
  traj_data: TrajData;
  model_patch: string;
  source: Source;
}

export type SpansByFile = Record<string, SpanJson[]>;

export function lineSpan(start: number, end: number): SpanJson {
  return { type: 'line', start, end };
}

/** Adds a span under a file, keeping the order files first appear in. */
export function addSpan(spans: SpansByFile, file: string, start: number, end: number): void {
  (spans[file] ??= []).push(lineSpan(start, end));
}

/** Merged line spans (overlapping or adjacent ranges joined). */
export function mergedSpans(ranges: readonly Interval[]): SpanJson[] {
  return mergeIntervals(ranges).map(([s, e]) => lineSpan(s, e));
}

/** Distinct strings in code-unit order (Python's `sorted(set(...))` for the paths in practice). */
export function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareCodeUnits);
}

/** Python's `str.splitlines()`: every line boundary it knows, no empty last line for a final newline. */
export function splitLines(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- the separators Python splits at include \x1c-\x1e
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python's `str.strip(chars)` for a set of characters. */
export function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** Python's `str.lstrip(chars)`. */
export function lstripChars(s: string, chars: string): string {
  let a = 0;
  while (a < s.length && chars.includes(s[a]!)) a++;
  return s.slice(a);
}

/** Python's `int()` of a JSON value as trajectories hold line numbers: an integer, or a numeric string. */
export function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Number(value.trim());
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
