import { compareCodeUnits } from '../../io/files.js';
import type { Table } from '../../report/schema.js';
import type { ItemVerdicts, Misread, Offender, ScoreContext, SuiteResult } from '../types.js';
import {
  USAGE_VALUES,
  isUsageMetric,
  usageFigures,
  usageMetrics,
  type UsageValues,
} from '../../cost/usage-metrics.js';
import { suitePricing } from '../../cost/pricing-file.js';
import { STAGES, type LatencySample } from './contract.js';
import {
  configurationPoints,
  latencyMetrics,
  slowestStage,
  slowRequests,
  type ConfigurationPoint,
} from './score.js';
import { knownConfiguration, type LatencyConfig } from './config.js';
import type { LatencyRead } from './read.js';
import type { ConfigurationAccuracy } from './accuracy.js';

/** The suite's result from its samples (and accuracy): one function for a run and a merge, so they agree. */
export function latencyResult(
  config: LatencyConfig,
  ctx: ScoreContext,
  read: LatencyRead & { accuracy?: ConfigurationAccuracy; hasStages: boolean },
): SuiteResult {
  const { samples, configurations, accuracy, hasStages } = read;
  const warnings: string[] = [];
  const counts: Record<string, number> = {};
  if (read.untimed) {
    counts.untimed_lines = read.untimed.untimed;
    if (read.untimed.untimed > 0) {
      warnings.push(
        `${read.untimed.untimed} of ${read.untimed.lines} trace lines have no latency_ms and are left out of the latency figures`,
      );
    }
  }

  const scope = knownConfiguration(config, ctx, configurations);
  const scoped = scope === undefined ? samples : samples.filter((s) => s.configuration === scope);
  const misread = unitMisread(samples, config);
  warnings.push(...misread.map((m) => m.warning));

  const pricing = suitePricing(config, ctx);
  const usage = usageFigures(
    scoped.map((s) => s.usage),
    ctx.metrics,
    config.gates,
    pricing,
    'request',
  );
  Object.assign(counts, usage.counts);
  warnings.push(...usage.warnings);
  const timing = ctx.metrics.filter((m) => !isUsageMetric(m.spec));

  const offenders: Offender[] = [];
  const tables: Table[] = [];
  if (configurations.length > 1) {
    if (accuracy) {
      counts.unknown_qids = accuracy.unknown.size;
      if (accuracy.unknown.size > 0) {
        const ids = [...accuracy.unknown].sort(compareCodeUnits);
        warnings.push(
          `${ids.length} trace qid${ids.length === 1 ? '' : 's'} not in gold not scored for accuracy: ${listed(ids)}`,
        );
      }
    }
    const points = configurationPoints(samples, configurations, accuracy?.byConfiguration);
    if (accuracy) counts.pareto = points.filter((p) => p.pareto).length;
    tables.push(pointsTable(points, accuracy !== undefined));
  }
  const slow = slowRequests(scoped);
  offenders.push(...slow.map((s) => slowOffender(s, configurations.length > 1, hasStages, ctx.relative)));

  return {
    resample: {
      items: scoped.length,
      metric(name, pick) {
        const m = ctx.metrics.find((x) => x.name === name);
        if (!m) return undefined;
        if (isUsageMetric(m.spec))
          return usageMetrics(
            Array.from(pick, (i) => usage.values[i]!),
            [m],
            pricing !== undefined,
            'request',
          )[name]?.value;
        return latencyMetrics(
          Array.from(pick, (i) => scoped[i]!),
          [m],
          hasStages,
        )[name]!.value;
      },
    },
    metrics: {
      ...latencyMetrics(scoped, timing, hasStages),
      ...usage.metrics,
    },
    counts: {
      samples: samples.length,
      requests: scoped.length,
      configurations: configurations.length,
      ...counts,
    },
    offenders,
    warnings,
    misread,
    tables,
    ...(usage.counted && { items: usageItems(scoped, usage.values, new Set(slow)) }),
  };
}

/**
 * One item per qid, for pairing with a baseline (see MetricSpec.perItem): each value the mean over the qid's
 * requests that have it (retries, and each configuration when they are pooled), and its verdict whether none
 * of them is above P95 (an offender).
 */
