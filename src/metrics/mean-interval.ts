import { studentTCritical } from './student-t.js';

/**
 * The t-interval of a mean of per-item values: mean ± t(0.975, n − 1) · sd / √n, sd with n − 1 in the
 * denominator. Undefined for fewer than 2 values; the mean itself when they do not vary.
 */
export function meanInterval(values: ArrayLike<number>): [number, number] | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i]! - mean) ** 2;
  const se = Math.sqrt(squares / (n - 1) / n);
  if (se === 0) return [mean, mean];
  const half = studentTCritical(0.05, n - 1) * se;
  return [mean - half, mean + half];
}
