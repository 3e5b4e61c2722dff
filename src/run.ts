import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type LoadedConfig } from './config/load.js';
import { didYouMean } from './config/suggest.js';
import { displayPath, UsageError } from './errors.js';
import { resolveInput } from './io/files.js';
import { evaluateGate } from './gates/evaluate.js';
import { notComputable, resolveMetric, type MetricValue, type ResolvedMetric } from './metrics/spec.js';
import {
  reportSchema,
  type GateResult,
  type OffenderJson,
  type Report,
  type SuiteReport,
} from './report/schema.js';
import type { LoadedSuite, Offender } from './suites/types.js';
import { TOOL_NAME, VERSION } from './version.js';

/** `--input [SUITE.]KEY=PATH`: replaces one input path of a suite; PATH is relative to the working directory. */
export interface InputOverride {
  suite?: string;
  key: string;
  path: string;
}

export interface RunOptions {
  config: string;
  /** Only these suites (all when empty). */
  suites?: readonly string[];
  inputs?: readonly InputOverride[];
  /** A report.json to compare with (e.g. the base branch's): deltas and max_drop gates. */
  baseline?: string;
}

export interface RunOutcome {
  report: Report;
  config: LoadedConfig;
  /** Suite warnings prefixed with the suite name, for stderr and logs. */
  warnings: string[];
}

/** The whole engine: config → inputs → scores → gates → report. The CLI and the Action both call this. */
export async function run(options: RunOptions): Promise<RunOutcome> {
  const config = loadConfig(options.config);
  const selected = selectSuites(config, options.suites ?? []);
  const relative = (file: string) => toPosix(path.relative(config.dir, file));
  checkOverrides(selected, options.inputs ?? []);

  const suites: Record<string, SuiteReport> = {};
  const gates: GateResult[] = [];
  const warnings: string[] = [];
  const base = options.baseline ? loadBaseline(options.baseline) : undefined;
  if (base && 'warning' in base) warnings.push(base.warning);
  const baseReport = base && 'report' in base ? base.report : undefined;
  for (const suite of selected) {
    const inputs: Record<string, string[]> = {};
    for (const key of suite.kind.inputKeys) {
      const override = [...(options.inputs ?? [])]
        .reverse()
        .find((o) => o.key === key && (!o.suite || o.suite === suite.name));
      const value = (suite.config as unknown as Record<string, unknown>)[key];
      if (override) {
        inputs[key] = await resolveInput(override.path, process.cwd(), {
          file: `--input ${override.suite ? `${override.suite}.` : ''}${key}`,
        });
      } else if (typeof value === 'string') {
        inputs[key] = await resolveInput(value, config.dir, suite.inputWhere[key]!);
      }
    }
    const metrics = metricsToCompute(suite);
    const result = await suite.kind.score(suite.config, { suite: suite.name, inputs, metrics, relative });

    const baseSuite = baseReport?.suites[suite.name];
    const baseMetrics = baseSuite?.kind === suite.kind.kind ? baseSuite.metrics : undefined;
    const noBaseline = !baseReport
      ? 'no baseline report given'
      : baseMetrics
        ? 'metric not in the baseline report'
        : `suite "${suite.name}" (${suite.kind.kind}) not in the baseline report`;
    for (const [metric, rule] of Object.entries(suite.config.gates)) {
      const spec = resolveMetric(metric, suite.kind.metrics)!.spec;
      for (const outcome of evaluateGate(
        metric,
        rule,
        result.metrics[metric],
        spec,
        baseMetrics?.[metric],
        noBaseline,
      )) {
        gates.push({ suite: suite.name, ...outcome, line: suite.gateWhere[metric]?.line });
      }
    }
    suites[suite.name] = {
      kind: suite.kind.kind,
      inputs: Object.fromEntries(Object.entries(inputs).map(([k, files]) => [k, files.map(relative)])),
      // The report lists exactly the metrics in force, in the kind's order, whatever order score() used.
      metrics: Object.fromEntries(
        metrics.map((m) => {
          const value = result.metrics[m.name] ?? notComputable('not reported by the suite');
          return [m.name, baseMetrics ? withBaseline(value, baseMetrics[m.name]) : value];
        }),
      ),
      counts: result.counts,
      offenders_total: result.offenders.length,
      offenders: result.offenders.map(offenderJson),
      warnings: result.warnings,
    };
    warnings.push(...result.warnings.map((w) => `${suite.name}: ${w}`));
  }

  const report: Report = {
    schema_version: '1',
    tool: { name: TOOL_NAME, version: VERSION },
    verdict: gates.every((g) => g.passed) ? 'pass' : 'fail',
    config: toPosix(path.relative(process.cwd(), config.file) || path.basename(config.file)),
    suites,
    gates,
  };
  return { report, config, warnings };
}

