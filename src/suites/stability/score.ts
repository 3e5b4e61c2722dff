import { compareCodeUnits } from '../../io/files.js';
import { normalizedEditDistance } from '../../metrics/edit-distance.js';
import { percentile, sortedSamples } from '../../metrics/percentile.js';
import { intersectionOverUnion } from '../../metrics/set-overlap.js';
import { count, notComputable, proportion, type MetricValue } from '../../metrics/spec.js';
import { containment } from '../../grounded-answer/containment.js';
import type { GoldItem } from '../../grounded-answer/contract.js';
import { containsClaim } from '../../grounded-answer/score.js';
import { compiled } from '../../config/pattern.js';
import { isRefusal, refusalRule, type RefusalSettings } from '../../grounded-answer/refusal.js';
import type { MarkerSettings } from '../../grounded-answer/citation-markers.js';
import { echoMatches } from '../../grounded-answer/scu.js';
import { CHECKS, type Check, type StabilityRun, type Thresholds } from './contract.js';

export interface StabilityOptions {
  refusalToken: string;
  /** `refusal:`'s phrases and patterns, beside the token. */
  refusal?: RefusalSettings;
  /** `citation_markers:`: the claims are compared without their markers (citations have checks of their own). */
  markers?: MarkerSettings;
  thresholds: Thresholds;
  /** Fewer runs than this say nothing about stability: the question is unstable (`too_few_runs`). */
  minRuns: number;
}

export type Label = Check | 'too_few_runs' | 'missing_runs';

export interface QuestionScore {
  gold: GoldItem;
  runs: readonly StabilityRun[];
  /** Null where a check does not apply or cannot be computed (see docs/metrics.md). */
  values: Record<Check, number | null>;
  /** The checks that failed, most severe first, then `too_few_runs` / `missing_runs`. */
  labels: Label[];
}

const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/**
 * The seed reference's canon(): lowercase, trim, drop ASCII punctuation, collapse whitespace runs to one
 * space (in that order, so a space left where punctuation ended a claim stays).
 */
export function canonicalClaim(claim: string): string {
  return claim.toLowerCase().trim().replace(ASCII_PUNCTUATION, '').replace(/\s+/g, ' ');
}

/** H as in grounded-qa: cites some gold id, and cites only retrieved ids. */
function citationHit(run: StabilityRun, goldCitations: ReadonlySet<string>): boolean {
  const retrieved = new Set(run.retrieved);
  return run.citations.some((c) => goldCitations.has(c)) && run.citations.every((c) => retrieved.has(c));
}

/** Median normalized edit distance over every pair of shipped claims; undefined with fewer than two. */
export function medianPairwiseDistance(claims: readonly string[]): number | undefined {
  const distances: number[] = [];
  for (let i = 0; i < claims.length; i++) {
    for (let j = i + 1; j < claims.length; j++)
      distances.push(normalizedEditDistance(claims[i]!, claims[j]!));
  }
  return percentile(sortedSamples(distances), 50);
}

export function scoreQuestion(
  gold: GoldItem,
  runs: readonly StabilityRun[],
  options: StabilityOptions,
): QuestionScore {
  const n = runs.length;
  if (n === 0) {
    const values = Object.fromEntries(CHECKS.map((c) => [c, null])) as Record<Check, number | null>;
    return { gold, runs, values, labels: ['missing_runs'] };
  }
  const rule = refusalRule(options.refusalToken, options.refusal);
  const markers = options.markers && compiled(options.markers.pattern);
  const refusedRun = (r: StabilityRun) => r.refused ?? isRefusal(r.claim, rule);
  const refused = runs.filter(refusedRun).length;
  const goldCitations = new Set(gold.citations);
  const goldClaim = containment(gold.claimSubstrings);
  // As in the reference, an empty claim is not a claim to compare.
  const shipped = runs
    .filter((r) => r.claim !== '' && !refusedRun(r))
    .map((r) => canonicalClaim(markers ? markers.matcher(r.claim).replaceAll('') : r.claim));
  const values: Record<Check, number | null> = {
    refusal_consistency: Math.max(refused, n - refused) / n,
    constraint_echo_consistency:
      gold.constraints.length === 0
        ? null
        : runs.every((r) => echoMatches(r.constraintsEcho, gold.constraints))
          ? 1
          : 0,
    containment_rate: gold.answerable
      ? runs.filter((r) => containsClaim(r.claim, goldClaim)).length / n
      : null,
    citation_hit_rate: gold.answerable ? runs.filter((r) => citationHit(r, goldCitations)).length / n : null,
    citation_stability: intersectionOverUnion(runs.map((r) => r.citations)),
    claim_edit_distance_median: medianPairwiseDistance(shipped) ?? null,
  };

  const t = options.thresholds;
  const failed = (check: Check): boolean => {
    const v = values[check];
    if (v === null) return false;
    return check === 'claim_edit_distance_median' ? v > t[check] : v < t[check];
  };
  // The seed's split: answerable questions must keep claim, citations and echo; unanswerable ones the refusal.
  const applies: readonly Check[] = gold.answerable
    ? [
        'constraint_echo_consistency',
        'containment_rate',
        'citation_hit_rate',
        'citation_stability',
        'claim_edit_distance_median',
      ]
    : ['refusal_consistency'];
  const labels: Label[] = CHECKS.filter((c) => applies.includes(c) && failed(c));
  if (n < options.minRuns) labels.push('too_few_runs');
  return { gold, runs, values, labels };
}

