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

export interface ItemVerdict {
  gold: GoldItem;
  run?: TraceRun;
  labels: Label[];
  /** The contradiction rule the claim broke, when one did. */
  brokenRule?: CompiledRule;
}

export interface QaScore {
  metrics: Record<string, MetricValue>;
  counts: {
    gold: number;
    answerable: number;
    unanswerable: number;
    traced: number;
    answered: number;
    refused: number;
    missing: number;
  };
  items: ItemVerdict[];
}

export function isRefusal(claim: string, token: string): boolean {
  return claim.trim().toLowerCase() === token.trim().toLowerCase();
}

/** C: some gold substring occurs in the claim, case-insensitively. */
export function containsClaim(claim: string, substrings: readonly string[]): boolean {
  const lower = claim.toLowerCase();
  return substrings.some((s) => lower.includes(s.toLowerCase()));
}

/** Scores every gold item against its winning run. Pure: same inputs, same output. */
export function scoreGroundedQa(
  gold: readonly GoldItem[],
  runs: ReadonlyMap<string, TraceRun>,
  options: ScoreOptions,
): QaScore {
  let answerable = 0;
  let unanswerable = 0;
  let shipped = 0;
  let refused = 0;
  let correctShipped = 0;
  let citedShipped = 0;
  let shippedUnanswerable = 0;
  let refusedAnswerable = 0;
  let shippedWithConstraints = 0;
  let violations = 0;
  const recallHits = new Map(options.cutoffs.map((k) => [k, 0]));
  const upperHits = new Map(options.cutoffs.map((k) => [k, 0]));
  const items: ItemVerdict[] = [];

  for (const item of gold) {
    if (item.answerable) answerable++;
    else unanswerable++;
    const run = runs.get(item.qid);

    // Retrieval is judged even when the answer was refused: recall is about what reached the model.
    if (item.answerable && run) {
      for (const k of options.cutoffs) {
        const top = new Set(run.retrieved.slice(0, k));
        if (item.citations.every((c) => top.has(c))) recallHits.set(k, recallHits.get(k)! + 1);
      }
    }

    if (!run) {
      items.push({ gold: item, labels: ['missing_trace'] });
      continue;
    }
    if (isRefusal(run.claim, options.refusalToken)) {
      refused++;
      if (item.answerable) refusedAnswerable++;
      items.push({ gold: item, run, labels: [item.answerable ? 'over_refusal' : 'refusal_ok'] });
      continue;
    }

    shipped++;
    const labels: Label[] = [];
    const goldCitations = new Set(item.citations);
    const retrieved = new Set(run.retrieved);
    const inScope = run.citations.every((c) => retrieved.has(c));
    const hitsGold = run.citations.some((c) => goldCitations.has(c));
    if (!inScope) labels.push('citation_out_of_scope');
    // An unanswerable item has no gold citation to hit: under_refusal already says what went wrong.
    if (!hitsGold && item.answerable) labels.push('citation_miss');
    const hit = inScope && hitsGold;
    if (hit) citedShipped++;

    for (const k of options.cutoffs) {
      if (run.retrieved.slice(0, k).some((id) => goldCitations.has(id)))
        upperHits.set(k, upperHits.get(k)! + 1);
    }

    let constraintsOk = true;
    let brokenRule: CompiledRule | undefined;
    if (options.scuRules && item.constraints.length > 0) {
      shippedWithConstraints++;
      brokenRule = contradiction(run.claim, item.constraints, options.scuRules);
      constraintsOk = echoMatches(run.constraintsEcho, item.constraints) && !brokenRule;
      if (!constraintsOk) {
        violations++;
        labels.push('scu_violation');
      }
    }

    if (item.answerable) {
      const contained = containsClaim(run.claim, item.claimSubstrings);
      if (!contained) labels.push('claim_miss');
      if (contained && hit && constraintsOk) correctShipped++;
    } else {
      shippedUnanswerable++;
      labels.push('under_refusal');
    }
    items.push({ gold: item, run, labels: labels.length ? sortLabels(labels) : ['ok'], brokenRule });
  }

  const total = gold.length;
  const traced = items.filter((i) => i.run).length;
  const metrics: Record<string, MetricValue> = {
    precision: proportion(correctShipped, shipped, 'no shipped answers (every traced item was refused)'),
    chr: proportion(citedShipped, shipped, 'no shipped answers (every traced item was refused)'),
    under_refusal: proportion(shippedUnanswerable, unanswerable, 'gold has no unanswerable items'),
    over_refusal: proportion(refusedAnswerable, answerable, 'gold has no answerable items'),
  };
  for (const k of options.cutoffs) {
    metrics[`recall@${k}`] = proportion(recallHits.get(k)!, answerable, 'gold has no answerable items');
  }
  for (const k of options.cutoffs) {
    metrics[`chr@${k}_upper_bound`] = proportion(upperHits.get(k)!, shipped, 'no shipped answers');
  }
  if (options.scuRules) {
    metrics.scu_violations = count(violations);
    metrics.constraint_integrity = proportion(
      shippedWithConstraints - violations,
      shippedWithConstraints,
      'no shipped answer has gold constraints',
    );
  } else {
    metrics.scu_violations = notComputable('scu not enabled');
    metrics.constraint_integrity = notComputable('scu not enabled');
  }
  metrics.coverage = proportion(traced, total, 'gold set is empty');

  return {
    metrics,
    counts: {
      gold: total,
      answerable,
      unanswerable,
      traced,
      answered: shipped,
      refused,
      missing: total - traced,
    },
    items,
  };
}

/** Failing items, most severe label first, then by qid. */
export function offendingItems(items: readonly ItemVerdict[]): ItemVerdict[] {
  return items
    .filter((i) => !(i.labels.length === 1 && (i.labels[0] === 'ok' || i.labels[0] === 'refusal_ok')))
    .sort(
      (a, b) => severity(a.labels[0]!) - severity(b.labels[0]!) || compareCodeUnits(a.gold.qid, b.gold.qid),
    );
}
