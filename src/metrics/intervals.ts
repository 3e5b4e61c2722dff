/**
 * Sets of integers kept as inclusive intervals `[start, end]`: byte offsets or line numbers. Overlapping
 * and adjacent intervals merge (`[1, 3]` and `[4, 6]` are `[1, 6]`), as in the ContextBench evaluator, so
 * sizes count each integer once.
 */
export type Interval = readonly [start: number, end: number];

/** Intervals of several files, keyed by repository-relative path. */
export type IntervalsByFile = ReadonlyMap<string, readonly Interval[]>;

/** Sorted, disjoint and non-adjacent. Empty intervals (`end < start`) are dropped. */
export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals.filter(([s, e]) => e >= s).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** How many integers the intervals cover. */
export function intervalsSize(intervals: readonly Interval[]): number {
  let n = 0;
  for (const [s, e] of mergeIntervals(intervals)) n += e - s + 1;
  return n;
}

/** The integers covered by both. */
export function intersectIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const x = mergeIntervals(a);
  const y = mergeIntervals(b);
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const [xs, xe] = x[i]!;
    const [ys, ye] = y[j]!;
    const s = Math.max(xs, ys);
    const e = Math.min(xe, ye);
    if (s <= e) out.push([s, e]);
    if (xe < ye) i++;
    else if (ye < xe) j++;
    else {
      i++;
      j++;
    }
  }
  return out;
}

/** Total size over every file. */
export function totalSize(byFile: IntervalsByFile): number {
  let n = 0;
  for (const intervals of byFile.values()) n += intervalsSize(intervals);
  return n;
}

/** Total size of the per-file intersections. */
export function intersectionSize(a: IntervalsByFile, b: IntervalsByFile): number {
  let n = 0;
  for (const [file, intervals] of a) {
    const other = b.get(file);
    if (other) n += intervalsSize(intersectIntervals(intervals, other));
  }
  return n;
}

/** Per-file union, merged. */
export function unionByFile(a: IntervalsByFile, b: IntervalsByFile): Map<string, Interval[]> {
  const out = new Map<string, Interval[]>();
  for (const [file, intervals] of a) out.set(file, mergeIntervals(intervals));
  for (const [file, intervals] of b) out.set(file, mergeIntervals([...(out.get(file) ?? []), ...intervals]));
  return out;
}

/** Adds an interval to a file's list (unmerged; merge when done). */
export function addInterval(byFile: Map<string, Interval[]>, file: string, interval: Interval): void {
  const list = byFile.get(file);
  if (list) list.push(interval);
  else byFile.set(file, [interval]);
}

/** Merges every file's list in place and returns the map. */
export function mergeByFile(byFile: Map<string, Interval[]>): Map<string, Interval[]> {
  for (const [file, intervals] of byFile) byFile.set(file, mergeIntervals(intervals));
  return byFile;
}
