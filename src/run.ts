import { statSync } from 'node:fs';
import type { ObjectHeap } from './engine-thread.js';
import path from 'node:path';
import { loadConfig, type LoadedConfig } from './config/load.js';
import { didYouMean } from './config/suggest.js';
import { compareItems, withBaseline } from './baseline/compare.js';
import { loadBaseline } from './baseline/load.js';
import {
  chooseBaseline,
  committedBaseline,
  otherGoldSet,
  requireCommitted,
  type FoundBaseline,
} from './baseline/select.js';
import { displayPath, UsageError } from './errors.js';
import { digestGold } from './gold/digest-files.js';
import type { GoldDigest, ItemDigests } from './gold/digest.js';
import { goldStatus, lockPathFor, type GoldStatus } from './gold/status.js';
import { confine, confineTree, type PathScope } from './io/confine.js';
import { resolveInput } from './io/files.js';
import { takeUtf8Notes, utf8Warnings } from './io/utf8.js';
import { evaluateGate } from './gates/evaluate.js';
import { noiseWarnings, unjudgedWarning } from './gates/noise.js';
import { populationFlips } from './gates/paired.js';
import { pairedIncrease, type Grown } from './gates/increase.js';
import { pairedValues } from './gates/paired-values.js';
import { pairedDelta } from './metrics/paired-delta.js';
import {
  notComputable,
  resolveMetric,
  type MetricSpec,
  type MetricValue,
  type ResolvedMetric,
} from './metrics/spec.js';
import { wilson } from './metrics/wilson.js';
import { ItemRecord } from './report/item-record.js';
import type { SuiteTriage, Triage } from './report/triage.js';
import type { GateResult, GoldReport, OffenderJson, Report, SuiteReport } from './report/schema.js';
import type {
  ItemVerdicts,
  LoadedSuite,
  Misread,
  Offender,
  OffenderList,
  Resampler,
  ScoreContext,
  SuiteResult,
} from './suites/types.js';
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
  /** A report.json to compare with (e.g. the base branch's): deltas, flips and max_drop gates. */
  baseline?: string;
  /** A baseline that does not exist is a warning, not an error (the Action's documented behaviour). */
  baselineMissingOk?: boolean;
  /** A baseline found elsewhere (a workflow artifact: baseline auto), or why none was; instead of `baseline`. */
  baselineFound?: FoundBaseline;
  /** Release sign-off: every gold set must match its lock, or the run stops with exit 2. */
  release?: boolean;
  /** The config, when the caller has loaded it already. */
  loaded?: LoadedConfig;
  /** Where the config and the paths it names may lead (default: the CLI's workspace, see cliScope). */
  scope?: PathScope;
  /** Keep each suite's resampler (groundgate init's bootstrap). */
  resample?: boolean;
  /**
   * Compare with the committed baseline (.groundgate/baseline.jsonl beside gates.yaml) when no other is
   * given or found; default true. init and `groundgate baseline` make one and compare with none.
   */
  committedBaseline?: boolean;
}

export type { FoundBaseline } from './baseline/select.js';

export interface RunOutcome {
  report: Report;
  config: LoadedConfig;
  /** Every warning, a suite's prefixed with its name, for stderr and logs. */
  warnings: string[];
  /** Those of them that belong to no suite (the config, the baseline), so no suite's table shows them. */
  runWarnings: string[];
  /** With options.resample: the suites that can recompute metrics over a resample of their items. */
  resamplers: Record<string, Resampler>;
  /** Each suite's warnings that its data looks read wrongly (init gates none of the metrics they concern). */
  misreads: Record<string, Misread[]>;
}

/** The whole engine: config → inputs → scores → gates → report. The CLI and the Action both call this. */
export async function run(options: RunOptions): Promise<RunOutcome> {
  const setup = prepareRun(options);
  return judgeRun(setup, options, (suite) => scoreSuite(setup, suite, options));
}

/** What every run starts from: the config, the suites it selected, and how files are named in reports. */
export interface RunSetup {
  config: LoadedConfig;
  selected: LoadedSuite[];
  relative(file: string): string;
}

