import {
  intersectionSize,
  totalSize,
  unionByFile,
  type Interval,
  type IntervalsByFile,
} from '../../metrics/intervals.js';
import { notComputable, type MetricValue } from '../../metrics/spec.js';
import { LEVELS, type InstanceError, type Level } from './contract.js';

/**
 * A context (one trajectory step, the final context, or the gold) resolved to repository files. `bytes` and
 * `symbols` exist only when file contents are available (a checkout); without them the span and symbol
 * levels are not computable.
 */
export interface ContextView {
  files: ReadonlySet<string>;
  /** Line intervals per file, 1-based inclusive. For gold: the `init` regions only, as the evaluator. */
  lines: IntervalsByFile;
  bytes?: IntervalsByFile;
  /** Definition keys (see `symbolKey`). */
  symbols?: ReadonlySet<string>;
}

export interface InstanceInput {
  gold: ContextView;
  final: ContextView;
  /** At least one: a prediction without steps is scored as one step, its final context. */
  steps: readonly ContextView[];
  /** Lines the model patch deletes, old-file numbering; undefined when there is no patch. */
  deleted?: ReadonlyMap<string, readonly number[]>;
}

/** Sizes and ratios at one level. Coverage is 1 when the gold is empty, precision 1 when the prediction is. */
export interface LevelScore {
  intersection: number;
  gold: number;
  predicted: number;
  coverage: number;
  precision: number;
  f1: number;
}

export interface EditLocScore {
  /** Deleted lines inside a gold init region of their file. */
  intersection: number;
  /** Lines of the gold init regions. */
  gold: number;
  /** Lines the patch deletes. */
  predicted: number;
  recall: number;
  precision: number;
}

export interface InstanceScore {
  final: Partial<Record<Level, LevelScore>>;
  /** Mean over steps of the coverage of everything seen so far. */
  auc: Partial<Record<Level, number>>;
  /** 1 − |union of the steps| / Σ |step|: the share of what was looked at again. */
  redundancy: Partial<Record<Level, number>>;
  /** Per step, the coverage of the union so far. */
  curve: Partial<Record<Level, number>>[];
  editloc?: EditLocScore;
  /** Gold files that no step and not the final context opened. */
  neverOpened: string[];
}

/** Identity of a definition, as the evaluator's tuple (file, node type, start byte, end byte). */
export function symbolKey(file: string, kind: string, start: number, end: number): string {
  return `${file}\u0000${kind}\u0000${start}\u0000${end}`;
}

/** The evaluator's conventions: nothing to find is fully found; nothing predicted is fully precise. */
export function coverageAndPrecision(
  intersection: number,
  gold: number,
  predicted: number,
): { coverage: number; precision: number } {
  return {
    coverage: gold > 0 ? intersection / gold : 1,
    precision: predicted > 0 ? intersection / predicted : 1,
  };
}

export function f1(coverage: number, precision: number): number {
  return coverage + precision > 0 ? (2 * coverage * precision) / (coverage + precision) : 0;
}

/** The levels a view can be scored at. */
function levelsOf(view: ContextView): Level[] {
  return LEVELS.filter((l) => (l === 'span' ? view.bytes : l === 'symbol' ? view.symbols : true));
}

/** How much a view holds at a level: files, definitions, bytes or lines. */
function size(level: Level, view: ContextView): number {
  switch (level) {
    case 'file':
      return view.files.size;
    case 'symbol':
      return view.symbols!.size;
    case 'span':
      return totalSize(view.bytes!);
    case 'line':
      return totalSize(view.lines);
  }
}

function common(level: Level, a: ContextView, b: ContextView): number {
  switch (level) {
    case 'file':
      return overlap(a.files, b.files);
    case 'symbol':
      return overlap(a.symbols!, b.symbols!);
    case 'span':
      return intersectionSize(a.bytes!, b.bytes!);
    case 'line':
      return intersectionSize(a.lines, b.lines);
  }
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const x of b) if (a.has(x)) n++;
  return n;
}

