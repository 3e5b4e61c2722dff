import { FAILURE_LABELS, PASS_LABELS, type Label } from './labels.js';
import { LOOKS_REFUSED, NO_RETRIEVED, UNCITED } from './notices.js';
import { claimRuleIndex, claimRules, MAX_CLAIM_RULES } from '../claims/rules/index.js';

// A run's verdict is one word of flags (judge.ts sets them): six facts, then one bit per label in severity
// order, then the notices (notices.ts) and which claim rule matched. Reports, merges and triage read it here.

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
export const UNDER_REFUSAL = bit('under_refusal');
export const SCU_VIOLATION = bit('scu_violation');
export const OUT_OF_SCOPE = bit('citation_out_of_scope');
export const CITATION_MISS = bit('citation_miss');
export const CLAIM_MISS = bit('claim_miss');
export const OVER_REFUSAL = bit('over_refusal');
export const OK = bit('ok');
export const REFUSAL_OK = bit('refusal_ok');
export const FAILED = LABELS.slice(0, FAILURE_LABELS.length).reduce((m, l) => m | bit(l), 0);

/**
 * Which claim rule found the claim's gold fact (`claims:`, docs/metrics.md "Claims"), beside the verdict like
 * the notices: the rule's place in the table (claims/rules/index.ts), three bits, 0 for the substring rule
 * (the seed's C). It says something only on a contained claim: matchRule reads it.
 */
const MATCH_SHIFT = 27;
const MATCH_BITS = (MAX_CLAIM_RULES - 1) << MATCH_SHIFT;

/** The bits that say the rule of this name found the fact (none for the substring rule). */
export function matchedBy(rule: string): number {
  const at = claimRuleIndex(rule);
  if (at === -1) throw new Error(`no claim rule ${JSON.stringify(rule)} in the table`);
  return at << MATCH_SHIFT;
}

/** The claim rule that matched an answered, answerable run's gold fact; undefined when none did (or no claim was judged). */
export function matchRule(flags: number): string | undefined {
  if (flags & (REFUSED | CLAIM_MISS | UNDER_REFUSAL) || !(flags & (OK | FAILED))) return undefined;
  return claimRules()[(flags & MATCH_BITS) >>> MATCH_SHIFT]?.name;
}

/**
 * The flags of a claim miss that a later rule found contained (the judge, for semantic): C holds, by `rule`,
 * and the labels are those judgeInto gives a contained claim with the same citations and constraints (CORRECT
 * when H and K hold, OK when nothing else failed). Any other word is returned as it is. HIT stays the
 * citations' verdict.
 */
export function withMatchBy(flags: number, rule: string): number {
  if (!claimMissed(flags)) return flags;
  let out = (flags & ~CLAIM_MISS) | matchedBy(rule);
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

/**
 * Whether judgeInto can give a run of an item of this answerability these flags: a rule other than the
 * substring one is named on an answered, contained claim of an answerable item only, and only a rule of the
 * table.
 */
export function isVerdict(flags: number, answerable: boolean): boolean {
  const rule = (flags & MATCH_BITS) >>> MATCH_SHIFT;
  const word = flags & ~MATCH_BITS;
  if (!VERDICTS[answerable ? 1 : 0]!.has(word)) return false;
  return rule === 0 || (rule < claimRules().length && answerable && !(word & (REFUSED | CLAIM_MISS)));
}

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
