import { percentile, sortedSamples } from './percentile.js';
import type { MetricSpec } from './spec.js';

/**
 * A metric declared as an aggregate of per-item values (MetricSpec.perItem) over `values`: their mean, their
 * sum (added in ascending order, so the same values in any order give the same bits), or percentile `k`.
 * Undefined for no values.
 */
export function aggregate(
  values: Iterable<number>,
  how: NonNullable<MetricSpec['perItem']>['aggregate'],
  k?: number,
): number | undefined {
  const sorted = sortedSamples(values);
  if (sorted.length === 0) return undefined;
  if (how === 'percentile') return percentile(sorted, k!);
  let sum = 0;
  for (const x of sorted) sum += x;
  return how === 'sum' ? sum : sum / sorted.length;
}