/** One instance: final-context scores, the trajectory curve, EditLoc. Pure. */
export function scoreInstance(input: InstanceInput): InstanceScore {
  const { gold } = input;
  const levels = levelsOf(gold);
  const final: InstanceScore['final'] = {};
  for (const level of levels) {
    const s = {
      intersection: common(level, gold, input.final),
      gold: size(level, gold),
      predicted: size(level, input.final),
    };
    const { coverage, precision } = coverageAndPrecision(s.intersection, s.gold, s.predicted);
    final[level] = { ...s, coverage, precision, f1: f1(coverage, precision) };
  }

  const seen: { files: Set<string>; symbols: Set<string>; lines: IntervalsByFile; bytes: IntervalsByFile } = {
    files: new Set(),
    symbols: new Set(),
    lines: new Map(),
    bytes: new Map(),
  };
  const looked: Record<Level, number> = { file: 0, symbol: 0, span: 0, line: 0 };
  const curve: InstanceScore['curve'] = [];
  for (const step of input.steps) {
    for (const f of step.files) seen.files.add(f);
    for (const s of step.symbols ?? []) seen.symbols.add(s);
    seen.lines = unionByFile(seen.lines, step.lines);
    if (step.bytes) seen.bytes = unionByFile(seen.bytes, step.bytes);
    const point: Partial<Record<Level, number>> = {};
    for (const level of levels) {
      // The evaluator scores a step's line coverage 0, not 1, when the gold has no init lines at all.
      point[level] =
        level === 'line' && gold.lines.size === 0
          ? 0
          : coverageAndPrecision(common(level, gold, seen), size(level, gold), 0).coverage;
      looked[level] += size(level, step);
    }
    curve.push(point);
  }
  const auc: InstanceScore['auc'] = {};
  const redundancy: InstanceScore['redundancy'] = {};
  for (const level of levels) {
    auc[level] = curve.reduce((sum, p) => sum + p[level]!, 0) / curve.length;
    redundancy[level] = looked[level] > 0 ? 1 - size(level, seen) / looked[level] : 0;
  }

  const opened = new Set([...seen.files, ...input.final.files]);
  const neverOpened = [...gold.files].filter((f) => !opened.has(f)).sort();
  const result: InstanceScore = { final, auc, redundancy, curve, neverOpened };
  if (input.deleted) result.editloc = editLoc(input.deleted, gold.lines);
  return result;
}

/** Deleted lines that fall inside the gold init regions of their file. */
function editLoc(deleted: ReadonlyMap<string, readonly number[]>, gold: IntervalsByFile): EditLocScore {
  let predicted = 0;
  let intersection = 0;
  for (const [file, lines] of deleted) {
    const regions: readonly Interval[] = gold.get(file) ?? [];
    for (const line of new Set(lines)) {
      predicted++;
      if (regions.some(([s, e]) => s <= line && line <= e)) intersection++;
    }
  }
  const goldSize = totalSize(gold);
  const { coverage, precision } = coverageAndPrecision(intersection, goldSize, predicted);
  return { intersection, gold: goldSize, predicted, recall: coverage, precision };
}

/**
 * Aggregates over the scored instances (errors are left out and counted by the caller): micro averages
 * (sums of sizes) for the final context and EditLoc, macro averages (means of per-instance values) for
 * F1, AUC-coverage and redundancy, as the evaluator.
 */
export function aggregate(
  scores: readonly InstanceScore[],
  levels: readonly Level[],
  errors: Readonly<Partial<Record<InstanceError, number>>>,
  unavailable: string,
): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  const none =
    scores.length === 0
      ? `no instance was scored${describeErrors(errors) ? ` (${describeErrors(errors)})` : ''}`
      : undefined;
  for (const level of LEVELS) {
    const names = [
      `${level}.coverage`,
      `${level}.precision`,
      `${level}.f1`,
      `auc.${level}`,
      `redundancy.${level}`,
    ];
    const reason = none ?? (levels.includes(level) ? undefined : unavailable);
    if (reason) {
      for (const name of names) out[name] = notComputable(reason);
      continue;
    }
    let intersection = 0;
    let gold = 0;
    let predicted = 0;
    for (const s of scores) {
      const l = s.final[level]!;
      intersection += l.intersection;
      gold += l.gold;
      predicted += l.predicted;
    }
    const { coverage, precision } = coverageAndPrecision(intersection, gold, predicted);
    out[`${level}.coverage`] = ratio(coverage, intersection, gold, level);
    out[`${level}.precision`] = ratio(precision, intersection, predicted, level);
    out[`${level}.f1`] = mean(scores.map((s) => s.final[level]!.f1));
    out[`auc.${level}`] = mean(scores.map((s) => s.auc[level]!));
    out[`redundancy.${level}`] = mean(scores.map((s) => s.redundancy[level]!));
  }
  const withPatch = scores.flatMap((s) => (s.editloc ? [s.editloc] : []));
  if (none || withPatch.length === 0) {
    const reason = none ?? 'no scored instance has a model patch';
    out['editloc.recall'] = notComputable(reason);
    out['editloc.precision'] = notComputable(reason);
  } else {
    const intersection = withPatch.reduce((n, e) => n + e.intersection, 0);
    const gold = withPatch.reduce((n, e) => n + e.gold, 0);
    const predicted = withPatch.reduce((n, e) => n + e.predicted, 0);
    const { coverage, precision } = coverageAndPrecision(intersection, gold, predicted);
    out['editloc.recall'] = { value: coverage };
    out['editloc.precision'] = { value: precision };
  }
  return out;
}

/**
 * Files and definitions are items, so their counts go with the value (and the report adds a Wilson
 * interval). Bytes and lines are not independent trials: an interval over them would be falsely narrow.
 */
function ratio(value: number, numerator: number, denominator: number, level: Level): MetricValue {
  return level === 'file' || level === 'symbol' ? { value, numerator, denominator } : { value };
}

function mean(values: readonly number[]): MetricValue {
  return { value: values.reduce((a, b) => a + b, 0) / values.length };
}

function describeErrors(errors: Readonly<Partial<Record<InstanceError, number>>>): string {
  return Object.entries(errors)
    .filter(([, n]) => n! > 0)
    .map(([e, n]) => `${n} ${e}`)
    .join(', ');
}
