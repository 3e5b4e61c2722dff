import { contains, containment, type Containment } from './containment.js';
import type { JudgedGold } from './gold-item.js';
import type { JudgedTrace } from './trace-scan.js';
import { FAILURE_LABELS, PASS_LABELS, type Label } from './labels.js';
import { echoMatches, type CompiledRule } from './scu.js';
import type { Verdicts } from './runs.js';
import type { ScoreOptions } from './score-options.js';
import { compileMarkers, markedCitations, type Markers } from './citation-markers.js';
import { isRefusal, refusalRule, type RefusalRule } from './refusal.js';
import { LOOKS_REFUSED, looksLikeRefusal, NO_RETRIEVED, UNCITED } from './notices.js';
import { containsNormalized, normalizeClaim, normalizeFact, type NormalizedRule } from '../claims/match.js';

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
  /** Each SCU rule's contradiction pattern, by rule index. */
  contradictions: readonly RegExp[];
  cutoffs: readonly number[];
  /** Set when a claim the substring rule misses is matched normalized (`claims:`, match normalized or semantic). */
  normalized?: NormalizedRule;
}

export function judgeItem(
  item: JudgedGold,
  rules: readonly CompiledRule[] | null,
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
    rules: constrained ? rules.flatMap((r, i) => (lowered.some((c) => r.lock.test(c)) ? [i] : [])) : [],
    ...(normalized && item.answerable && { facts: item.claimSubstrings }),
  };
}

