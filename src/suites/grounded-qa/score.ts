import { compareCodeUnits } from '../../io/files.js';
import { count, notComputable, proportion, type MetricValue } from '../../metrics/spec.js';
import type { GoldItem, TraceRun } from './contract.js';
import { severity, sortLabels, type Label } from './labels.js';
import { contradiction, echoMatches, type CompiledRule } from './scu.js';

export interface ScoreOptions {
  refusalToken: string;
  /** The contradiction rules when `scu` is on; null when it is off (then K always holds). */
  scuRules: readonly CompiledRule[] | null;
  /** Cutoffs at which `recall@k` and `chr@k_upper_bound` are computed. */
  cutoffs: readonly number[];
}

/** Everything the metrics need from one run of one item: small, so a million runs can be judged as read. */
export interface Judgement {
  labels: Label[];
  refused: boolean;
  /** Shipped, answerable and C ∧ H ∧ K. */
  correct: boolean;
  /** Shipped and H. */
  hit: boolean;
  /** Shipped with constraints while scu is on (the denominator of constraint_integrity). */
  constrained: boolean;
  violation: boolean;
  /** Per cutoff: all gold citations in the top k (answerable items only). */
  recall: boolean[];
  /** Per cutoff: a gold citation in the top k (shipped items only). */
  upper: boolean[];
  brokenRule?: CompiledRule;
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
  return claim.trim().toLowerCase() === token.trim().toLowerCase();
}

/** C: some gold substring occurs in the claim, case-insensitively. */
export function containsClaim(claim: string, substrings: readonly string[]): boolean {
  const lower = claim.toLowerCase();
  return substrings.some((s) => lower.includes(s.toLowerCase()));
}

/** Judges one run of one gold item (seed 004's C, H, K and the per-item label). Pure. */
export function judge(item: GoldItem, run: TraceRun, options: ScoreOptions): Judgement {
  // Retrieval is judged even when the answer was refused: recall is about what reached the model.
  const recall = options.cutoffs.map(
    (k) => item.answerable && item.citations.every((c) => indexBelow(run.retrieved, c, k)),
  );
  const none = options.cutoffs.map(() => false);
  const base = { correct: false, hit: false, constrained: false, violation: false, recall, upper: none };
  if (isRefusal(run.claim, options.refusalToken)) {
    return { ...base, refused: true, labels: [item.answerable ? 'over_refusal' : 'refusal_ok'] };
  }

  const labels: Label[] = [];
  const inScope = run.citations.every((c) => run.retrieved.includes(c));
  const hitsGold = run.citations.some((c) => item.citations.includes(c));
  if (!inScope) labels.push('citation_out_of_scope');
  // An unanswerable item has no gold citation to hit: under_refusal already says what went wrong.
  if (!hitsGold && item.answerable) labels.push('citation_miss');
  const hit = inScope && hitsGold;
  const upper = options.cutoffs.map((k) => item.citations.some((c) => indexBelow(run.retrieved, c, k)));

  let constraintsOk = true;
  let brokenRule: CompiledRule | undefined;
  const constrained = options.scuRules !== null && item.constraints.length > 0;
  if (constrained) {
    brokenRule = contradiction(run.claim, item.constraints, options.scuRules!);
    constraintsOk = echoMatches(run.constraintsEcho, item.constraints) && !brokenRule;
    if (!constraintsOk) labels.push('scu_violation');
  }

  let correct = false;
  if (item.answerable) {
    const contained = containsClaim(run.claim, item.claimSubstrings);
    if (!contained) labels.push('claim_miss');
    correct = contained && hit && constraintsOk;
  } else {
    labels.push('under_refusal');
  }
  return {
    labels: labels.length ? sortLabels(labels) : ['ok'],
    refused: false,
    correct,
    hit,
    constrained,
    violation: !constraintsOk,
    recall,
    upper,
    brokenRule,
  };
}

function indexBelow(list: readonly string[], id: string, k: number): boolean {
  const i = list.indexOf(id);
  return i !== -1 && i < k;
}

/** The suite metrics from every gold item's judged winning run. Pure. */
export function aggregate(
  gold: readonly GoldItem[],
  judged: (qid: string) => Judgement | undefined,
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
  const recall = options.cutoffs.map(() => 0);
  const upper = options.cutoffs.map(() => 0);
  for (const item of gold) {
    if (item.answerable) answerable++;
    const j = judged(item.qid);
    if (!j) continue;
    traced++;
    j.recall.forEach((r, i) => r && recall[i]!++);
    if (j.refused) {
      refused++;
      if (item.answerable) refusedAnswerable++;
      continue;
    }
    shipped++;
    if (j.correct) correct++;
    if (j.hit) hit++;
    if (!item.answerable) shippedUnanswerable++;
    if (j.constrained) constrained++;
    if (j.violation) violations++;
    j.upper.forEach((u, i) => u && upper[i]!++);
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

export interface ItemVerdict {
  gold: GoldItem;
  run?: TraceRun;
  labels: Label[];
  brokenRule?: CompiledRule;
}

/** Judges and aggregates in one call, for callers that hold the winning runs in memory. */
export function scoreGroundedQa(
  gold: readonly GoldItem[],
  runs: ReadonlyMap<string, TraceRun>,
  options: ScoreOptions,
) {
  const judged = new Map<string, Judgement>();
  for (const item of gold) {
    const run = runs.get(item.qid);
    if (run) judged.set(item.qid, judge(item, run, options));
  }
  const items: ItemVerdict[] = gold.map((g) => {
    const j = judged.get(g.qid);
    return j
      ? { gold: g, run: runs.get(g.qid), labels: j.labels, brokenRule: j.brokenRule }
      : { gold: g, labels: ['missing_trace'] };
  });
  return { ...aggregate(gold, (qid) => judged.get(qid), options), items };
}

export function passes(labels: readonly Label[]): boolean {
  return labels[0] === 'ok' || labels[0] === 'refusal_ok';
}

/** Failing items, most severe label first, then by qid. */
export function offendingItems<T extends { gold: { qid: string }; labels: Label[] }>(
  items: readonly T[],
): T[] {
  return items
    .filter((i) => !passes(i.labels))
    .sort(
      (a, b) => severity(a.labels[0]!) - severity(b.labels[0]!) || compareCodeUnits(a.gold.qid, b.gold.qid),
    );
}
