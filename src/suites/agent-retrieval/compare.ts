import { compareCodeUnits } from '../../io/files.js';
import { median } from '../../metrics/summary-stats.js';
import { taskValue, type TaskRecord } from './aggregate.js';
import type { OutcomeName } from './outcomes.js';

/** The seed's minimum for aggregate statistics over matched tasks. */
export const MIN_MATCHED = 3;

export interface Pair {
  task: string;
  baseline: TaskRecord;
  candidate: TaskRecord;
}

export interface Matching {
  pairs: Pair[];
  /** Tasks left out of the comparison, and why (they still count in their config's aggregates). */
  excluded: { task: string; reason: string }[];
}

/**
 * Tasks run in both configs that the seed's comparability rules allow to be paired: each config has one
 * document for the task, both are scored (ground truth and a trace), the same model and harness version where both are known,
 * and a result.json with a valid reward.
 */
export function matchTasks(records: readonly TaskRecord[], baseline: string, candidate: string): Matching {
  const byConfig = (config: string) => {
    const map = new Map<string, TaskRecord[]>();
    for (const r of records) {
      if (r.doc.provenance.config_name !== config) continue;
      const list = map.get(r.doc.provenance.task_name) ?? [];
      list.push(r);
      map.set(r.doc.provenance.task_name, list);
    }
    return map;
  };
  const base = byConfig(baseline);
  const cand = byConfig(candidate);
  const tasks = [...new Set([...base.keys(), ...cand.keys()])].sort(compareCodeUnits);
  const pairs: Pair[] = [];
  const excluded: Matching['excluded'] = [];
  for (const task of tasks) {
    const b = base.get(task) ?? [];
    const c = cand.get(task) ?? [];
    const reason = unpairable(b, c, baseline, candidate);
    if (reason) excluded.push({ task, reason });
    else pairs.push({ task, baseline: b[0]!, candidate: c[0]! });
  }
  return { pairs, excluded };
}

function unpairable(
  b: TaskRecord[],
  c: TaskRecord[],
  baseline: string,
  candidate: string,
): string | undefined {
  if (b.length === 0) return `only in ${candidate}`;
  if (c.length === 0) return `only in ${baseline}`;
  if (b.length > 1 || c.length > 1) return 'several documents for the task in one config';
  const [x, y] = [b[0]!, c[0]!];
  for (const [r, config] of [
    [x, baseline],
    [y, candidate],
  ] as const) {
    if (r.score.fileLevel.reason !== undefined) return `not scored in ${config}: ${r.score.fileLevel.reason}`;
  }
  const [mx, my] = [x.outcome?.model ?? x.doc.provenance.model, y.outcome?.model ?? y.doc.provenance.model];
  if (mx && my && mx !== my) return `different models (${mx}, ${my})`;
  const [hx, hy] = [x.outcome?.harness, y.outcome?.harness];
  if (hx && hy && hx !== hy) return `different harness versions (${hx}, ${hy})`;
  if (x.outcome?.reward == null || y.outcome?.reward == null) return 'no result.json reward in both configs';
  return undefined;
}

export interface MetricComparison {
  n: number;
  baseline_mean: number;
  candidate_mean: number;
  baseline_median: number;
  candidate_median: number;
  /** Mean and median of candidate − baseline per task. */
  delta_mean: number;
  delta_median: number;
  /** Tasks where the candidate is better / worse / equal, by the metric's direction. */
  wins: number;
  losses: number;
  ties: number;
}

export type ComparisonResult = MetricComparison | { value: null; reason: string; n: number };

/** One metric over the pairs where both tasks have a value; not computable under MIN_MATCHED pairs. */
export function compareValues(
  pairs: readonly (readonly [number | null, number | null])[],
  direction: 'higher' | 'lower',
): ComparisonResult {
  const both = pairs.filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null);
  if (both.length < MIN_MATCHED) {
    return {
      value: null,
      reason: `${both.length} matched task${both.length === 1 ? '' : 's'} with a value (needs ≥ ${MIN_MATCHED})`,
      n: both.length,
    };
  }
  const b = both.map((p) => p[0]);
  const c = both.map((p) => p[1]);
  const d = both.map((p) => p[1] - p[0]);
  const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const better = (delta: number) => (direction === 'higher' ? delta > 0 : delta < 0);
  return {
    n: both.length,
    baseline_mean: avg(b),
    candidate_mean: avg(c),
    baseline_median: median(b)!,
    candidate_median: median(c)!,
    delta_mean: avg(d),
    delta_median: median(d)!,
    wins: d.filter((x) => better(x)).length,
    losses: d.filter((x) => x !== 0 && !better(x)).length,
    ties: d.filter((x) => x === 0).length,
  };
}

export function compareMetric(
  pairs: readonly Pair[],
  name: string,
  direction: 'higher' | 'lower',
): ComparisonResult {
  return compareValues(
    pairs.map((p) => [taskValue(p.baseline, name).value, taskValue(p.candidate, name).value] as const),
    direction,
  );
}

export function compareOutcome(pairs: readonly Pair[], name: OutcomeName): ComparisonResult {
  return compareValues(
    pairs.map((p) => [p.baseline.outcome?.[name] ?? null, p.candidate.outcome?.[name] ?? null] as const),
    name === 'reward' ? 'higher' : 'lower',
  );
}