export function prepareRun(options: RunOptions): RunSetup {
  const config = options.loaded ?? loadConfig(options.config, options.scope);
  const selected = selectSuites(config, options.suites ?? []);
  // Called once per offender by some suites: 50k offenders share a handful of files.
  const relatives = new Map<string, string>();
  const relative = (file: string) => {
    let r = relatives.get(file);
    if (r === undefined) relatives.set(file, (r = toPosix(path.relative(config.dir, file))));
    return r;
  };
  checkOverrides(selected, options.inputs ?? []);
  return { config, selected, relative };
}

/** A suite scored, by one run or merged from partials: all that its part of the report is built from. */
export interface ScoredSuite {
  /** Every input key's files, absolute, in the order one run lists them. */
  inputs: Record<string, string[]>;
  metrics: ResolvedMetric[];
  result: SuiteResult;
  gold?: { report: GoldReport; digest?: ItemDigests };
  /** The warnings about input that is not UTF-8, once the offenders shown are described. */
  utf8Warnings(): Promise<string[]>;
}

/** A suite's ResolvedMetrics, its inputs and gold status, scored in this process. */
async function scoreSuite(setup: RunSetup, suite: LoadedSuite, options: RunOptions): Promise<ScoredSuite> {
  const { config, relative } = setup;
  const inputs = await suiteInputs(suite, config, options.inputs ?? []);
  const metrics = metricsToCompute(suite);
  const result = await suite.kind.score(suite.config, scoreContext(setup, suite, inputs, metrics));
  const gold = await suiteGold(setup, suite, inputs, result.goldDigest, options.release ?? false);
  return {
    inputs,
    metrics,
    result,
    ...(gold ? { gold } : {}),
    utf8Warnings: () => utf8Warnings(takeUtf8Notes(), relative),
  };
}

/**
 * The gold status of a suite whose kind has a gold set: its digest as the loader made it (else made here)
 * against its lock; undefined for kinds without gold.
 */
export async function suiteGold(
  { config, relative }: RunSetup,
  suite: LoadedSuite,
  inputs: Record<string, string[]>,
  digest: GoldDigest | undefined,
  release: boolean,
): Promise<GoldStatus | undefined> {
  const goldFiles = suite.kind.goldKey ? inputs[suite.kind.goldKey] : undefined;
  if (!goldFiles) return undefined;
  return goldStatus(
    digest ?? (await digestGold(goldFiles)),
    goldFiles,
    lockPathFor(suite, config, goldFiles),
    relative,
    release,
  );
}

export function scoreContext(
  { config, relative }: RunSetup,
  suite: LoadedSuite,
  inputs: Record<string, string[]>,
  metrics: ResolvedMetric[],
): ScoreContext {
  return {
    suite: suite.name,
    inputs,
    metrics,
    relative,
    baseDir: config.dir,
    resolvePath: (key, how) => suitePath(suite, config, key, how?.tree ?? false),
  };
}

