import type { HistoryEntry } from '../history/schema.js';
import type { Report } from './schema.js';
import { specOf } from './specs.js';

export interface Trend {
  /** "suite.metric" */
  key: string;
  unit?: string;
  points: { label: string; value: number }[];
  thresholds: { op: string; threshold: number }[];
}

/**
 * One trend per gated metric: the last `last` history entries, then the current run (labelled "now").
 * Entries where the metric was not computable (or not finite) are left out of that metric's line rather
 * than drawn as 0.
 */
export function buildTrends(history: readonly HistoryEntry[], report: Report, last = 20): Trend[] {
  const recent = history.slice(-Math.max(0, last - 1));
  const trends: Trend[] = [];
  const seen = new Set<string>();
  for (const g of report.gates) {
    const key = `${g.suite}.${g.metric}`;
    if (g.op === 'max_drop' || g.op === 'max_new_failures' || seen.has(key)) continue;
    seen.add(key);
    const points = recent.flatMap((e) => {
      const v = e.metrics[key];
      return typeof v === 'number' && Number.isFinite(v) ? [{ label: e.label, value: v }] : [];
    });
    const now = report.suites[g.suite]?.metrics[g.metric]?.value;
    if (typeof now === 'number' && Number.isFinite(now)) points.push({ label: 'now', value: now });
    // A value or threshold that is not finite (an overflowing sum) has no place on an axis: left out.
    const thresholds = report.gates.filter(
      (x) =>
        x.suite === g.suite &&
        x.metric === g.metric &&
        x.op !== 'max_drop' &&
        x.op !== 'max_increase' &&
        x.op !== 'max_new_failures' &&
        Number.isFinite(x.threshold),
    );
    trends.push({
      key,
      unit: specOf(report.suites[g.suite]!.kind, g.metric)?.unit,
      points,
      thresholds: thresholds.map((t) => ({ op: t.op, threshold: t.threshold })),
    });
  }
  return trends;
}

/** A y range that holds the points and the gate lines; ratios always show 0..1. */
export function yRange(t: Trend): [number, number] {
  if (t.unit === 'ratio') return [0, 1];
  const values = [...t.points.map((p) => p.value), ...t.thresholds.map((x) => x.threshold)];
  if (values.length === 0) return [0, 1];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const pad = (hi - lo) * 0.1;
  return [lo - pad < 0 && lo >= 0 ? 0 : lo - pad, hi + pad];
}