export function judgeOptions(
  refusalToken: string,
  rules: readonly CompiledRule[] | null,
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

// A run's verdict is one word of flags: six facts, then one bit per label in severity order.
export const REFUSED = 1;
export const CORRECT = 2;
export const HIT = 4;
export const CONSTRAINED = 8;
export const VIOLATION = 16;
/** A gold citation is anywhere in retrieved_ids (answerable items): the answer could have been grounded. */
export const EVIDENCE = 32;
const LABEL_SHIFT = 6;
const LABELS: readonly Label[] = [...FAILURE_LABELS, ...PASS_LABELS];
const bit = (label: Label) => 1 << (LABEL_SHIFT + LABELS.indexOf(label));
const UNDER_REFUSAL = bit('under_refusal');
const SCU_VIOLATION = bit('scu_violation');
const OUT_OF_SCOPE = bit('citation_out_of_scope');
const CITATION_MISS = bit('citation_miss');
const CLAIM_MISS = bit('claim_miss');
const OVER_REFUSAL = bit('over_refusal');
const OK = bit('ok');
const REFUSAL_OK = bit('refusal_ok');
const FAILED = LABELS.slice(0, FAILURE_LABELS.length).reduce((m, l) => m | bit(l), 0);

/**
 * Which rule found the claim's gold fact (`claims:`, docs/metrics.md "Claims"), beside the verdict like the
 * notices: neither bit, the substring rule (the seed's C) did; MATCHED_NORMALIZED, only the normalized one
 * did; MATCHED_JUDGED, only the judge did (a miss the deterministic rules left, turned by withJudgedHit).
 */
export const MATCHED_NORMALIZED = 1 << 27;
export const MATCHED_JUDGED = 1 << 28;

/** The claim rule that matched an answered, answerable run's gold fact; undefined when none did (or no claim was judged). */
export function matchRule(flags: number): 'substring' | 'normalized' | 'judged' | undefined {
  if (flags & (REFUSED | CLAIM_MISS | UNDER_REFUSAL) || !(flags & (OK | FAILED))) return undefined;
  return flags & MATCHED_JUDGED ? 'judged' : flags & MATCHED_NORMALIZED ? 'normalized' : 'substring';
}

/**
 * The flags of a claim miss that the judge found supported: C holds, by MATCHED_JUDGED, and the labels are
 * those judgeInto gives a contained claim with the same citations and constraints (CORRECT when H and K hold,
 * OK when nothing else failed). Any other word is returned as it is. HIT stays the citations' verdict.
 */
export function withJudgedHit(flags: number): number {
  if (!claimMissed(flags)) return flags;
  let out = (flags & ~CLAIM_MISS) | MATCHED_JUDGED;
  if (out & HIT && !(out & VIOLATION)) out |= CORRECT;
  return out & FAILED ? out : out | OK;
}

/** C was false: no gold substring in the claim of an answerable item. */
export const claimMissed = (flags: number): boolean => (flags & CLAIM_MISS) !== 0;

/** No failure label in a flags word: the run passed. */
export const passed = (flags: number): boolean => (flags & FAILED) === 0;

/**
 * Every flags word judgeInto can give a run, for an unanswerable item ([0]) and an answerable one ([1]): the
 * facts it judges, each true or false, put together as it puts them. A merge refuses any other word, as
 * code reading flags (stageOf) relies on their combinations.
 */
const VERDICTS = [false, true].map((answerable) => {
  const words = new Set<number>();
  for (let facts = 0; facts < 128; facts++) {
    const [refused, retrieved, inScope, hitsGold, constrained, violated, contained] = Array.from(
      { length: 7 },
      (_, i) => (facts & (1 << i)) !== 0,
    );
    const evidence = answerable && retrieved ? EVIDENCE : 0;
    const hit = inScope && hitsGold;
    // A cited gold id in scope was retrieved; a violation needs constraints.
    if ((answerable && hit && !evidence) || (violated && !constrained)) continue;
    if (refused) {
      words.add(REFUSED | evidence | (answerable ? OVER_REFUSAL : REFUSAL_OK));
      continue;
    }
    let flags = evidence | (inScope ? 0 : OUT_OF_SCOPE) | (hit ? HIT : 0);
    if (!hitsGold && answerable) flags |= CITATION_MISS;
    if (constrained) flags |= CONSTRAINED | (violated ? SCU_VIOLATION | VIOLATION : 0);
    if (answerable) flags |= (contained ? 0 : CLAIM_MISS) | (contained && hit && !violated ? CORRECT : 0);
    else flags |= UNDER_REFUSAL;
    const word = flags & FAILED ? flags : flags | OK;
    words.add(word);
    // A contained claim's fact was found by one of three rules.
    if (answerable && contained) words.add(word | MATCHED_NORMALIZED).add(word | MATCHED_JUDGED);
  }
  // What judging notices beside the verdict: nothing retrieved (then no evidence, no hit, and an answer cites
  // nothing or out of scope); nothing cited (an answer: then nothing out of scope, no hit); a claim that reads
  // like a refusal (an answer).
  for (const w of [...words])
    for (let n = 1; n < 8; n++) {
      const notices = (n & 1 ? NO_RETRIEVED : 0) | (n & 2 ? UNCITED : 0) | (n & 4 ? LOOKS_REFUSED : 0);
      if (notices & NO_RETRIEVED && w & (EVIDENCE | HIT)) continue;
      if (notices & NO_RETRIEVED && !(w & REFUSED) && !(w & OUT_OF_SCOPE) && !(notices & UNCITED)) continue;
      if (notices & UNCITED && w & (REFUSED | HIT | OUT_OF_SCOPE)) continue;
      if (notices & LOOKS_REFUSED && w & REFUSED) continue;
      words.add(w | notices);
    }
  return words;
});

/** Whether judgeInto can give a run of an item of this answerability these flags. */
export const isVerdict = (flags: number, answerable: boolean): boolean =>
  VERDICTS[answerable ? 1 : 0]!.has(flags);

/** The most severe label in a flags word: labelsOf(flags)[0], without the list. */
export function worstLabel(flags: number): Label | undefined {
  for (let i = 0; i < LABELS.length; i++) if (flags & (1 << (LABEL_SHIFT + i))) return LABELS[i];
  return undefined;
}

/** The labels in a flags word, most severe first. */
export function labelsOf(flags: number): Label[] {
  const out: Label[] = [];
  for (let i = 0; i < LABELS.length; i++) if (flags & (1 << (LABEL_SHIFT + i))) out.push(LABELS[i]!);
  return out;
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
      if (options.contradictions[r]!.test(lower)) {
        table.rule[row] = r;
        break;
      }
    }
    constraintsOk = table.rule[row] === -1 && echoMatches(t.answer_json.constraints_echo, item.constraints);
    if (!constraintsOk) flags |= SCU_VIOLATION | VIOLATION;
  }

  if (item.answerable) {
    lower ??= claim.toLowerCase();
    let contained = contains(lower, item);
    if (
      !contained &&
      item.facts &&
      options.normalized &&
      containsFact(claim, item.facts, options.normalized)
    ) {
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