function usageItems(
  samples: readonly LatencySample[],
  values: readonly UsageValues[],
  slow: ReadonlySet<LatencySample>,
): ItemVerdicts {
  const at = new Map<string, number>();
  const ids: string[] = [];
  for (const s of samples) {
    if (at.has(s.qid)) continue;
    at.set(s.qid, ids.length);
    ids.push(s.qid);
  }
  const pass = new Uint8Array(ids.length).fill(1);
  const sums = Object.fromEntries(USAGE_VALUES.map((v) => [v, new Float64Array(ids.length)]));
  const ns = Object.fromEntries(USAGE_VALUES.map((v) => [v, new Uint32Array(ids.length)]));
  samples.forEach((s, i) => {
    const k = at.get(s.qid)!;
    if (slow.has(s)) pass[k] = 0;
    for (const v of USAGE_VALUES) {
      const x = values[i]![v];
      if (x === undefined) continue;
      sums[v]![k]! += x;
      ns[v]![k]!++;
    }
  });
  const columns: Record<string, Float64Array> = {};
  for (const v of USAGE_VALUES) {
    if (!ns[v]!.some((n) => n > 0)) continue;
    columns[v] = sums[v]!.map((sum, k) => (ns[v]![k]! ? sum / ns[v]![k]! : NaN));
  }
  return { ids, pass, values: columns };
}

/** Below this every end-to-end time is faster than any answer a model writes: seconds read as milliseconds? */
const FASTEST_MS = 50;

/** Above this every one is slower than a request anyone waits for: microseconds read as milliseconds? */
const SLOWEST_MS = 10 * 60 * 1000;

/** A warning when no request took a plausible time (all under 50 ms or over 10 minutes): a unit read wrongly. */
function unitMisread(samples: readonly { e2eMs: number }[], config: LatencyConfig): Misread[] {
  if (samples.length === 0 || samples.some((s) => s.e2eMs >= FASTEST_MS && s.e2eMs <= SLOWEST_MS)) return [];
  const mapped = config.fields?.traces?.['/latency_ms'];
  const reader =
    config.csv !== undefined
      ? "the csv's e2e_ms column (milliseconds)"
      : mapped !== undefined
        ? 'fields.traces./latency_ms (a scale: converts seconds, e.g. { from: /latency_s, scale: 1000 })'
        : 'latency_ms (milliseconds; map another unit with fields.traces./latency_ms: { from: …, scale: … })';
  return [
    {
      warning: `every one of the ${samples.length} latencies is under ${FASTEST_MS} ms or over 10 minutes: is the unit right (${reader})?`,
      metrics: ['p*_ms', '*.p*_ms', 'tail_amplification'],
    },
  ];
}

/** One row per configuration; with accuracy, the P95-vs-precision chart with the Pareto set highlighted. */
function pointsTable(points: readonly ConfigurationPoint[], withAccuracy: boolean): Table {
  const columns = ['configuration', 'requests', 'p50_ms', 'p95_ms', 'p99_ms', 'tail_amplification'];
  if (withAccuracy) columns.push('precision', 'chr', 'coverage', 'pareto', 'dominated_by', 'where it fails');
  const rows = points.map((p) => {
    // An empty knobs cell is a configuration too; an empty name would vanish in tables.
    const row: Table['rows'][number] = [
      p.name === '' ? '(no knobs)' : p.name,
      p.requests,
      p.p50 ?? null,
      p.p95 ?? null,
      p.p99 ?? null,
      p.tailAmplification,
    ];
    if (withAccuracy)
      row.push(
        p.accuracy?.precision ?? null,
        p.accuracy?.chr ?? null,
        p.accuracy?.coverage ?? null,
        p.pareto === true,
        p.dominatedBy ?? null,
        p.accuracy?.triage ?? null,
      );
    return row;
  });
  return {
    title: withAccuracy ? 'latency vs accuracy (one point per configuration)' : 'latency per configuration',
    columns,
    rows,
    ...(withAccuracy
      ? { chart: { x: 'p95_ms', y: 'precision', label: 'configuration', highlight: 'pareto' } }
      : {}),
  };
}

function slowOffender(
  s: LatencySample,
  showConfiguration: boolean,
  hasStages: boolean,
  relative: (file: string) => string,
): Offender {
  const fields: Offender['fields'] = {};
  if (showConfiguration) fields.configuration = s.configuration;
  fields.e2e_ms = s.e2eMs;
  if (hasStages) {
    for (const stage of STAGES) fields[`${stage}_ms`] = s.stageMs[stage] ?? null;
    fields.slowest_stage = slowestStage(s) ?? null;
  }
  fields.row = `${relative(s.source.file)}:${s.source.line}`;
  return { id: s.qid, labels: ['above_p95'], fields };
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
