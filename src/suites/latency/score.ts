import { compareCodeUnits } from '../../io/files.js';
import { dominators } from '../../metrics/pareto.js';
import { percentile, sortedSamples } from '../../metrics/percentile.js';
import { notComputable, type MetricValue, type ResolvedMetric } from '../../metrics/spec.js';
import { STAGES, type LatencySample, type Stage } from './contract.js';

/** P99 / P50: how much slower the worst requests are than the typical one (smaller is better). */
export function tailAmplification(sorted: ArrayLike<number>): MetricValue {
  const p50 = percentile(sorted, 50);
  if (p50 === undefined) return notComputable('no latency samples');
  if (p50 === 0) return notComputable('P50 is 0 ms');
  return { value: percentile(sorted, 99)! / p50 };
}

/**
 * The requested latency metrics over `samples`: `p{k}_ms` (end to end), `tail_amplification`, and
 * `<stage>.p{k}_ms`. `hasStages` says whether the input can time stages at all (a CSV and spans can, JSON Lines
 * traces cannot).
 */
export function latencyMetrics(
  samples: readonly LatencySample[],
  requested: readonly ResolvedMetric[],
  hasStages: boolean,
): Record<string, MetricValue> {
  const e2e = sortedSamples(samples.map((s) => s.e2eMs));
  const stages = new Map<Stage, Float64Array>();
  const stageTimes = (stage: Stage) => {
    let sorted = stages.get(stage);
    if (!sorted) {
      sorted = sortedSamples(
        samples.flatMap((s) => {
          const ms = s.stageMs[stage];
          return ms === undefined ? [] : [ms];
        }),
      );
      stages.set(stage, sorted);
    }
    return sorted;
  };
  const out: Record<string, MetricValue> = {};
  for (const m of requested) {
    if (m.spec.name === 'tail_amplification') {
      out[m.name] = tailAmplification(e2e);
      continue;
    }
    const stage = STAGES.find((s) => m.spec.name === `${s}.p{k}_ms`);
    if (stage === undefined) {
      out[m.name] = valueOf(percentile(e2e, m.k!), 'no latency samples');
    } else if (!hasStages) {
      out[m.name] = notComputable(
        'JSON Lines traces carry only latency_ms; per-stage times come from a csv: input, or from spans (format: openinference)',
      );
    } else {
      out[m.name] = valueOf(percentile(stageTimes(stage), m.k!), `no sample has ${stage}_ms`);
    }
  }
  return out;
}

function valueOf(value: number | undefined, emptyReason: string): MetricValue {
  return value === undefined ? notComputable(emptyReason) : { value };
}

/** Accuracy of one configuration's traces against the gold set. */
export interface Accuracy {
  precision: number | null;
  chr: number | null;
  coverage: number | null;
  /** Where its failures come from (report/triage.ts), as one line: "citation 5, retrieval 2; …". */
  triage: string;
}

/** One configuration on the latency-vs-accuracy chart. */
export interface ConfigurationPoint {
  name: string;
  requests: number;
  p50?: number;
  p95?: number;
  p99?: number;
  tailAmplification: number | null;
  accuracy?: Accuracy;
  /** On the Pareto set of (P95, precision); null when the point has no P95 or no precision to compare. */
  pareto: boolean | null;
  dominatedBy?: string;
}

/**
 * One point per configuration, fastest P95 first (then by name), with the Pareto set of lower P95 and
 * higher precision: a configuration is dominated when another is no slower and no less precise, and
 * strictly better on one of the two.
 */
export function configurationPoints(
  samples: readonly LatencySample[],
  configurations: readonly string[],
  accuracy?: ReadonlyMap<string, Accuracy>,
): ConfigurationPoint[] {
  const times = new Map<string, number[]>(configurations.map((c) => [c, []]));
  for (const s of samples) times.get(s.configuration)!.push(s.e2eMs);
  const points: ConfigurationPoint[] = configurations.map((name) => {
    const sorted = sortedSamples(times.get(name)!);
    return {
      name,
      requests: sorted.length,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      tailAmplification: tailAmplification(sorted).value,
      accuracy: accuracy?.get(name),
      pareto: null,
    };
  });
  points.sort((a, b) => (a.p95 ?? Infinity) - (b.p95 ?? Infinity) || compareCodeUnits(a.name, b.name));
  const ranked = points.filter((p) => p.p95 !== undefined && (p.accuracy?.precision ?? null) !== null);
  const by = dominators(ranked.map((p) => ({ cost: p.p95!, gain: p.accuracy!.precision! })));
  ranked.forEach((p, i) => {
    p.pareto = by[i] === -1;
    if (by[i] !== -1) p.dominatedBy = ranked[by[i]!]!.name;
  });
  return points;
}

/** The requests slower than the P95 of `samples`: the tail a `p95_ms` gate is about, slowest first. */
export function slowRequests(samples: readonly LatencySample[]): LatencySample[] {
  const p95 = percentile(sortedSamples(samples.map((s) => s.e2eMs)), 95);
  if (p95 === undefined) return [];
  return samples
    .filter((s) => s.e2eMs > p95)
    .sort(
      (a, b) =>
        b.e2eMs - a.e2eMs || compareCodeUnits(a.source.file, b.source.file) || a.source.line - b.source.line,
    );
}

/** The stage that took longest in a request (the first in pipeline order on a tie); undefined without stage times. */
export function slowestStage(sample: LatencySample): Stage | undefined {
  let slowest: Stage | undefined;
  for (const stage of STAGES) {
    const ms = sample.stageMs[stage];
    if (ms !== undefined && (slowest === undefined || ms > sample.stageMs[slowest]!)) slowest = stage;
  }
  return slowest;
}
