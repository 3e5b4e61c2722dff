import type { z } from 'zod';
import type { GateRule } from '../config/gate.js';
import type { Where } from '../errors.js';
import type { GoldDigest, ItemDigests } from '../gold/digest.js';
import type { PartialFile, PartialSuite, Sections } from '../partial/file.js';
import type { ItemRecord, ValueColumns } from '../report/item-record.js';
import type { JudgeSpendReport, Table } from '../report/schema.js';
import type { SuiteTriage } from '../report/triage.js';
import type { MetricSpec, MetricValue, ResolvedMetric } from '../metrics/spec.js';

/** Keys every suite's config has, whatever its kind. */
export interface BaseSuiteConfig {
  kind: string;
  gates: Record<string, GateRule>;
}

export interface ScoreContext {
  suite: string;
  /** Every input key of the suite, resolved to absolute files in sorted order. */
  inputs: Record<string, string[]>;
  /** The metrics to compute: every plain metric plus each family at the cutoffs in use. */
  metrics: ResolvedMetric[];
  /** How a file is named in reports: relative to the config's folder, `/`-separated, machine-independent. */
  relative(file: string): string;
  /** The config's folder, against which the suite resolves paths that are not inputs (e.g. a repos folder). */
  baseDir: string;
  /**
   * The absolute path a key of the suite's config names (a folder such as repos:), relative to the config,
   * checked to stay in the workspace; with `tree`, no symbolic link under it may lead out either. A dotted key
   * names a nested one (`claims.cache`).
   */
  resolvePath(key: string, options?: { tree?: boolean }): string;
}

/** A failing item: what a reviewer needs to triage it. `fields` are shown in order. */
export interface Offender {
  id: string;
  labels: string[];
  /** Absent when the suite reads them on demand (SuiteResult.describe). */
  fields?: Record<string, string | number | boolean | string[] | null>;
  /** Where the item is defined (a gold line), for annotations. */
  source?: { file: string; line: number };
  /** The pipeline stage its failure is attributed to (grounded answers: see report/triage.ts). */
  stage?: string;
  /** The claim rule that found its claim's gold fact (grounded answers, `claims:` set): claims/rules/. */
  match?: string;
}

/** Item `ids[i]` passed when `pass[i]` is 1: two columns, where 200k objects held 8 MB more. */
export interface ItemVerdicts {
  ids: readonly string[];
  pass: Uint8Array;
  /** Item `ids[i]` belongs to population `name` when `populations[name][i]` is 1 (see SuiteKind.populations). */
  populations?: Readonly<Record<string, Uint8Array>>;
  /**
   * Item `ids[i]` fails metric `name` (a spec's name) now when `failing[name][i]` is 1. A baseline keeps one
   * pass bit per item: an item that passed there and fails this metric now is the metric's new failure, where
   * "fails now" alone would count an item that broke on another metric (a claim miss against over_refusal).
   */
  failing?: Readonly<Record<string, Uint8Array>>;
  /**
   * Item `ids[i]`'s value of metric `name` is `values[name][i]` (NaN: it has none): written into report.json's
   * items, where a later run pairs them item by item (ranking's per-query nDCG, a task's file recall, a
   * latency item's tokens_in and cost: MetricSpec.perItem).
   */
  values?: ValueColumns;
}

export function itemVerdicts<T>(
  items: readonly T[],
  id: (item: T) => string,
  pass: (item: T, index: number) => boolean,
): ItemVerdicts {
  return { ids: items.map(id), pass: Uint8Array.from(items, (item, i) => (pass(item, i) ? 1 : 0)) };
}

/**
 * Failing items in order, each made when asked: an array is one. A large grounded-qa run has tens of thousands,
 * of which a report shows the first thousand and counts the rest.
 */
export interface OffenderList {
  readonly length: number;
  /** Offender `index`, from 0 to length - 1 (not counting from the end, as an array's may). */
  at(index: number): Offender | undefined;
  /** The id of `at(index)`, without making the offender (lists that make them on demand). */
  idAt?(index: number): string;
}

/** A warning that the data looks read wrongly (an unmapped id, a unit), and the metrics it puts in doubt. */
export interface Misread {
  warning: string;
  /** Metric names; `*` stands for any text (`recall@*` is every recall@k). */
  metrics: readonly string[];
}

export interface SuiteResult {
  metrics: Record<string, MetricValue>;
  counts: Record<string, number>;
  /** Every failing item, most severe first; renderers show the top N. */
  offenders: OffenderList;
  warnings: string[];
  /** Warnings (among `warnings`) that the data looks read wrongly, with the metrics they put in doubt. */
  misread?: Misread[];
  /**
   * A warning (warnings[0]) every output shows before anything else: the traces' ids meet almost none of the
   * gold set's, so its metrics are no verdict on the pipeline (docs/metrics.md, "When the data looks read wrongly").
   */
  headline?: string;
  /** Every item's verdict, for comparisons with a baseline (suites with per-item pass/fail only). */
  items?: ItemVerdicts;
  /** Fields of the offenders that come without them, for the few a report shows. */
  describe?: (ids: readonly string[]) => Promise<Map<string, NonNullable<Offender['fields']>>>;
  /** Tables beside the metrics (e.g. configuration points with a chart, a confusion matrix). */
  tables?: Table[];
  /** The gold set's digest, when the loader computed it while reading (saves run() a second pass). */
  goldDigest?: GoldDigest;
  /** Where grounded answers fail, by stage (suites that judge grounded answers). */
  triage?: SuiteTriage;
  /** What the judge spent (claims: {match: semantic}). */
  judge?: JudgeSpendReport;
  /** Metrics that are no proportion, recomputed over a resample of the items: what a bootstrap needs. */
  resample?: Resampler;
  /**
   * The offenders against a baseline whose items carry values: the items whose metric dropped most, in place
   * of `offenders`; undefined when the baseline has no values to compare.
   */
  dropped?(base: ItemRecord): OffenderList | undefined;
}

