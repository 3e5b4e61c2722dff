import { compare, type Comparison, type GateRule } from '../config/gate.js';
import type { MetricSpec, MetricValue } from '../metrics/spec.js';

export interface GateOutcome {
  metric: string;
  op: Comparison | 'max_drop';
  threshold: number;
  value: number | null;
  passed: boolean;
  /** Not evaluated (max_drop without a baseline); counts as passed. */
  skipped?: boolean;
  baseline?: number | null;
  reason?: string;
  confidence?: 'lower_bound' | 'upper_bound';
  compared?: number | null;
}

/**
 * Checks one metric against its rule. A non-computable value fails unless `allow_missing`; `max_drop`
 * measures worsening in the metric's own direction (a fall for higher-is-better, a rise otherwise).
 */
export function evaluateGate(
  metric: string,
  rule: GateRule,
  value: MetricValue | undefined,
  spec: MetricSpec,
  baseline?: MetricValue,
  noBaselineReason = 'no baseline report given',
): GateOutcome[] {
  const v = value?.value ?? null;
  const missingReason = value?.reason ?? 'not reported';
  const outcomes: GateOutcome[] = [];
  // With a confidence option the check is on a bound of the interval, so small samples cannot pass (or
  // fail) on noise; a metric without an interval is not computable for such a gate.
  const bound = rule.confidence ? value?.ci95?.[rule.confidence === 'lower_bound' ? 0 : 1] : undefined;
  for (const check of rule.checks) {
    if (rule.confidence) {
      const why =
        v === null ? `not computable: ${missingReason}` : `${rule.confidence} needs a proportion with counts`;
      outcomes.push(
        bound === undefined
          ? {
              metric,
              ...check,
              value: v,
              passed: rule.allowMissing,
              reason: why,
              confidence: rule.confidence,
              compared: null,
            }
          : {
              metric,
              ...check,
              value: v,
              passed: compare(bound, check),
              confidence: rule.confidence,
              compared: bound,
            },
      );
    } else if (v === null) {
      outcomes.push({
        metric,
        ...check,
        value: null,
        passed: rule.allowMissing,
        reason: `not computable: ${missingReason}${rule.allowMissing ? ' (allow_missing)' : ''}`,
      });
    } else {
      outcomes.push({ metric, ...check, value: v, passed: compare(v, check) });
    }
  }
  if (rule.maxDrop !== undefined) {
    const base = baseline?.value ?? null;
    const common = { metric, op: 'max_drop' as const, threshold: rule.maxDrop, value: v };
    if (baseline === undefined) {
      outcomes.push({ ...common, passed: true, skipped: true, reason: noBaselineReason });
    } else if (base === null || v === null) {
      const which =
        v === null ? `current value not computable: ${missingReason}` : 'baseline value not computable';
      outcomes.push({ ...common, baseline: base, passed: rule.allowMissing, reason: which });
    } else {
      const drop = spec.direction === 'higher' ? base - v : v - base;
      // Subtraction of two decimals can land a hair above an exact threshold: allow 1e-12 of float noise.
      outcomes.push({ ...common, baseline: base, passed: drop <= rule.maxDrop + 1e-12 });
    }
  }
  return outcomes;
}
