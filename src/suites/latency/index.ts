import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import { resolveMetric, type MetricSpec } from '../../metrics/spec.js';
import {
  answerSettings,
  checkInputSettings,
  checkMarkers,
  fieldsSchema,
  inputSettings,
  scuRules,
} from '../../grounded-answer/config.js';
import { judgeRuns, loadGold } from '../../grounded-answer/load.js';
import { goldShape, traceShape } from '../../grounded-answer/contract.js';
import { traceInput } from '../../grounded-answer/source.js';
import { compileRules } from '../../grounded-answer/scu.js';
import { aggregate, answerableOf } from '../../grounded-answer/score.js';
import { triage } from '../../grounded-answer/triage.js';
import { stageLine } from '../../report/triage.js';
import type { Table } from '../../report/schema.js';
import type { Misread, Offender, ScoreContext, SuiteKind, SuiteResult } from '../types.js';
import { latencySplit } from './split.js';
import { STAGES, type LatencySample } from './contract.js';
import { loadCsv, loadTraceLatencies } from './load.js';
import {
  configurationPoints,
  latencyMetrics,
  slowestStage,
  slowRequests,
  type Accuracy,
  type ConfigurationPoint,
} from './score.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'p{k}_ms',
    direction: 'lower',
    unit: 'ms',
    description: 'Percentile k of end-to-end latency (linear interpolation between closest ranks)',
  },
  {
    name: 'tail_amplification',
    direction: 'lower',
    unit: 'ratio',
    description: 'P99 / P50 of end-to-end latency: how much slower the tail is than the typical request',
  },
  ...STAGES.map((stage): MetricSpec => ({
    name: `${stage}.p{k}_ms`,
    direction: 'lower',
    unit: 'ms',
    description: `Percentile k of the ${stage} stage's time (csv input)`,
  })),
];

const percentileK = z
  .int()
  .min(1, 'expected a percentile from 1 to 100')
  .max(100, 'expected a percentile from 1 to 100');

export const configSchema = z
  .strictObject({
    kind: z.literal('latency'),
    csv: z.string().min(1).optional(),
    traces: z.string().min(1).optional(),
    /** With traces from several configurations: scores each one for the latency-vs-accuracy points. */
    gold: z.string().min(1).optional(),
    /** The configuration (knobs value or trace file) the metrics and gates describe; default all pooled. */
    configuration: z.string().optional(),
    percentiles: z.array(percentileK).min(1).default([50, 90, 95, 99]),
    refusal_token: answerSettings.refusal_token,
    refusal: answerSettings.refusal,
    citation_markers: answerSettings.citation_markers,
    scu: answerSettings.scu,
    format: inputSettings.format,
    openinference: inputSettings.openinference,
    fields: fieldsSchema({ traces: traceShape, gold: goldShape }),
    gates: gatesSchema.default({}),
  })
  .superRefine((config, ctx) => {
    checkInputSettings(config, ctx);
    checkMarkers(config, ctx);
    if ((config.csv === undefined) === (config.traces === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected exactly one of csv (a latency CSV) or traces (grounded-qa traces with latency_ms)',
      });
    }
    if (config.gold !== undefined && config.traces === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['gold'],
        message: 'gold scores traces, and a csv has no answers to score; expected traces with gold',
      });
    }
    for (const name of Object.keys(config.gates)) {
      const k = resolveMetric(name, metrics)?.k;
      if (k !== undefined && k > 100) {
        ctx.addIssue({
          code: 'custom',
          path: ['gates', name],
          message: `percentile ${k} is above 100; expected p1_ms to p100_ms`,
        });
      }
    }
  });
export type LatencyConfig = z.infer<typeof configSchema>;

export const latency: SuiteKind<LatencyConfig> = {
  kind: 'latency',
  description: 'Latency: P50/P90/P95/P99 end to end and per stage, tail amplification, latency vs accuracy',
  configSchema,
  inputKeys: ['csv', 'traces', 'gold'],
  metrics,
  offenderColumns: ['configuration', 'e2e_ms', 'slowest_stage'],
  defaultCutoffs: (config) => config.percentiles,

  async score(config, ctx) {
    const { csv, traces, gold } = ctx.inputs;
    const read = await readLatencies(config, ctx);
    // Before accuracy is scored: a configuration that is not in the input is named before any gold error.
    knownConfiguration(config, ctx, read.configurations);
    const accuracy =
      traces && gold && read.configurations.length > 1
        ? await scoreConfigurations(traces, gold, config, ctx.relative)
        : undefined;
    return latencyResult(config, ctx, { ...read, accuracy, hasStages: csv !== undefined });
  },
  split: latencySplit,
};