/** Gates, baseline comparisons and offenders over each selected suite as `score` gives it: the report. */
export async function judgeRun(
  setup: RunSetup,
  options: RunOptions,
  score: (suite: LoadedSuite) => Promise<ScoredSuite>,
): Promise<RunOutcome> {
  const { config, selected, relative } = setup;
  const suites: Record<string, SuiteReport> = {};
  const resamplers: Record<string, Resampler> = {};
  const misreads: Record<string, Misread[]> = {};
  const gates: GateResult[] = [];
  const warnings: string[] = [];
  const found: FoundBaseline | undefined =
    options.baselineFound ??
    (options.baseline ? loadBaseline(options.baseline, options.baselineMissingOk) : undefined);
  const committed =
    options.committedBaseline === false ? undefined : committedBaseline(config.dir, config.scope);
  const base = chooseBaseline(found, committed?.found);
  const runWarnings = await utf8Warnings(takeUtf8Notes(), displayPath);
  if (base?.warning) runWarnings.push(base.warning);
  warnings.push(...runWarnings);
  const baseReport = base && 'report' in base ? base.report : undefined;
  for (const suite of selected) {
    const { inputs, metrics, result, gold, ...scored } = await score(suite);

    if (options.resample && result.resample) resamplers[suite.name] = result.resample;
    if (result.misread?.length) misreads[suite.name] = result.misread;
    // Release sign-off needs the committed baseline of this gold set, whichever baseline is compared.
    if (options.release && committed) requireCommitted(committed, suite.name, gold?.report.sha256);
    // A committed baseline of another gold set is not compared at all: never some items paired, some not.
    const refused =
      baseReport && baseReport === committed?.found?.report && baseReport.suites[suite.name]
        ? otherGoldSet(baseReport.suites[suite.name]!.gold?.sha256, gold?.report.sha256)
        : undefined;
    if (refused) result.warnings.push(refused);
    const baseSuite = refused ? undefined : baseReport?.suites[suite.name];
    const comparable = baseSuite?.kind === suite.kind.kind ? baseSuite : undefined;
    const reported = metrics.filter(
      (m) => !m.spec.optional || m.name in result.metrics || m.name in suite.config.gates,
    );
    const values = Object.fromEntries(
      reported.map((m) => {
        const value = withInterval(
          result.metrics[m.name] ?? notComputable('not reported by the suite'),
          m.spec,
        );
        return [m.name, comparable ? withBaseline(value, comparable.metrics[m.name]) : value];
      }),
    );
    const noBaseline = refused
      ? refused
      : !baseReport
        ? base
          ? 'baseline report not found'
          : 'no baseline report given'
        : comparable
          ? 'metric not in the baseline report'
          : `suite "${suite.name}" (${suite.kind.kind}) not in the baseline report`;
    const items = result.items && itemRecord(result.items, gold?.digest);
    const comparison = items && comparable?.items ? compareItems(items, comparable.items) : undefined;
    if (items && comparable?.items) pairValues(values, items, comparable.items, result.items?.values);
    const flips = populationFlips(
      suite.kind,
      result.items,
      items,
      comparable?.items,
      comparable ? 'the baseline report has no item verdicts' : noBaseline,
      comparison,
    );
    /** The items that grew most, of the first max_increase gate that failed (see grownOffenders). */
    let grew: readonly Grown[] | undefined;
    let failedElse = false;
    for (const [metric, rule] of Object.entries(suite.config.gates)) {
      const resolved = resolveMetric(metric, suite.kind.metrics)!;
      const spec = resolved.spec;
      const increase =
        rule.maxIncrease === undefined ? undefined : pairedIncrease(resolved, items, comparable?.items);
      const outcomes = evaluateGate(
        metric,
        rule,
        values[metric],
        spec,
        comparable?.metrics[metric],
        noBaseline,
        rule.maxNewFailures === undefined ? undefined : flips(spec),
        increase,
      );
      for (const outcome of outcomes) {
        gates.push({ suite: suite.name, ...outcome, line: suite.gateWhere[metric]?.line });
        if (outcome.passed || outcome.skipped) continue;
        if (outcome.op !== 'max_increase') failedElse = true;
        else grew ??= increase?.grown;
      }
      const pairable = suite.kind.populations !== undefined && suite.kind.populations[spec.name] !== null;
      result.warnings.push(...noiseWarnings(outcomes, values, pairable));
      const unjudged = unjudgedWarning(outcomes);
      if (unjudged) result.warnings.push(unjudged);
    }
    // report.json lists the first report_offenders in full; offenders_total and items keep the rest countable.
    const regressed = new Set(comparison?.regressed);
    // Against a baseline with per-item values, a suite may list what dropped instead of what is below its bar.
    // Those are in order of the drop already: the largest first, flipped or not.
    // When what failed is only what the change costs, the offenders are what grew: a slow or wrong item
    // listed instead would point away from the cause.
    const grown = grew?.length && !failedElse ? grownOffenders(grew) : undefined;
    const dropped = !grown && comparable?.items && result.dropped?.(comparable.items);
    const offenderList = grown || dropped || result.offenders;
    const shown = firstOffenders(
      offenderList,
      grown || dropped ? new Set() : regressed,
      config.reportOffenders,
    );
    const missing = shown.filter((o) => !o.fields || grown).map((o) => o.id);
    const described = missing.length && result.describe ? await result.describe(missing) : new Map();
    const offenders = shown
      .map((o) =>
        offenderJson(
          o,
          grown ? { ...o.fields, ...described.get(o.id) } : (o.fields ?? described.get(o.id) ?? {}),
        ),
      )
      .map((o) => (regressed.has(o.id) ? { ...o, flip: 'pass → fail' } : o));

    // Whatever this suite read (inputs, lock) that was not UTF-8.
    result.warnings.push(...(await scored.utf8Warnings()));
    suites[suite.name] = {
      kind: suite.kind.kind,
      inputs: Object.fromEntries(Object.entries(inputs).map(([k, files]) => [k, files.map(relative)])),
      ...(gold ? { gold: gold.report } : {}),
      metrics: values,
      counts: result.counts,
      ...(result.triage ? { triage: withBaselineTriage(result.triage, comparable?.triage) } : {}),
      ...(result.judge ? { judge: result.judge } : {}),
      ...(comparison ? { comparison } : {}),
      ...(result.tables?.length ? { tables: result.tables } : {}),
      offenders_total: offenderList.length,
      offenders,
      warnings: result.warnings,
      ...(result.headline ? { headline: result.headline } : {}),
      ...(items ? { items } : {}),
    };
    warnings.push(...result.warnings.map((w) => `${suite.name}: ${w}`));
  }

  const report: Report = {
    schema_version: '1',
    tool: { name: TOOL_NAME, version: VERSION },
    verdict: gates.every((g) => g.passed) ? 'pass' : 'fail',
    config: toPosix(path.relative(process.cwd(), config.file) || path.basename(config.file)),
    ...(base && 'report' in base && base.source ? { baseline: base.source } : {}),
    suites,
    gates,
  };
  return { report, config, warnings, runWarnings, resamplers, misreads };
}

