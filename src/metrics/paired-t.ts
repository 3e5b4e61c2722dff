import { studentTCritical, studentTTwoSided } from './student-t.js';

/** The paired t-test of after − before over items, as scipy.stats.ttest_rel and R's t.test(paired = TRUE). */
export interface PairedT {
  /** Paired items. */
  n: number;
  /** Mean of the differences after − before. */
  mean: number;
  /** t = mean / (sd / √n), sd with n − 1 in the denominator; null when every difference is the same. */
  t: number | null;
  df: number;
  /** Two-sided p: 1 when every difference is 0, 0 when they are all one nonzero value. */
  p: number;
  /** mean ± t(0.975, n − 1) · sd / √n; the mean itself when the differences do not vary. */
  ci95: [number, number];
}

/** Undefined for fewer than 2 items: one difference has no spread to test against. */
export function pairedT(differences: ArrayLike<number>): PairedT | undefined {
  const n = differences.length;
  if (n < 2) return undefined;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += differences[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (differences[i]! - mean) ** 2;
  const df = n - 1;
  const se = Math.sqrt(squares / df / n);
  // No spread: a constant difference is certain (p 0) unless it is no difference at all (p 1).
  if (se === 0) return { n, mean, t: null, df, p: mean === 0 ? 1 : 0, ci95: [mean, mean] };
  const t = mean / se;
  const half = studentTCritical(0.05, df) * se;
  return { n, mean, t, df, p: studentTTwoSided(t, df), ci95: [mean - half, mean + half] };
}
