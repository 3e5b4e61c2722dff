/**
 * 1-based ranks, ascending; tied values share the mean of the ranks they span (the "fractional" ranking
 * Spearman's coefficient needs for ties to be exact: 10, 20, 20, 30 rank 1, 2.5, 2.5, 4).
 */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && values[order[end]!] === values[order[start]!]) end++;
    const rank = (start + 1 + end) / 2; // mean of the ranks start+1 .. end
    for (let i = start; i < end; i++) ranks[order[i]!] = rank;
    start = end;
  }
  return ranks;
}

/** Pearson's r; undefined when the lengths differ, n < 2, or either variable does not vary (r is 0/0). */
export function pearson(x: readonly number[], y: readonly number[]): number | undefined {
  const n = x.length;
  if (n !== y.length || n < 2) return undefined;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += x[i]!;
    sy += y[i]!;
  }
  const mx = sx / n;
  const my = sy / n;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    cov += dx * dy;
    vx += dx * dx;
    vy += dy * dy;
  }
  if (vx === 0 || vy === 0) return undefined;
  return cov / Math.sqrt(vx * vy);
}

/**
 * Spearman's ρ with exact tie handling: Pearson's r of the average ranks. (The shortcut 1 − 6Σd²/(n(n²−1))
 * is only exact without ties.) Undefined when either variable is constant.
 */
export function spearman(x: readonly number[], y: readonly number[]): number | undefined {
  if (x.length !== y.length) return undefined;
  return pearson(averageRanks(x), averageRanks(y));
}
