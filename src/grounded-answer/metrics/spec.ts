import type { MetricSpec } from '../../metrics/spec.js';
import type { ScoreOptions } from '../score-options.js';
import { CONSTRAINED, REFUSED } from '../verdict-flags.js';

// A grounded-qa metric in one file, as trec_eval has one m_<name>.c per measure: what it counts over, what it
// counts, and when an item fails it. Every metric reads the same per-item word (see `Item`); tally.ts counts
// the rows once and each metric divides.

/** Each gold item's answerability, in row order: a column, so a merge needs no object per item. */
export type Answerable = ArrayLike<boolean | number>;

/**
 * An item as the metrics see it: its winning run's verdict flags (verdict-flags.ts; 0 without a run), with
 * TRACED set when it has a run and ANSWERABLE when gold says it is answerable. The flags leave both bits free.
 */
export type Item = number;
export const TRACED = 1 << 29;
export const ANSWERABLE = 1 << 30;

export const traced = (item: Item): boolean => (item & TRACED) !== 0;
export const answerable = (item: Item): boolean => (item & ANSWERABLE) !== 0;
/** A run that answered: traced and not refused. */
export const shipped = (item: Item): boolean => traced(item) && (item & REFUSED) === 0;
export const refused = (item: Item): boolean => traced(item) && (item & REFUSED) !== 0;

/**
 * The sets of items a metric counts over. The first three are decided by gold alone, so a baseline on the same
 * gold has the same members: they are the populations paired gates compare within (ItemVerdicts.populations).
 */
export const POPULATIONS = {
  gold: () => true,
  answerable,
  unanswerable: (item: Item) => !answerable(item),
  traced,
  shipped,
  constrained: (item: Item) => shipped(item) && (item & CONSTRAINED) !== 0,
} satisfies Record<string, (item: Item) => boolean>;
export type Population = keyof typeof POPULATIONS;

/** The populations decided by gold alone, in the order the suite's item verdicts list them. */
export const GOLD_POPULATIONS = ['answerable', 'unanswerable'] as const;

/** A per-item, per-cutoff column of the run table (runs.ts): 1 when the item's run meets it at that cutoff. */
export type Column = 'recall' | 'upper';

/**
 * A misread warning that puts a metric in doubt (misread.ts): the qid, retrieved ids, citations or refusals
 * read from the wrong place, or trace ids that meet no gold id (`ids`, id-misread.ts).
 */
export type Doubt = 'qid' | 'retrieved' | 'citations' | 'refusal' | 'ids';

export interface GroundedMetric extends MetricSpec {
  /** The items it counts over: a ratio's denominator. */
  population: Population;
  /** Why a ratio has no value when its population is empty. */
  empty: string;
  /** Which items of the population it counts (a ratio's numerator, a count's value); all when absent. */
  counts?: (item: Item) => boolean;
  /** A family (`{k}` in its name) sums this column at its cutoff over the counted items instead of counting them. */
  column?: Column;
  /** Why it is not computable with these options (a setting it needs is off); undefined when it is. */
  unless?: (options: ScoreOptions) => string | undefined;
  /**
   * Paired gates: whether an item of its population fails it now (ItemVerdicts.failing); `every` when every
   * item that passed on the baseline and fails now counts as its new failure (no failing column); absent when
   * an item's verdict does not tell (no paired gate). They compare within its population when gold decides it,
   * within every item otherwise (an item of any answerability can enter the shipped answers).
   */
  fails?: ((item: Item) => boolean) | 'every';
  /** The misread warnings that put it in doubt. */
  doubts: readonly Doubt[];
}
