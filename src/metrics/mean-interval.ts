import { pairedT } from './paired-t.js';

/**
 * The t-interval of a mean of per-item values: mean ± t(0.975, n − 1) · sd / √n, sd with n − 1 in the
 * denominator, which is the paired t-test's interval read as differences from 0. Undefined for fewer than
 * 2 values; the mean itself when they do not vary.
 */
export function meanInterval(values: ArrayLike<number>): [number, number] | undefined {
  return pairedT(values)?.ci95;
}
