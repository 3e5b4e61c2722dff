import { z } from 'zod';
import { pairedDeltaSchema } from './paired-delta.js';

/**
 * What the rest of groundgate knows about a metric. Gates, renderers and docs read these instead of
 * hard-coding names. A name containing `{k}` is a family (`recall@{k}` matches `recall@5`, `recall@10`).
 */
export interface MetricSpec {
  name: string;
  direction: 'higher' | 'lower';
  unit: 'ratio' | 'count' | 'ms' | 's' | 'tokens' | 'usd';
  description: string;
  /**
   * Reported only where the suite computes it or a gate names it (a latency suite's token metrics, when its
   * traces count tokens): absent from the inputs, it would be a row of n/a in every report.
   */
  optional?: true;
  /**
   * The metric is `aggregate` over each item's value `value` (SuiteResult.items values): a max_increase gate
   * then compares it with the baseline over the items both reports have a value for (percentile: at the
   * metric's k).
   */
  perItem?: { value: string; aggregate: 'mean' | 'sum' | 'percentile' };
}

/** A computed metric. `value: null` means not computable; `reason` says why. */
export const metricValueSchema = z.strictObject({
  value: z.number().nullable(),
  reason: z.string().optional(),
  numerator: z.number().optional(),
  denominator: z.number().optional(),
  /** With --baseline: the base report's value and value − baseline (null when either is not computable). */
  baseline: z.number().nullable().optional(),
  delta: z.number().nullable().optional(),
  /**
   * 95% interval: Wilson's for proportions (a numerator of a denominator of items), the t-interval for a mean
   * of per-item values (ranking: over `n` queries).
   */
  ci95: z.tuple([z.number(), z.number()]).optional(),
  /** For a mean of per-item values: how many items it is over. */
  n: z.int().optional(),
  /** With a baseline whose items carry per-item values: the metric compared item by item. */
  paired: pairedDeltaSchema.optional(),
});
export type MetricValue = z.infer<typeof metricValueSchema>;

/** A metric as resolved for one suite: the spec plus, for a family, its cutoff. */
export interface ResolvedMetric {
  name: string;
  spec: MetricSpec;
  k?: number;
}

export function isFamily(spec: MetricSpec): boolean {
  return spec.name.includes('{k}');
}

/** Matches a metric name written in gates.yaml against the specs; undefined when none fits. */
export function resolveMetric(name: string, specs: readonly MetricSpec[]): ResolvedMetric | undefined {
  for (const spec of specs) {
    if (!isFamily(spec)) {
      if (spec.name === name) return { name, spec };
      continue;
    }
    const [before, after] = spec.name.split('{k}') as [string, string];
    if (!name.startsWith(before) || !name.endsWith(after)) continue;
    const digits = name.slice(before.length, name.length - after.length);
    if (/^[1-9]\d{0,5}$/.test(digits)) return { name, spec, k: Number(digits) };
  }
  return undefined;
}

/** Names of a suite's metrics with families instantiated at `k`, for listings and suggestions. */
export function metricNames(specs: readonly MetricSpec[], k: number): string[] {
  return specs.map((s) => s.name.replace('{k}', String(k)));
}

/** A share with its counts, or not computable when the denominator is empty. */
export function proportion(numerator: number, denominator: number, emptyReason: string): MetricValue {
  if (denominator === 0) return { value: null, reason: emptyReason, numerator, denominator };
  return { value: numerator / denominator, numerator, denominator };
}

export function count(value: number): MetricValue {
  return { value };
}

export function notComputable(reason: string): MetricValue {
  return { value: null, reason };
}
