import { contains, containment, type Containment } from './containment.js';
import type { JudgedGold } from './gold-item.js';
import type { JudgedTrace } from './trace-scan.js';
import { compiled } from '../config/pattern.js';
import { echoMatches, type ScuRule } from './scu.js';
import type { Verdicts } from './runs.js';
import type { ScoreOptions } from './score-options.js';
import { compileMarkers, markedCitations, type Markers } from './citation-markers.js';
import { isRefusal, refusalRule, type RefusalRule } from './refusal.js';
import { LOOKS_REFUSED, looksLikeRefusal, NO_RETRIEVED, UNCITED } from './notices.js';
import {
  CITATION_MISS,
  CLAIM_MISS,
  CONSTRAINED,
  CORRECT,
  EVIDENCE,
  FAILED,
  HIT,
  MATCHED_NORMALIZED,
  OK,
  OUT_OF_SCOPE,
  OVER_REFUSAL,
  REFUSAL_OK,
  REFUSED,
  SCU_VIOLATION,
  UNDER_REFUSAL,
  VIOLATION,
} from './verdict-flags.js';
import {
  containsChecked,
  containsNormalized,
  normalizeClaim,
  normalizeFact,
  type NormalizedRule,
} from '../claims/match.js';

/**
 * A gold item reduced to what judging a run needs, with every per-item step (lowercasing, trimming, which
 * SCU locks apply) done once at load instead of once per trace line. Plain data: it crosses to workers.
 */
export interface JudgeItem extends Containment {
  answerable: boolean;
  citations: string[];
  /** The locked constraints when SCU judges this item; null when it does not. */
  constraints: string[] | null;
  /** Indexes of the SCU rules whose lock matches one of the item's constraints, in rule order. */
  rules: number[];
  /**
   * The gold substrings as written, when claims the substring rule misses are matched normalized
   * (JudgeOptions.normalized): made tokens only for such a claim, once, as an item has one scored run.
   */
  facts?: string[];
}

export interface JudgeOptions {
  refusal: RefusalRule;
  /** How citations are read from the claim (`citation_markers`); absent when the trace lists them. */
  markers?: Markers;
  /** Each SCU rule's contradiction pattern (its source: see pattern.ts), by rule index. */
  contradictions: readonly string[];
  cutoffs: readonly number[];
  /**
   * Set when claims are matched normalized (`claims:`, match normalized or semantic): substring hits pass the
   * normalized checks, and a claim without one is matched normalized.
   */
  normalized?: NormalizedRule;
}

export function judgeItem(
  item: JudgedGold,
  rules: readonly ScuRule[] | null,
  // Required, though often undefined: a judging site that forgot it would silently match by substring alone.
  normalized: NormalizedRule | undefined,
): JudgeItem {
  const constrained = rules !== null && item.constraints.length > 0;
  const lowered = item.constraints.map((c) => c.toLowerCase());
  const { substrings, words } = containment(item.claimSubstrings);
  return {
    answerable: item.answerable,
    citations: item.citations,
    substrings,
    words,
    constraints: constrained ? item.constraints : null,
    rules: constrained
      ? rules.flatMap((r, i) => (lowered.some((c) => compiled(r.lock).test(c)) ? [i] : []))
      : [],
    ...(normalized && item.answerable && { facts: item.claimSubstrings }),
  };
}

export function judgeOptions(
  refusalToken: string,
  rules: readonly ScuRule[] | null,
  cutoffs: readonly number[],
  more: Pick<ScoreOptions, 'refusal' | 'markers' | 'claims'> = {},
): JudgeOptions {
  const claims = more.claims;
  return {
    refusal: refusalRule(refusalToken, more.refusal),
    ...(more.markers && { markers: compileMarkers(more.markers) }),
    ...(claims &&
      claims.match !== 'substring' && {
        normalized: { nfkc: claims.nfkc, minTokenRecall: claims.min_token_recall },
      }),
    contradictions: (rules ?? []).map((r) => r.contradiction),
    cutoffs,
  };
}

/**
 * Judges one run of one gold item (seed 004's C, H, K and the per-item label) into row `row` of `table`.
 * It allocates only the lowercased claim, and only when a check needs it: a million lines are judged as read.
 */
