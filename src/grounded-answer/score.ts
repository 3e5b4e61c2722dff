import type { TraceInput } from './source.js';
import { compareCodeUnits } from '../io/files.js';
import { count, notComputable, proportion, type MetricValue } from '../metrics/spec.js';
import type { GoldItem } from './contract.js';
import { CONSTRAINED, CORRECT, HIT, isRefusal as refusalMatches, REFUSED, VIOLATION } from './judge.js';
import { severity, type Label } from './labels.js';
import type { RunTable } from './runs.js';
import type { CompiledRule } from './scu.js';

export interface ScoreOptions {
  refusalToken: string;
  /** The contradiction rules when `scu` is on; null when it is off (then K always holds). */
  scuRules: readonly CompiledRule[] | null;
  /** Cutoffs at which `recall@k` and `chr@k_upper_bound` are computed. */
  cutoffs: readonly number[];
  /** How the traces are read; canonical JSON Lines when absent. */
  traces?: TraceInput;
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

export function isRefusal(claim: string, token: string): boolean {
  return refusalMatches(claim, token.trim().toLowerCase());
}

/** C: some gold substring occurs in the claim, case-insensitively. */
export function containsClaim(claim: string, substrings: readonly string[]): boolean {
  const lower = claim.toLowerCase();
  return substrings.some((s) => lower.includes(s.toLowerCase()));
}

/** Each gold item's answerability, in row order: a column, so a merge needs no object per item. */
export type Answerable = ArrayLike<boolean | number>;

/** The column of `gold`'s answerability. */
export function answerableOf(gold: readonly Pick<GoldItem, 'answerable'>[]): Uint8Array {
  const out = new Uint8Array(gold.length);
  for (let row = 0; row < gold.length; row++) out[row] = gold[row]!.answerable ? 1 : 0;
  return out;
}

/** The suite metrics from every gold item's judged winning run. Pure. */
export function aggregate(
  gold: Answerable,
  table: RunTable,
  options: ScoreOptions,
): { metrics: Record<string, MetricValue>; counts: Counts } {
  let answerable = 0;
  let traced = 0;
  let shipped = 0;
  let refused = 0;
  let correct = 0;
  let hit = 0;
  let shippedUnanswerable = 0;
  let refusedAnswerable = 0;
  let constrained = 0;
  let violations = 0;
  const c = options.cutoffs.length;
  const recall = options.cutoffs.map(() => 0);
  const upper = options.cutoffs.map(() => 0);
  for (let row = 0; row < gold.length; row++) {
    const isAnswerable = gold[row];
    if (isAnswerable) answerable++;
    if (!table.present[row]) continue;
    traced++;
    const flags = table.flags[row]!;
    for (let j = 0; j < c; j++) recall[j]! += table.recall[row * c + j]!;
    if (flags & REFUSED) {
      refused++;
      if (isAnswerable) refusedAnswerable++;
      continue;
    }
    shipped++;
    if (flags & CORRECT) correct++;
    if (flags & HIT) hit++;
    if (!isAnswerable) shippedUnanswerable++;
    if (flags & CONSTRAINED) constrained++;
    if (flags & VIOLATION) violations++;
    for (let j = 0; j < c; j++) upper[j]! += table.upper[row * c + j]!;
  }
  const unanswerable = gold.length - answerable;
  const noneShipped = 'no shipped answers (every traced item was refused)';
  const metrics: Record<string, MetricValue> = {
    precision: proportion(correct, shipped, noneShipped),
    chr: proportion(hit, shipped, noneShipped),
    under_refusal: proportion(shippedUnanswerable, unanswerable, 'gold has no unanswerable items'),
    over_refusal: proportion(refusedAnswerable, answerable, 'gold has no answerable items'),
  };
  options.cutoffs.forEach((k, i) => {
    metrics[`recall@${k}`] = proportion(recall[i]!, answerable, 'gold has no answerable items');
  });
  options.cutoffs.forEach((k, i) => {
    metrics[`chr@${k}_upper_bound`] = proportion(upper[i]!, shipped, 'no shipped answers');
  });
  if (options.scuRules) {
    metrics.scu_violations = count(violations);
    metrics.constraint_integrity = proportion(
      constrained - violations,
      constrained,
      'no shipped answer has gold constraints',
    );
  } else {
    metrics.scu_violations = notComputable('scu not enabled');
    metrics.constraint_integrity = notComputable('scu not enabled');
  }
  metrics.coverage = proportion(traced, gold.length, 'gold set is empty');
  const counts = {
    gold: gold.length,
    answerable,
    unanswerable,
    traced,
    answered: shipped,
    refused,
    missing: gold.length - traced,
  };
  return { metrics, counts };
}

export function passes(labels: readonly Label[]): boolean {
  return labels[0] === 'ok' || labels[0] === 'refusal_ok';
}

/**
 * Failing items, most severe label first, then by qid. Dealt into one bucket per severity (a handful), each
 * sorted by qid only when it is not in qid order already, as items of a gold set kept in id order are: a
 * comparison sort of a 1x run's 46k offenders took 30 ms.
 */
export function offendingItems<T extends { qid: string; labels: Label[] }>(items: readonly T[]): T[] {
  const buckets: T[][] = [];
  for (const item of items) if (!passes(item.labels)) (buckets[severity(item.labels[0]!)] ??= []).push(item);
  const out: T[] = [];
  for (const bucket of buckets) {
    if (!bucket) continue;
    let ordered = true;
    for (let i = 1; i < bucket.length && ordered; i++) ordered = bucket[i - 1]!.qid <= bucket[i]!.qid;
    // Array sort is stable: items of one qid keep their order, as in the ordered case.
    if (!ordered) bucket.sort((a, b) => compareCodeUnits(a.qid, b.qid));
    for (const item of bucket) out.push(item);
  }
  return out;
}