/**
 * A suite's metrics over a resample of its items (queries, requests): `pick` holds item indices, repeats
 * allowed. `groundgate init` bootstraps the interval of a mean or a percentile with it.
 */
export interface Resampler {
  items: number;
  /** The metric over the picked items; undefined when the suite cannot recompute that metric. */
  metric(name: string, pick: Uint32Array): number | null | undefined;
}

export interface SuiteKind<C extends BaseSuiteConfig = BaseSuiteConfig> {
  kind: string;
  description: string;
  /** Strict schema of the suite's block in gates.yaml, `kind` and `gates` included. */
  configSchema: z.ZodType<C, unknown>;
  /** Keys of the config that name input files (overridable from the CLI and the Action). */
  inputKeys: readonly string[];
  /** The input key of a JSONL gold set with item ids, which `freeze` locks and release mode verifies. */
  goldKey?: string;
  metrics: readonly MetricSpec[];
  /** Offender fields that get their own column in Markdown tables; the rest go into a details column. */
  offenderColumns: readonly string[];
  /**
   * Holds data that grows with its input as JavaScript objects (grounded-qa: gold items, qids, verdicts), so
   * a large run is worth an engine thread, whose heap limits bound the garbage collector's slack (see
   * engine-thread.ts). Measured on the 1x benchmarks: grounded-qa 394 -> 288 MB; ranking and
   * agent-retrieval no smaller and 8-12% slower, for the second copy of the bundle.
   */
  objectHeap?: boolean;
  /**
   * Whether the suite, given its inputs, reads records (Parquet rows, OpenInference spans) rather than
   * lines: an engine thread's young generation is sized for it (see RECORDS_YOUNG_MB).
   */
  readsRecords?(config: C, inputs: Record<string, string[]>): boolean;
  /** The cutoff at which families are reported when no gate names one. */
  defaultCutoffs(config: C): number[];
  /** Family `spec`'s cutoffs when no gate names one, where they are not defaultCutoffs' (undefined: those). */
  familyCutoffs?(config: C, spec: MetricSpec): number[] | undefined;
  score(config: C, ctx: ScoreContext): Promise<SuiteResult>;
  /**
   * Kinds whose results list every item's verdict (SuiteResult.items) may have paired gates
   * (max_new_failures). Which items a metric counts over, by its spec's name (`recall@{k}`): a population
   * of ItemVerdicts.populations, decided by the gold alone, so a baseline on the same gold shares it, and
   * named as the suite's count of its items; null for a metric whose failures an item's verdict does not
   * tell (no paired gate); a metric not named counts every item.
   */
  populations?: Readonly<Record<string, string | null>>;
  /** How a kind's run splits into partials that merge to the result of one run (absent: it cannot). */
  split?: SuiteSplit<C>;
}

/**
 * A kind whose run can be split over shards of its input (`check --partial`) and merged back into exactly
 * what one run over all of them gives (`merge`): the merge's result feeds the same report code as a run's.
 */
export interface SuiteSplit<C> {
  /** Input keys each shard reads files of its own for (traces); every shard reads the others whole (gold). */
  shardKeys: readonly string[];
  /** A shard's part: small values (JSON, in the header) and sections (bytes). */
  partial(config: C, ctx: ScoreContext): Promise<ShardPart>;
  /** The suite's result over every part; `ctx.inputs` holds the union of the parts' files. */
  merge(config: C, parts: readonly MergePart[], ctx: ScoreContext): Promise<MergedSuite>;
}

export interface ShardPart {
  state: unknown;
  sections: Sections;
  /** The gold set's digest, for the gold status a partial records (kinds with a goldKey). */
  goldDigest?: GoldDigest;
}

export interface MergePart {
  partial: PartialFile;
  suite: PartialSuite;
  /** For each shard key, where each of this part's files stands among the union of every part's, in order. */
  order: Record<string, number[]>;
  /** Where this part's file `index` of shard key `key` stands in the union; past its files, an input error. */
  fileAt(key: string, index: number): number;
}

export interface MergedSuite {
  result: SuiteResult;
  /** Item ids and digests for the report's items (kinds with a goldKey). */
  digests?: ItemDigests;
}

export interface LoadedSuite {
  name: string;
  kind: SuiteKind;
  config: BaseSuiteConfig;
  where: Where;
  /** Location of each gate's key, for messages and annotations. */
  gateWhere: Record<string, Where>;
  /** Location of each key of the suite's block (its value's, for a scalar), for messages. */
  keyWhere: Record<string, Where>;
}