/** What a latency suite read: every sample, in input order, its configurations, and lines without a time. */
export interface LatencyRead {
  samples: LatencySample[];
  configurations: string[];
  /** Trace lines read, and those without latency_ms (traces only). */
  untimed?: { untimed: number; lines: number };
}

/** The samples of a suite's csv or traces (whichever it has), after checking it has one of them. */
export async function readLatencies(config: LatencyConfig, ctx: ScoreContext): Promise<LatencyRead> {
  const { csv, traces, gold } = ctx.inputs;
  const inputs = csv ?? traces ?? [];
  if (csv && traces) {
    throw new InputError(
      { file: inputs[0]! },
      `suite "${ctx.suite}": both csv and traces are given (one by --input); expected one of them`,
    );
  }
  if (csv && gold) {
    throw new InputError(
      { file: gold[0]! },
      `suite "${ctx.suite}": gold is given (by --input) with csv, which has no answers to score; expected traces with gold`,
    );
  }
  if (csv) {
    const samples = await loadCsv(csv);
    return {
      samples,
      configurations: [...new Set(samples.map((s) => s.configuration))].sort(compareCodeUnits),
    };
  }
  const loaded = await loadTraceLatencies(
    inputs,
    ctx.relative,
    traceInput({ ...config, fields: config.fields?.traces }),
  );
  return {
    samples: loaded.samples,
    configurations: inputs.map(ctx.relative),
    untimed: { untimed: loaded.untimed, lines: loaded.lines },
  };
}

/** The configuration the gates apply to, checked to be one of the input's (undefined: all pooled). */
function knownConfiguration(
  config: LatencyConfig,
  ctx: ScoreContext,
  configurations: readonly string[],
): string | undefined {
  const scope = config.configuration;
  // A CSV without requests has no configurations: its metrics are not computable, whatever is named.
  if (scope !== undefined && configurations.length > 0 && !configurations.includes(scope)) {
    throw new InputError(
      { file: (ctx.inputs.csv ?? ctx.inputs.traces ?? [])[0]! },
      `suite "${ctx.suite}": configuration ${JSON.stringify(scope)} is not in the input; expected one of ${configurations.map((c) => JSON.stringify(c)).join(', ')}`,
    );
  }
  return scope;
}

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
  offenders.push(
    ...slowRequests(scoped).map((s) => slowOffender(s, configurations.length > 1, hasStages, ctx.relative)),
  );

  return {
    resample: {
      items: scoped.length,
      metric(name, pick) {
        const m = ctx.metrics.find((x) => x.name === name);
        if (!m) return undefined;
        return latencyMetrics(
          Array.from(pick, (i) => scoped[i]!),
          [m],
          hasStages,
        )[name]!.value;
      },
    },
    metrics: latencyMetrics(scoped, ctx.metrics, hasStages),
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
  };
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

/** Each trace file's accuracy as a configuration, and the trace qids gold does not have. */
export interface ConfigurationAccuracy {
  byConfiguration: Map<string, Accuracy>;
  unknown: Set<string>;
}

/** Scores each trace file as its own configuration with the grounded-qa definitions. */
export async function scoreConfigurations(
  traces: readonly string[],
  goldFiles: readonly string[],
  config: LatencyConfig,
  relative: (file: string) => string,
): Promise<ConfigurationAccuracy> {
  const input = traceInput({ ...config, fields: config.fields?.traces });
  const { items: gold, questions } = await loadGold(goldFiles, {
    fields: config.fields?.gold,
    questions: input.format === 'openinference' && input.qid === 'input.value',
  });
  const rules = scuRules(config.scu);
  const options = {
    refusalToken: config.refusal_token,
    ...(config.refusal && { refusal: config.refusal }),
    ...(config.citation_markers && { markers: config.citation_markers }),
    scuRules: rules ? compileRules(rules) : null,
    cutoffs: [],
    traces: input,
  };
  const byConfiguration = new Map<string, Accuracy>();
  const unknown = new Set<string>();
  const answerable = answerableOf(gold);
  for (const file of traces) {
    const loaded = await judgeRuns([file], gold, options, questions);
    for (const qid of loaded.unknown.keys()) unknown.add(qid);
    const { metrics: m } = aggregate(answerable, loaded.table, options);
    byConfiguration.set(relative(file), {
      precision: m.precision!.value,
      chr: m.chr!.value,
      coverage: m.coverage!.value,
      triage: stageLine(triage(answerable, loaded.table)),
    });
  }
  return { byConfiguration, unknown };
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
