/**
 * The k-th percentile (0 ≤ k ≤ 100) of samples sorted ascending, by linear interpolation between the
 * closest ranks: h = (n − 1)·k/100, x[⌊h⌋] + (h − ⌊h⌋)·(x[⌈h⌉] − x[⌊h⌋]). This is Hyndman & Fan's type 7,
 * R's default, numpy's default ("linear") and Excel's PERCENTILE.INC, and what the seed's reference
 * harness computes. Undefined for no samples: there is no percentile of nothing.
 *
 * Why not d3-array's quantileSorted (the same type 7; not a dependency): it takes p = k/100 and computes
 * (n − 1)·p, which rounds where (n − 1)·k/100 does not: p95 of 4 samples has rank 2.8499999999999996
 * there, 2.85 here, and of 0.1, 1.6, 3.1, 4.6 gives 4.374999999999999 against 4.375. simple-statistics'
 * quantile is not type 7. Reports are compared byte for byte, so the percentiles stay these lines.
 */
export function percentile(sorted: ArrayLike<number>, k: number): number | undefined {
  if (!(k >= 0 && k <= 100)) throw new RangeError(`percentile: k must be in [0, 100], got ${k}`);
  const n = sorted.length;
  if (n === 0) return undefined;
  // (n − 1)·k is exact for integer k, so a rank that falls on a sample picks it without float noise.
  const h = ((n - 1) * k) / 100;
  const lo = Math.floor(h);
  const below = sorted[lo]!;
  const above = sorted[Math.ceil(h)]!;
  return below === above ? below : below + (h - lo) * (above - below);
}

/** Samples in the ascending numeric order `percentile` expects (a typed array sorts numerically). */
export function sortedSamples(values: Iterable<number>): Float64Array {
  return Float64Array.from(values).sort();
}