function selectSuites(config: LoadedConfig, names: readonly string[]): LoadedSuite[] {
  if (names.length === 0) return config.suites;
  const known = config.suites.map((s) => s.name);
  for (const name of names) {
    if (!known.includes(name)) {
      throw new UsageError(
        `unknown suite ${JSON.stringify(name)}${didYouMean(name, known)}; ${path.basename(config.file)} defines ${known.join(', ')}`,
      );
    }
  }
  return config.suites.filter((s) => names.includes(s.name));
}

function checkOverrides(suites: readonly LoadedSuite[], overrides: readonly InputOverride[]): void {
  for (const o of overrides) {
    const targets = suites.filter((s) => !o.suite || s.name === o.suite);
    if (o.suite && targets.length === 0) {
      throw new UsageError(
        `--input ${o.suite}.${o.key}: no selected suite is named ${JSON.stringify(o.suite)}`,
      );
    }
    if (!targets.some((s) => s.kind.inputKeys.includes(o.key))) {
      const keys = [...new Set(targets.flatMap((s) => s.kind.inputKeys))];
      throw new UsageError(
        `--input ${o.key}: not an input of ${o.suite ?? 'any selected suite'}${didYouMean(o.key, keys)}; expected one of ${keys.join(', ')}`,
      );
    }
  }
}

/** Every plain metric of the kind, plus each family at the suite's default cutoffs and at those its gates name. */
function metricsToCompute(suite: LoadedSuite): ResolvedMetric[] {
  const out: ResolvedMetric[] = [];
  const cutoffs = suite.kind.defaultCutoffs(suite.config);
  const gated = Object.keys(suite.config.gates).map((m) => resolveMetric(m, suite.kind.metrics)!);
  for (const spec of suite.kind.metrics) {
    if (!spec.name.includes('{k}')) {
      out.push({ name: spec.name, spec });
      continue;
    }
    const ks = new Set([...cutoffs, ...gated.filter((g) => g.spec === spec).map((g) => g.k!)]);
    for (const k of [...ks].sort((a, b) => a - b))
      out.push({ name: spec.name.replace('{k}', String(k)), spec, k });
  }
  return out;
}

/** A baseline that cannot be read is a warning: the check still runs, without deltas. */
function loadBaseline(file: string): { report: Report } | { warning: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return {
      warning: `baseline ${displayPath(file)} not read (${(err as NodeJS.ErrnoException).code ?? 'error'}); no deltas, max_drop skipped`,
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { warning: `baseline ${displayPath(file)} is not JSON; no deltas, max_drop skipped` };
  }
  const parsed = reportSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      warning: `baseline ${displayPath(file)} is not a groundgate report (${issue.path.join('.') || 'root'}: ${issue.message}); no deltas, max_drop skipped`,
    };
  }
  return { report: parsed.data };
}

function withBaseline(current: MetricValue, base: MetricValue | undefined): MetricValue {
  if (!base) return current;
  const delta = current.value === null || base.value === null ? null : current.value - base.value;
  return { ...current, baseline: base.value, delta };
}

function offenderJson(o: Offender): OffenderJson {
  return { id: o.id, labels: o.labels, ...o.fields, ...(o.source ? { source: o.source } : {}) };
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
