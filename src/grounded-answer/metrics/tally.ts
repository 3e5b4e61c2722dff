import { count, notComputable, proportion, type MetricValue } from '../../metrics/spec.js';
import type { RunTable } from '../pipeline/runs.js';
import type { ScoreOptions } from '../score-options.js';
import {
  ANSWERABLE,
  GOLD_POPULATIONS,
  type Answerable,
  POPULATIONS,
  TRACED,
  type Column,
  type GroundedMetric,
  type Item,
  type Population,
} from './spec.js';

/**
 * The rows of a run table counted once for every metric: rows grouped by their item word (a few hundred words
 * at most, whatever the rows), with each group's rows and its sums of the per-cutoff columns. A metric then
 * adds up the groups it counts, so a metric more costs no pass over the rows.
 */
export interface Tally {
  /** Each distinct item word, in the order first met. */
  items: number[];
  /** How many rows have `items[g]`. */
  rows: number[];
  /** Per group and cutoff (`g * cutoffs + j`), the column's sum over the group's traced rows. */
  columns: Record<Column, number[]>;
  cutoffs: number;
  /** Each row's group, for per-item columns. */
  group: Uint32Array;
}

/** One pass over the rows. Pure. */
export function tally(
  answerable: Answerable,
  table: Pick<RunTable, 'present' | 'flags' | 'recall' | 'upper'>,
  cutoffs: number,
): Tally {
  const groupOf = new Map<number, number>();
  const items: number[] = [];
  const rows: number[] = [];
  const recall: number[] = [];
  const upper: number[] = [];
  const group = new Uint32Array(answerable.length);
  for (let row = 0; row < answerable.length; row++) {
    const present = table.present[row] === 1;
    const item = (present ? table.flags[row]! | TRACED : 0) | (answerable[row] ? ANSWERABLE : 0);
    let g = groupOf.get(item);
    if (g === undefined) {
      g = items.length;
      groupOf.set(item, g);
      items.push(item);
      rows.push(0);
      for (let j = 0; j < cutoffs; j++) {
        recall.push(0);
        upper.push(0);
      }
    }
    rows[g]!++;
    group[row] = g;
    if (!present) continue;
    for (let j = 0; j < cutoffs; j++) {
      recall[g * cutoffs + j]! += table.recall[row * cutoffs + j]!;
      upper[g * cutoffs + j]! += table.upper[row * cutoffs + j]!;
    }
  }
  return { items, rows, columns: { recall, upper }, cutoffs, group };
}

/** How many rows are in the population and, of them, what `counts` adds up (rows or a column at cutoff `j`). */
function sums(t: Tally, metric: GroundedMetric, j: number): { numerator: number; denominator: number } {
  const member = POPULATIONS[metric.population];
  let numerator = 0;
  let denominator = 0;
  for (let g = 0; g < t.items.length; g++) {
    const item = t.items[g]!;
    if (!member(item)) continue;
    denominator += t.rows[g]!;
    if (metric.counts && !metric.counts(item)) continue;
    numerator += metric.column ? t.columns[metric.column][g * t.cutoffs + j]! : t.rows[g]!;
  }
  return { numerator, denominator };
}

/** Rows in a population. */
export function populationSize(t: Tally, population: Population): number {
  const member = POPULATIONS[population];
  let n = 0;
  for (let g = 0; g < t.items.length; g++) if (member(t.items[g]!)) n += t.rows[g]!;
  return n;
}

/** A metric's value at cutoff index `j` (unused when it is no family). */
export function valueOf(metric: GroundedMetric, t: Tally, options: ScoreOptions, j: number): MetricValue {
  const off = metric.unless?.(options);
  if (off !== undefined) return notComputable(off);
  const { numerator, denominator } = sums(t, metric, j);
  return metric.unit === 'count' ? count(numerator) : proportion(numerator, denominator, metric.empty);
}

/** Every metric of `metrics` by name, each family at every cutoff of `options`, in the table's order. */
export function metricValues(
  metrics: readonly GroundedMetric[],
  t: Tally,
  options: ScoreOptions,
): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  for (const metric of metrics) {
    if (!metric.name.includes('{k}')) out[metric.name] = valueOf(metric, t, options, 0);
    else
      options.cutoffs.forEach((k, j) => {
        out[metric.name.replace('{k}', String(k))] = valueOf(metric, t, options, j);
      });
  }
  return out;
}

/** For each metric with a paired gate, which rows are in its population and fail it now (ItemVerdicts.failing). */
export function failingColumns(metrics: readonly GroundedMetric[], t: Tally): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const metric of metrics) {
    const fails = metric.fails;
    if (!fails || fails === 'every') continue;
    const member = POPULATIONS[metric.population];
    out[metric.name] = perRow(t, (item) => member(item) && fails(item));
  }
  return out;
}

/** Each population gold decides as a column of its rows (ItemVerdicts.populations). */
export function populationColumns(t: Tally): Record<(typeof GOLD_POPULATIONS)[number], Uint8Array> {
  const columns = {} as Record<(typeof GOLD_POPULATIONS)[number], Uint8Array>;
  for (const population of GOLD_POPULATIONS) {
    const member = POPULATIONS[population];
    columns[population] = perRow(t, (item) => member(item));
  }
  return columns;
}

/** A column of every row's `test` of its item, tested once per group. */
function perRow(t: Tally, test: (item: Item) => boolean): Uint8Array {
  const byGroup = Uint8Array.from(t.items, (item) => (test(item) ? 1 : 0));
  const column = new Uint8Array(t.group.length);
  for (let row = 0; row < column.length; row++) column[row] = byGroup[t.group[row]!]!;
  return column;
}