export interface StabilityScore {
  metrics: Record<string, MetricValue>;
  questions: QuestionScore[];
  counts: {
    gold: number;
    answerable: number;
    unanswerable: number;
    stable: number;
    unstable: number;
    missing: number;
  };
}

const MEAN_EMPTY: Record<Check, string> = {
  refusal_consistency: 'no question has runs',
  constraint_echo_consistency: 'no question with gold constraints has runs',
  containment_rate: 'no answerable question has runs',
  citation_hit_rate: 'no answerable question has runs',
  citation_stability: 'no question has runs',
  claim_edit_distance_median: 'no question has two shipped claims to compare',
};

/**
 * Scores every gold question over its runs. A question with runs is stable when no threshold that applies
 * to it fails and it has at least `minRuns` runs; the suite's figures are over questions with runs.
 */
export function scoreStability(
  gold: readonly GoldItem[],
  runs: ReadonlyMap<string, readonly StabilityRun[]>,
  options: StabilityOptions,
): StabilityScore {
  const questions = gold.map((g) => scoreQuestion(g, runs.get(g.qid) ?? [], options));
  const scored = questions.filter((q) => q.runs.length > 0);
  const stable = scored.filter((q) => q.labels.length === 0).length;
  const metrics: Record<string, MetricValue> = {
    stable_rate: proportion(stable, scored.length, 'no gold question has runs'),
    unstable_questions:
      scored.length === 0 ? notComputable('no gold question has runs') : count(scored.length - stable),
  };
  for (const check of CHECKS) {
    const values = scored.flatMap((q) => (q.values[check] === null ? [] : [q.values[check]]));
    metrics[check] =
      values.length === 0
        ? notComputable(MEAN_EMPTY[check])
        : { value: values.reduce((a, b) => a + b, 0) / values.length };
  }
  metrics.coverage = proportion(scored.length, gold.length, 'gold set is empty');
  const answerable = scored.filter((q) => q.gold.answerable).length;
  return {
    metrics,
    questions,
    counts: {
      gold: gold.length,
      answerable,
      unanswerable: scored.length - answerable,
      stable,
      unstable: scored.length - stable,
      missing: gold.length - scored.length,
    },
  };
}

const SEVERITY: readonly Label[] = [...CHECKS, 'too_few_runs', 'missing_runs'];

/** Unstable and missing questions, by their most severe label, then qid. */
export function unstableQuestions(questions: readonly QuestionScore[]): QuestionScore[] {
  return questions
    .filter((q) => q.labels.length > 0)
    .sort(
      (a, b) =>
        SEVERITY.indexOf(a.labels[0]!) - SEVERITY.indexOf(b.labels[0]!) ||
        compareCodeUnits(a.gold.qid, b.gold.qid),
    );
}

/** Distinct values with how many runs gave each, most frequent first: the differences side by side. */
export function tally(values: readonly string[], limit = 10): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const rows = [...counts].sort((a, b) => b[1] - a[1] || compareCodeUnits(a[0], b[0]));
  const shown = rows.slice(0, limit).map(([v, c]) => `${c}× ${v}`);
  if (rows.length > limit) shown.push(`… ${rows.length - limit} more`);
  return shown;
}
