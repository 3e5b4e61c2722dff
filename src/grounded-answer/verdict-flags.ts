import { FAILURE_LABELS, PASS_LABELS, type Label } from './labels.js';
import { LOOKS_REFUSED, NO_RETRIEVED, UNCITED } from './notices.js';

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