/**
 * How many bytes the selected suites whose kind holds its input as objects (SuiteKind.objectHeap) would
 * read, and whether any of them reads records: what decides whether a run goes to an engine thread, and its
 * limits.
 */
export async function objectHeap(options: RunOptions, config: LoadedConfig): Promise<ObjectHeap> {
  const selected = selectSuites(config, options.suites ?? []);
  checkOverrides(selected, options.inputs ?? []);
  const files = new Set<string>();
  let records = false;
  for (const suite of selected.filter((s) => s.kind.objectHeap)) {
    const inputs = await suiteInputs(suite, config, options.inputs ?? []);
    for (const list of Object.values(inputs)) for (const file of list) files.add(file);
    records ||= suite.kind.readsRecords?.(suite.config, inputs) ?? false;
  }
  let bytes = 0;
  for (const file of files) bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  return { bytes, records };
}

/** A suite's input files: overrides (relative to the working directory) over its config (relative to the config). */
export async function suiteInputs(
  suite: LoadedSuite,
  config: LoadedConfig,
  overrides: readonly InputOverride[],
  keys: readonly string[] = suite.kind.inputKeys,
): Promise<Record<string, string[]>> {
  const inputs: Record<string, string[]> = {};
  for (const key of keys) {
    const override = [...overrides]
      .reverse()
      .find((o) => o.key === key && (!o.suite || o.suite === suite.name));
    const value = (suite.config as unknown as Record<string, unknown>)[key];
    if (override) {
      inputs[key] = await resolveInput(
        override.path,
        process.cwd(),
        { file: `--input ${override.suite ? `${override.suite}.` : ''}${key}` },
        config.scope,
      );
    } else if (typeof value === 'string') {
      inputs[key] = await resolveInput(
        value,
        config.dir,
        suite.keyWhere[key]!,
        config.scope,
        `suites.${suite.name}.${key}`,
      );
    }
  }
  return inputs;
}

/** A path-valued key of a suite's config that is not an input (see ScoreContext.resolvePath); dotted: nested. */
function suitePath(suite: LoadedSuite, config: LoadedConfig, key: string, tree: boolean): string {
  const [top, ...rest] = key.split('.');
  const value = rest.reduce<unknown>(
    (v, k) => (v as Record<string, unknown> | undefined)?.[k],
    (suite.config as unknown as Record<string, unknown>)[top!],
  );
  if (typeof value !== 'string') throw new Error(`suite ${suite.name}: ${key} is not a path`);
  const where = suite.keyWhere[top!] ?? suite.where;
  const label = `suites.${suite.name}.${key}`;
  const file = confine(path.resolve(config.dir, value), config.scope, value, where, label);
  if (tree) confineTree(file, config.scope, value, where, label);
  return file;
}

