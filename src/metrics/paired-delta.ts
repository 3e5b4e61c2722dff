import { z } from 'zod';
import { pairedRandomization } from './paired-randomization.js';
import { pairedT } from './paired-t.js';

/** A metric compared item by item with a baseline: what report.json holds beside the metric's value. */
export const pairedDeltaSchema = z.strictObject({
  /** Items with a value in both reports (and, for kinds with gold, the same gold). */
  items: z.int(),
  /** Mean of now − baseline over them. */
  mean_delta: z.number(),
  /** The paired t-interval of mean_delta. */
  ci95: z.tuple([z.number(), z.number()]),
  /** Two-sided paired t-test (scipy.stats.ttest_rel, R t.test(paired = TRUE)). */
  t_p: z.number(),
  /** Two-sided paired randomization (sign-flip) test. */
  randomization_p: z.number(),
  /**
   * exact: all 2^m sign flips of the m nonzero differences (m ≤ 20); monte_carlo: seeded random ones, 100,000
   * up to 2,000 differences and fewer past them (see permutationsFor).
   */
  randomization: z.enum(['exact', 'monte_carlo']),
  /** The sign flips counted: 2^m when exact. */
  permutations: z.int(),
});
export type PairedDelta = z.infer<typeof pairedDeltaSchema>;

/** now − before item by item; undefined for fewer than 2 items, which have no spread to test against. */
export function pairedDelta(before: ArrayLike<number>, now: ArrayLike<number>): PairedDelta | undefined {
  const differences = Float64Array.from({ length: now.length }, (_, i) => now[i]! - before[i]!);
  const t = pairedT(differences);
  if (!t) return undefined;
  const r = pairedRandomization(differences);
  return {
    items: t.n,
    mean_delta: t.mean,
    ci95: t.ci95,
    t_p: t.p,
    randomization_p: r.p,
    randomization: r.method,
    permutations: r.permutations,
  };
}
