/**
 * The four numbers a run summary gives per metric: mean, sample standard deviation (n − 1 in the
 * denominator, as Python's statistics.stdev), median (the mean of the two middle values for an even n) and n.
 * The standard deviation of a single value is undefined (null), not 0: one task says nothing about spread.
 *
 * Why not d3-array or simple-statistics (neither is a dependency): reports are compared byte for byte,
 * and their arithmetic rounds differently in the last bit. d3-array's deviation is Welford's one-pass
 * update (mean and squares together), which for 0.1, 0.2, 0.3, 1000.7, 5.55 gives 446.84506487148315
 * where this two-pass sum gives 446.8450648714832; its median interpolates as x0 + (x1 − x0)·0.5.
 */
export interface StatSummary {
  mean: number;
  stdev: number | null;
  median: number;
  n: number;
}

/** Undefined for no values: there is no mean of nothing. Values are summed in the order given. */
export function summarize(values: readonly number[]): StatSummary | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  return { mean, stdev: n > 1 ? Math.sqrt(squares / (n - 1)) : null, median: median(values)!, n };
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