export function selectSuites(config: LoadedConfig, names: readonly string[]): LoadedSuite[] {
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
export function metricsToCompute(suite: LoadedSuite): ResolvedMetric[] {
  const out: ResolvedMetric[] = [];
  const cutoffs = suite.kind.defaultCutoffs(suite.config);
  const gated = Object.keys(suite.config.gates).map((m) => resolveMetric(m, suite.kind.metrics)!);
  for (const spec of suite.kind.metrics) {
    if (!spec.name.includes('{k}')) {
      out.push({ name: spec.name, spec });
      continue;
    }
    const ks = new Set([
      ...(suite.kind.familyCutoffs?.(suite.config, spec) ?? cutoffs),
      ...gated.filter((g) => g.spec === spec).map((g) => g.k!),
    ]);
    for (const k of [...ks].sort((a, b) => a - b))
      out.push({ name: spec.name.replace('{k}', String(k)), spec, k });
  }
  return out;
}

/**
 * Each metric with per-item values on both sides, compared item by item (metricValue.paired): its mean Δ,
 * the Δ's interval and the paired tests, which a max_drop gate shows beside the drop.
 */
function pairValues(
  values: Record<string, MetricValue>,
  current: ItemRecord,
  base: ItemRecord,
  columns: ItemVerdicts['values'],
): void {
  for (const name of Object.keys(columns ?? {})) {
    if (!values[name]) continue;
    const { before, now } = pairedValues(current, base, name);
    const paired = pairedDelta(before, now);
    if (paired) values[name] = { ...values[name], paired };
  }
}

/** Proportions get their Wilson 95% interval, so a reader sees how much a small n can move. */
function withInterval(value: MetricValue, spec: MetricSpec): MetricValue {
  const { numerator: k, denominator: n } = value;
  if (spec.unit !== 'ratio' || k === undefined || n === undefined || n === 0) return value;
  return { ...value, ci95: wilson(k, n) };
}

/** Gold digests are cut to 64 bits: enough to tell an edited item, small enough for 200k items. */
function itemRecord({ ids, pass, values }: ItemVerdicts, digest: ItemDigests | undefined): ItemRecord {
  if (!digest) return ItemRecord.fromColumns(ids, pass, undefined, values);
  // The digest lists items in gold order, which is usually the suite's own: then no lookup is needed.
  const aligned = digest.size === ids.length && ids.every((id, i) => id === digest.ids[i]);
  const indexOf = aligned ? undefined : new Map(digest.ids.map((id, i) => [id, i]));
  const { raw, stride } = digest;
  return ItemRecord.fromColumns(
    ids,
    pass,
    {
      bytes: raw,
      offset: (k) => {
        const at = indexOf ? indexOf.get(ids[k]!) : k;
        return at === undefined ? undefined : at * stride;
      },
    },
    values,
  );
}

/**
 * The first `limit` offenders, those in `regressed` (items that passed on the baseline and fail now: what this
 * change broke) first, each group in the list's order. Only those are made.
 */
function firstOffenders(list: OffenderList, regressed: ReadonlySet<string>, limit: number): Offender[] {
  const n = Math.min(limit, list.length);
  const idAt = (i: number) => list.idAt?.(i) ?? list.at(i)!.id;
  const picked: number[] = [];
  if (regressed.size > 0)
    for (let i = 0; i < list.length && picked.length < n; i++) if (regressed.has(idAt(i))) picked.push(i);
  for (let i = 0; i < list.length && picked.length < n; i++)
    if (regressed.size === 0 || !regressed.has(idAt(i))) picked.push(i);
  return picked.map((i) => list.at(i)!);
}

/**
 * The items a failed max_increase gate found grown, most first, as offenders: what grew (`cost` where both
 * runs priced the item, else the gated value), before → after and Δ; the suite describes the item beside it.
 */
function grownOffenders(grown: readonly Grown[]): OffenderList {
  return {
    length: grown.length,
    at(i) {
      const g = grown[i];
      return (
        g && {
          id: g.id,
          labels: ['grew'],
          fields: { grew: g.value, before: g.before, after: g.after, delta: g.after - g.before },
        }
      );
    },
  };
}

function offenderJson(o: Offender, fields: NonNullable<Offender['fields']>): OffenderJson {
  return {
    id: o.id,
    labels: o.labels,
    ...(o.stage ? { stage: o.stage } : {}),
    ...(o.match ? { match: o.match } : {}),
    ...fields,
    ...(o.source ? { source: o.source } : {}),
  };
}

/** The triage counts, with the baseline's beside them for deltas when it has them. */
function withBaselineTriage(counts: SuiteTriage, base: Triage | undefined): Triage {
  if (!base) return counts;
  return { ...counts, baseline: { answered_wrong: base.answered_wrong, over_refused: base.over_refused } };
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
