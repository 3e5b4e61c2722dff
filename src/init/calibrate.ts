import { normalQuantile } from '../metrics/normal-quantile.js';
import { percentile } from '../metrics/percentile.js';
import { seeded } from '../metrics/seeded.js';
import type { MetricSpec, MetricValue } from '../metrics/spec.js';
import { wilson } from '../metrics/wilson.js';
import type { Resampler } from '../suites/types.js';

/**
 * A gate set from today's data so that today's pipeline passes and a change within noise does not fail:
 * the bound of the metric's interval on the side that matters (lower for higher-is-better), at the stated
 * confidence. Proportions use Wilson's interval; means and percentiles a bootstrap over the suite's items;
 * counts keep today's value (a count of violations has no interval worth allowing); a metric with neither
 * gets no gate (one at today's exact value would fail on noise).
 */
export interface Calibrated {
  metric: string;
  op: '>=' | '<=';
  threshold: number;
  /** Beside the gate in gates.yaml: the measured value, n, and the rule. */
  note: string;
  /** The paired gate beside it (max_new_failures: most), and the rule that set it (see detectable.ts). */
  paired?: { most: number; rule: string };
  /** The level bound is too far from the value to catch a regression: only the paired gate is written. */
  pairedOnly?: boolean;
  /** What the gold set lets the gates detect: printed by init and commented above the gate. */
  detectable?: string;
}

export const BOOTSTRAP_RESAMPLES = 2_000;
const MIN_ABOVE = 5;
const DECIMALS = 1e4;

/** z of a two-sided interval at `confidence` (0.95 → 1.96). */
export function zFor(confidence: number): number {
  return normalQuantile(1 - (1 - confidence) / 2);
}

export function calibrate(
  metric: string,
  value: MetricValue,
  spec: MetricSpec,
  confidence: number,
  resampler?: Resampler,
  /** For a percentile metric (p95_ms): its percentile. */
  percentileOf?: number,
): Calibrated | { skipped: string } {
  const v = value.value;
  if (v === null || !Number.isFinite(v))
    return { skipped: `${metric}: not computable today (${value.reason ?? 'no value'})` };
  const higher = spec.direction === 'higher';
  const op = higher ? '>=' : '<=';
  const pct = `${Number((confidence * 100).toFixed(2))}%`;
  const measured = `measured ${format(v)}`;
  const { numerator: k, denominator: n } = value;
  if (spec.unit === 'ratio' && k !== undefined && n !== undefined && n > 0) {
    const [lo, hi] = wilson(k, n, zFor(confidence));
    if (higher ? round(lo, true) <= 0 : round(hi, false) >= 1)
      return {
        skipped: `${metric}: ${measured} (${k}/${n}), and its bound is ${higher ? 0 : 1}: too few items for a gate`,
      };
    return {
      metric,
      op,
      threshold: round(higher ? lo : hi, higher),
      note: `${measured} (${k}/${n}); Wilson ${pct} ${higher ? 'lower' : 'upper'} bound`,
    };
  }
  if (spec.unit === 'count')
    return { metric, op, threshold: v, note: `${measured}; a count: today's value, no slack` };
  // A high percentile of few samples is their maximum, and so is every resample's: its bound has no
  // slack, and an unchanged pipeline fails it about every other run. Fewer than 5 samples above it: no gate.
  if (percentileOf !== undefined && resampler) {
    const above = resampler.items * (1 - percentileOf / 100);
    if (above < MIN_ABOVE)
      return {
        skipped: `${metric}: ${measured} (n ${resampler.items}), too few samples for a stable bound (${Number(above.toFixed(2))} above the ${percentileOf}th percentile; need ${MIN_ABOVE}, n ≥ ${Math.ceil(MIN_ABOVE / (1 - percentileOf / 100))})`,
      };
  }
  const boot = resampler && bootstrap(metric, resampler, confidence);
  if (boot) {
    const [lo, hi] = boot;
    // Every resample gave the same value (a few items that all agree): no spread to allow for.
    if (lo === hi)
      return {
        skipped: `${metric}: ${measured} (n ${resampler.items}), and every resample gives the same value: no spread to set a gate from`,
      };
    // A skewed bootstrap can put the bound past today's value: never gate today's pipeline out.
    const bound = higher ? Math.min(lo, v) : Math.max(hi, v);
    if (spec.unit === 'ratio' && (higher ? bound <= 0 : bound >= 1))
      return {
        skipped: `${metric}: ${measured} (n ${resampler.items}), and its bound is ${higher ? 0 : 1}: too few items for a gate`,
      };
    return {
      metric,
      op,
      threshold: round(bound, higher),
      note: `${measured} (n ${resampler.items}); bootstrap ${pct} ${higher ? 'lower' : 'upper'} bound, ${BOOTSTRAP_RESAMPLES} resamples`,
    };
  }
  // A gate at today's exact value would fail on noise: better none, and say so.
  return { skipped: `${metric}: ${measured}, and it has no interval to calibrate from; add a gate by hand` };
}

/**
 * The percentile interval of the metric over `BOOTSTRAP_RESAMPLES` resamples of the items (with
 * replacement, a fixed seed: the same data gives the same gates), or undefined when the suite cannot
 * recompute the metric.
 */
export function bootstrap(
  metric: string,
  resampler: Resampler,
  confidence: number,
): [number, number] | undefined {
  const n = resampler.items;
  if (n < 2) return undefined;
  const random = seeded(0x67617465);
  const pick = new Uint32Array(n);
  const stats: number[] = [];
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    for (let i = 0; i < n; i++) pick[i] = Math.floor(random() * n);
    const s = resampler.metric(metric, pick);
    if (s === undefined) return undefined;
    if (s !== null && Number.isFinite(s)) stats.push(s);
  }
  if (stats.length < BOOTSTRAP_RESAMPLES / 2) return undefined;
  const sorted = Float64Array.from(stats).sort();
  const tail = ((1 - confidence) / 2) * 100;
  return [percentile(sorted, tail)!, percentile(sorted, 100 - tail)!];
}

/** Four decimals, rounded away from failing today: down for a minimum, up for a maximum. */
export function round(x: number, down: boolean): number {
  const scaled = x * DECIMALS;
  // A bound that is a clean 4-decimal number must stay itself (0.75 * 1e4 = 7499.999…).
  const near = Math.round(scaled);
  const r = Math.abs(scaled - near) < 1e-6 ? near : down ? Math.floor(scaled) : Math.ceil(scaled);
  return r / DECIMALS;
}

function format(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(4);
}