export function judgeInto(
  item: JudgeItem,
  t: JudgedTrace,
  options: JudgeOptions,
  table: Verdicts,
  row: number,
): void {
  const retrieved = t.retrieved_ids;
  const claim = t.answer_json.claim;
  const { cutoffs } = options;
  const base = row * cutoffs.length;
  // Retrieval is judged even when the answer was refused: recall is about what reached the model.
  for (let j = 0; j < cutoffs.length; j++) {
    table.recall[base + j] = item.answerable && allWithin(item.citations, retrieved, cutoffs[j]!) ? 1 : 0;
    table.upper[base + j] = 0;
  }
  table.rule[row] = -1;
  const evidence = item.answerable && anyWithin(item.citations, retrieved, retrieved.length) ? EVIDENCE : 0;
  const nothing = retrieved.length === 0 ? NO_RETRIEVED : 0;
  if (t.refused ?? isRefusal(claim, options.refusal)) {
    table.flags[row] = REFUSED | evidence | (item.answerable ? OVER_REFUSAL : REFUSAL_OK) | nothing;
    return;
  }

  let cited = t.answer_json.citations;
  let inScope = true;
  if (options.markers) {
    const marked = markedCitations(claim, retrieved, options.markers);
    cited = marked.ids;
    inScope = !marked.stray;
  }
  let flags = evidence | nothing | (cited.length === 0 && inScope ? UNCITED : 0);
  if (cited.length > 32 && retrieved.length > 32) {
    // A claim of thousands of markers over as many retrieved ids took seconds checked pairwise.
    const given = new Set(retrieved);
    for (let i = 0; i < cited.length && inScope; i++) inScope = given.has(cited[i]!);
  } else for (let i = 0; i < cited.length && inScope; i++) inScope = retrieved.includes(cited[i]!);
  let hitsGold = false;
  for (let i = 0; i < cited.length && !hitsGold; i++) hitsGold = item.citations.includes(cited[i]!);
  if (!inScope) flags |= OUT_OF_SCOPE;
  // An unanswerable item has no gold citation to hit: under_refusal already says what went wrong.
  if (!hitsGold && item.answerable) flags |= CITATION_MISS;
  const hit = inScope && hitsGold;
  if (hit) flags |= HIT;
  for (let j = 0; j < cutoffs.length; j++)
    table.upper[base + j] = anyWithin(item.citations, retrieved, cutoffs[j]!) ? 1 : 0;

  let lower: string | undefined;
  let constraintsOk = true;
  if (item.constraints !== null) {
    flags |= CONSTRAINED;
    lower = claim.toLowerCase();
    for (const r of item.rules) {
      if (compiled(options.contradictions[r]!).test(lower)) {
        table.rule[row] = r;
        break;
      }
    }
    constraintsOk = table.rule[row] === -1 && echoMatches(t.answer_json.constraints_echo, item.constraints);
    if (!constraintsOk) flags |= SCU_VIOLATION | VIOLATION;
  }

  if (item.answerable) {
    const normalized = item.facts && options.normalized;
    // Under the normalized rule a substring hit passes its checks too: `12 GB` does not contain `2 GB`.
    let contained = normalized
      ? containsChecked(claim, item.facts!, normalized)
      : contains((lower ??= claim.toLowerCase()), item);
    if (!contained && normalized && containsFact(claim, item.facts!, normalized)) {
      contained = true;
      flags |= MATCHED_NORMALIZED;
    }
    if (!contained) flags |= CLAIM_MISS;
    if (contained && hit && constraintsOk) flags |= CORRECT;
  } else {
    flags |= UNDER_REFUSAL;
  }
  if (looksLikeRefusal(lower ?? claim.toLowerCase())) flags |= LOOKS_REFUSED;
  table.flags[row] = flags & FAILED ? flags : flags | OK;
}

/** Whether the claim contains any of the facts by the normalized rule: the claim is normalized once. */
function containsFact(claim: string, facts: readonly string[], rule: NormalizedRule): boolean {
  const tokens = normalizeClaim(claim, rule);
  for (let i = 0; i < facts.length; i++)
    if (containsNormalized(tokens, normalizeFact(facts[i]!, rule), rule)) return true;
  return false;
}

function allWithin(ids: readonly string[], list: readonly string[], k: number): boolean {
  for (let i = 0; i < ids.length; i++) {
    const at = list.indexOf(ids[i]!);
    if (at === -1 || at >= k) return false;
  }
  return true;
}

function anyWithin(ids: readonly string[], list: readonly string[], k: number): boolean {
  for (let i = 0; i < ids.length; i++) {
    const at = list.indexOf(ids[i]!);
    if (at !== -1 && at < k) return true;
  }
  return false;
}
