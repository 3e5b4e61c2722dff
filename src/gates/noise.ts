import { docRef } from '../docs.js';
import type { MetricValue } from '../metrics/spec.js';
import type { GateOutcome } from './evaluate.js';

/**
 * Warnings for level gates whose threshold lies strictly inside the 95% interval of today's value: such a
 * gate can pass or fail on sampling noise alone, whatever the pipeline did. Gates that compare a bound
 * (confidence:) already allow for the interval, and relative gates (max_drop, max_new_failures) have none.
 */
export function noiseWarnings(
  outcomes: readonly GateOutcome[],
  values: Readonly<Record<string, MetricValue>>,
  /** Whether the metric may have a paired gate (its kind's items tell its failures). */
  pairable: boolean,
): string[] {
  const out: string[] = [];
  for (const g of outcomes) {
    if (g.op === 'max_drop' || g.op === 'max_increase' || g.op === 'max_new_failures' || g.confidence)
      continue;
    const value = values[g.metric];
    const ci = value?.ci95;
    // Proportions only: init sets a mean's gate from its bootstrap bound, which the report's t-interval of
    // the mean (ranking) may straddle by a hair.
    if (!ci || value.numerator === undefined || !(ci[0] < g.threshold && g.threshold < ci[1])) continue;
    const n = `${value.numerator}/${value.denominator}`;
    // A metric that has its paired gate already needs only the other half of the advice.
    const paired = outcomes.some((o) => o.metric === g.metric && o.op === 'max_new_failures');
    const advice = paired
      ? 'its paired gate (max_new_failures) judges the items; more gold items would make this one meaningful'
      : pairable
        ? 'add a paired gate (max_new_failures) or more gold items'
        : 'more gold items would make it meaningful';
    out.push(
      `gate ${g.metric} ${g.op} ${g.threshold} lies inside today's 95% interval [${ci[0].toFixed(4)}, ${ci[1].toFixed(4)}] of ${n}: it can pass or fail on noise alone; ${advice} (${docRef('docs/statistics.md')})`,
    );
  }
  return out;
}

/**
 * A metric gated by its paired gate alone (what init writes for a few items) is judged by nothing in a run
 * without a baseline (a first pull request, an expired artifact, a local run): said once, by name, since the
 * verdict line only counts it among the skipped.
 */
export function unjudgedWarning(outcomes: readonly GateOutcome[]): string | undefined {
  if (!outcomes.some((g) => g.op === 'max_new_failures') || !outcomes.every((g) => g.skipped))
    return undefined;
  const { metric, reason } = outcomes[0]!;
  return `${metric}: every gate on it was skipped (${reason ?? 'no baseline'}): nothing judged it in this run; a baseline report would, or a level gate beside it`;
}
