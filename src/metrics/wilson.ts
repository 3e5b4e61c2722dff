/** z for a two-sided 95% interval: the 0.975 quantile of the standard normal. */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval for k successes in n trials. Unlike the normal approximation it stays inside
 * [0, 1] and is honest for small n and for 0/n and n/n, which small gold sets hit all the time.
 */
export function wilson(k: number, n: number, z = Z95): [number, number] {
  if (n <= 0) throw new RangeError('wilson: n must be positive');
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At the ends the exact bound is 0 or 1; floating point would leave a 1e-17 residue.
  return [k === 0 ? 0 : Math.max(0, center - half), k === n ? 1 : Math.min(1, center + half)];
}
