import { spearman } from '../../metrics/spearman.js';
import { taskValue, type TaskRecord } from './aggregate.js';
import { OUTCOMES, type OutcomeName } from './outcomes.js';

/** Below this many tasks a rank correlation says nothing (the seed's n ≥ 5). */
const MIN_CORRELATION_N = 5;

export type Correlation = { rho: number; n: number } | { rho: null; n: number; reason: string };

/**
 * Spearman's ρ between a retrieval metric and an outcome over the tasks that have both: association only,
 * never a claim that retrieval caused the outcome.
 */
export function correlate(records: readonly TaskRecord[], metric: string, outcome: OutcomeName): Correlation {
  const x: number[] = [];
  const y: number[] = [];
  for (const r of records) {
    const a = taskValue(r, metric).value;
    const b = r.outcome?.[outcome] ?? null;
    if (a === null || b === null) continue;
    x.push(a);
    y.push(b);
  }
  if (x.length < MIN_CORRELATION_N) {
    return {
      rho: null,
      n: x.length,
      reason: `${x.length} tasks with both values (needs ≥ ${MIN_CORRELATION_N})`,
    };
  }
  const rho = spearman(x, y);
  return rho === undefined
    ? { rho: null, n: x.length, reason: `no variation in ${new Set(x).size === 1 ? metric : outcome}` }
    : { rho, n: x.length };
}

/** Every metric against every outcome. */
export function correlationTable(
  records: readonly TaskRecord[],
  metrics: readonly string[],
): Record<string, Record<OutcomeName, Correlation>> {
  return Object.fromEntries(
    metrics.map((m) => [
      m,
      Object.fromEntries(OUTCOMES.map((o) => [o, correlate(records, m, o)])) as Record<
        OutcomeName,
        Correlation
      >,
    ]),
  );
}
