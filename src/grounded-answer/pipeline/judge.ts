import { containment } from '../containment.js';
import type { JudgedGold } from '../gold-item.js';
import type { JudgedTrace } from '../trace-scan.js';
import { compiled } from '../../config/pattern.js';
import { echoMatches, type ScuRule } from '../scu.js';
import type { Verdicts } from './runs.js';
import type { ScoreOptions } from '../score-options.js';
import { compileMarkers, markedCitations, type Markers } from '../citation-markers.js';
import { isRefusal, refusalRule, type RefusalRule } from '../refusal.js';
import { LOOKS_REFUSED, looksLikeRefusal, NO_RETRIEVED, UNCITED } from '../notices.js';
import {
  CITATION_MISS,
  CLAIM_MISS,
  CONSTRAINED,
  CORRECT,
  EVIDENCE,
  FAILED,
  HIT,
  matchedBy,
  OK,
  OUT_OF_SCOPE,
  OVER_REFUSAL,
  REFUSAL_OK,
  REFUSED,
  SCU_VIOLATION,
  UNDER_REFUSAL,
  VIOLATION,
} from '../verdict-flags.js';
import { claimMatching, ruleToMatch, type ClaimMatching } from '../../claims/rules/index.js';
import type { GoldFacts } from '../../claims/rules/types.js';

/**
 * A gold item reduced to what judging a run needs, with every per-item step (lowercasing, trimming, which
 * SCU locks apply) done once at load instead of once per trace line. Plain data: it crosses to workers.
 */
export interface JudgeItem extends GoldFacts {
  answerable: boolean;
  citations: string[];
  /** The locked constraints when SCU judges this item; null when it does not. */
  constraints: string[] | null;
  /** Indexes of the SCU rules whose lock matches one of the item's constraints, in rule order. */
  rules: number[];
}

export interface JudgeOptions {
  refusal: RefusalRule;
  /** How citations are read from the claim (`citation_markers`); absent when the trace lists them. */
  markers?: Markers;
  /** Each SCU rule's contradiction pattern (its source: see pattern.ts), by rule index. */
  contradictions: readonly string[];
  cutoffs: readonly number[];
  /** The claim rule (`claims:`; the substring rule without it) and its options. */
  claims: ClaimMatching;
}

export function judgeItem(item: JudgedGold, rules: readonly ScuRule[] | null): JudgeItem {
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
    facts: item.claimSubstrings,
  };
}

export function judgeOptions(
  refusalToken: string,
  rules: readonly ScuRule[] | null,
  cutoffs: readonly number[],
  more: Pick<ScoreOptions, 'refusal' | 'markers' | 'claims'> = {},
): JudgeOptions {
  return {
    refusal: refusalRule(refusalToken, more.refusal),
    ...(more.markers && { markers: compileMarkers(more.markers) }),
    claims: claimMatching(more.claims),
    contradictions: (rules ?? []).map((r) => r.contradiction),
    cutoffs,
  };
}

/**
 * Judges one run of one gold item (seed 004's C, H, K and the per-item label) into row `row` of `table`.
 * It allocates only the lowercased claim, once, for every check that reads it: a million lines are judged as read.
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

  lower ??= claim.toLowerCase();
  if (item.answerable) {
    const { rule, with: ruleOptions } = options.claims;
    const found = ruleToMatch(rule).match(claim, lower, item, ruleOptions);
    if (found === undefined) flags |= CLAIM_MISS;
    else flags |= matchedBy(found) | (hit && constraintsOk ? CORRECT : 0);
  } else {
    flags |= UNDER_REFUSAL;
  }
  if (looksLikeRefusal(lower)) flags |= LOOKS_REFUSED;
  table.flags[row] = flags & FAILED ? flags : flags | OK;
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
