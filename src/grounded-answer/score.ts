import { compareCodeUnits } from '../io/files.js';
import type { MetricValue } from '../metrics/spec.js';
import { contains, type Containment } from './containment.js';
import type { GoldItem } from './contract.js';
import { GROUNDED_METRICS } from './metrics/index.js';
import type { Answerable } from './metrics/spec.js';
import { metricValues, populationSize, tally, type Tally } from './metrics/tally.js';
import { isRefusal as textRefusal, refusalRule } from './refusal.js';
import { FAILURE_LABELS, severity, type Label } from './labels.js';
import type { RunTable } from './pipeline/runs.js';
import type { ScoreOptions } from './score-options.js';

export type { ScoreOptions } from './score-options.js';

/** Whether a claim is `token` by the refusal rule's text, with no phrases or patterns (docs/metrics.md). */
export function isRefusal(claim: string, token: string): boolean {
  return textRefusal(claim, refusalRule(token));
}

export interface Counts {
  gold: number;
  answerable: number;
  unanswerable: number;
  traced: number;
  answered: number;
  refused: number;
  missing: number;
}

/** C: some gold substring occurs in the claim, case-insensitively, a short one as a whole word. */
export function containsClaim(claim: string, gold: Containment): boolean {
  return contains(claim.toLowerCase(), gold);
}

export type { Answerable } from './metrics/spec.js';

/** The column of `gold`'s answerability. */
export function answerableOf(gold: readonly Pick<GoldItem, 'answerable'>[]): Uint8Array {
  const out = new Uint8Array(gold.length);
  for (let row = 0; row < gold.length; row++) out[row] = gold[row]!.answerable ? 1 : 0;
  return out;
}

/**
 * The suite metrics from every gold item's judged winning run, each metric of the table (metrics/index.ts) from
 * one tally of the rows; the tally is returned for the failing columns. Pure.
 */
export function aggregate(
  gold: Answerable,
  table: RunTable,
  options: ScoreOptions,
): { metrics: Record<string, MetricValue>; counts: Counts; tally: Tally } {
  const t = tally(gold, table, options.cutoffs.length);
  const traced = populationSize(t, 'traced');
  const answered = populationSize(t, 'shipped');
  const answerable = populationSize(t, 'answerable');
  const counts = {
    gold: gold.length,
    answerable,
    unanswerable: gold.length - answerable,
    traced,
    answered,
    refused: traced - answered,
    missing: gold.length - traced,
  };
  return { metrics: metricValues(GROUNDED_METRICS, t, options), counts, tally: t };
}

/**
 * The rows of failing items, most severe label first, then by qid; `worst(row)` is a row's most severe label
 * (undefined or a pass label when it passed). Rows are dealt into one bucket per severity (a handful), each
 * sorted by qid only when it is not in qid order already, as rows of a gold set kept in id order are: a
 * comparison sort of a 1x run's 46k offenders took 30 ms. Rows, not items: of a large run's offenders a report
 * shows a thousand, and 46k objects made to be sorted and counted cost a merge 0.1 s, mostly in the collector.
 */
export function offendingRows(qids: readonly string[], worst: (row: number) => Label | undefined): number[] {
  const buckets: number[][] = [];
  for (let row = 0; row < qids.length; row++) {
    const label = worst(row);
    // A pass label's severity is past the failures'.
    const rank = label === undefined ? FAILURE_LABELS.length : severity(label);
    if (rank < FAILURE_LABELS.length) (buckets[rank] ??= []).push(row);
  }
  const out: number[] = [];
  for (const bucket of buckets) {
    if (!bucket) continue;
    let ordered = true;
    for (let i = 1; i < bucket.length && ordered; i++) ordered = qids[bucket[i - 1]!]! <= qids[bucket[i]!]!;
    // Array sort is stable: rows of one qid keep their order, as in the ordered case.
    if (!ordered) bucket.sort((a, b) => compareCodeUnits(qids[a]!, qids[b]!));
    for (const row of bucket) out.push(row);
  }
  return out;
}
