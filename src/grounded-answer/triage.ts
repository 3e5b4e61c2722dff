import type { StageKey, TriageCounts } from '../report/triage.js';
import { claimMissed, CORRECT, EVIDENCE, HIT, REFUSED, VIOLATION } from './verdict-flags.js';
import type { RunTable } from './pipeline/runs.js';
import type { Answerable } from './score.js';

/**
 * The stage an item's scored run fails at (see report/triage.ts), from its judged flags; undefined for a
 * run that fails neither precision on an answerable item nor by over-refusing (a pass, an under-refusal,
 * an item without a run). For an answered, answerable item without CORRECT, the stages in pipeline order:
 * no gold id anywhere in retrieved_ids; else H false; else C false; else K false.
 */
export function stageOf(flags: number, answerable: boolean): StageKey | undefined {
  if (!answerable) return undefined;
  if (flags & REFUSED) return flags & EVIDENCE ? 'over_refused.retrieved' : 'over_refused.not_retrieved';
  if (flags & CORRECT) return undefined;
  if (!(flags & EVIDENCE)) return 'retrieval';
  if (!(flags & HIT)) return 'citation';
  if (claimMissed(flags)) return 'containment';
  if (flags & VIOLATION) return 'constraint';
  // CORRECT is C ∧ H ∧ K: one of them failed, so this is never reached.
  throw new Error('grounded-qa: a run that is not correct failed no stage');
}

/** The counts over every gold item's scored run. Pure. */
export function triage(gold: Answerable, table: RunTable): TriageCounts {
  const t: TriageCounts = {
    answered_wrong: { retrieval: 0, citation: 0, containment: 0, constraint: 0 },
    over_refused: { not_retrieved: 0, retrieved: 0 },
  };
  for (let row = 0; row < gold.length; row++) {
    if (!table.present[row]) continue;
    const stage = stageOf(table.flags[row]!, Boolean(gold[row]));
    if (stage === undefined) continue;
    if (stage === 'over_refused.retrieved') t.over_refused.retrieved++;
    else if (stage === 'over_refused.not_retrieved') t.over_refused.not_retrieved++;
    else t.answered_wrong[stage]++;
  }
  return t;
}
