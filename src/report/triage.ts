import { z } from 'zod';
import { claimRule, claimRuleName } from '../claims/rules/index.js';
import { substring } from '../claims/rules/substring.js';

/**
 * Where grounded answers fail, by pipeline stage (the WFGY seed's "Reading the score", made exact): each
 * answered, answerable item that fails precision counts once, at the first stage that fails; each
 * over-refusal counts by whether the evidence had been retrieved. This file is the contract: the stage
 * names in report.json, their order, and what the reports tell a team to do about each.
 */
export const ANSWERED_STAGES = ['retrieval', 'citation', 'containment', 'constraint'] as const;
export const OVER_REFUSED_STAGES = ['not_retrieved', 'retrieved'] as const;

export type AnsweredStage = (typeof ANSWERED_STAGES)[number];
export type OverRefusedStage = (typeof OVER_REFUSED_STAGES)[number];

const counts = <K extends readonly string[]>(keys: K) =>
  z.strictObject(Object.fromEntries(keys.map((k) => [k, z.int().min(0)])) as Record<K[number], z.ZodInt>);

const triageCounts = z.strictObject({
  answered_wrong: counts(ANSWERED_STAGES),
  over_refused: counts(OVER_REFUSED_STAGES),
});

export const triageSchema = triageCounts.extend({
  /** The claim rule in force when the suite sets `claims:`: what a claim must do to be contained. */
  claims: claimRuleName.optional(),
  /** The same counts in the baseline report, when it has them: what the deltas are against. */
  baseline: triageCounts.optional(),
});

export type TriageCounts = z.infer<typeof triageCounts>;
export type Triage = z.infer<typeof triageSchema>;
/** A suite's own triage: its counts, and its claim rule when it sets one. */
export type SuiteTriage = Omit<Triage, 'baseline'>;

/** An offender's `stage`: its answered-wrong stage, or `over_refused.<stage>`. */
export type StageKey = AnsweredStage | `over_refused.${OverRefusedStage}`;

export interface StageRow {
  key: StageKey;
  /** How a report names the stage. */
  title: string;
  count: number;
  /** Against the baseline; undefined without one. */
  delta?: number;
  advice: string;
}

const TITLES: Record<StageKey, string> = {
  retrieval: 'retrieval',
  citation: 'citation',
  containment: 'containment',
  constraint: 'constraint',
  'over_refused.retrieved': 'over-refused with the evidence',
  'over_refused.not_retrieved': 'over-refused without the evidence',
};

const ADVICE: Record<StageKey, string> = {
  retrieval:
    'no gold chunk reached the model: check recall@k and the retriever (index, chunking, embeddings, query rewriting, k)',
  citation:
    'the gold chunk was retrieved, but the answer cites chunks it was not given or misses the gold one: check how citations are produced from the retrieved ids',
  containment: substring.advice,
  constraint: 'right claim, broken constraint: lock the constraints and have the answer echo them (SCU)',
  'over_refused.retrieved':
    'the guard refused although the gold chunk was retrieved: the guard is too strict, or chunks split the fact across them',
  'over_refused.not_retrieved':
    'the guard was right to refuse, retrieval was not: the gold chunk never arrived; see recall@k',
};

/** Every stage with a count (or a change against the baseline), the largest first, then in pipeline order. */
export function stageRows(t: Triage): StageRow[] {
  const rows: StageRow[] = [];
  const add = (key: StageKey, count: number, base: number | undefined) => {
    const delta = base === undefined ? undefined : count - base;
    if (count > 0 || (delta ?? 0) !== 0)
      rows.push({
        key,
        title: TITLES[key],
        count,
        ...(delta === undefined ? {} : { delta }),
        // What a contained claim needs is the claim rule's to say (claims/rules/).
        advice: (key === 'containment' && t.claims && claimRule(t.claims)?.advice) || ADVICE[key],
      });
  };
  for (const s of ANSWERED_STAGES) add(s, t.answered_wrong[s], t.baseline?.answered_wrong[s]);
  for (const s of OVER_REFUSED_STAGES)
    add(`over_refused.${s}`, t.over_refused[s], t.baseline?.over_refused[s]);
  // Array.prototype.sort is stable: equal counts keep pipeline order.
  return rows.sort((a, b) => b.count - a.count);
}

/** "+9", "−2", "±0": a change in a count of items. */
export function countDelta(delta: number): string {
  return delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : '±0';
}

/** The stages on one line, the largest first: "citation 5, retrieval 2, over-refused with the evidence 1". */
export function stageLine(t: Triage): string {
  return (
    stageRows(t)
      .map((r) => `${r.title} ${r.count}`)
      .join(', ') || 'none'
  );
}

/** "23 answered wrong, 5 over-refused" */
export function triageSummary(t: Triage): string {
  const wrong = ANSWERED_STAGES.reduce((n, s) => n + t.answered_wrong[s], 0);
  const over = OVER_REFUSED_STAGES.reduce((n, s) => n + t.over_refused[s], 0);
  return `${wrong} answered wrong, ${over} over-refused`;
}

/**
 * The ids of a stage's first offenders, in offender order (report.json lists the first report_offenders).
 * The suite is typed by what is read, not as SuiteReport: report/schema.ts is built from this file.
 */
export function firstOffenders(
  suite: { offenders: readonly { id: string; stage?: string | undefined }[] },
  stage: StageKey,
  n = 3,
): string[] {
  const out: string[] = [];
  for (const o of suite.offenders) {
    if (o.stage === stage) out.push(o.id);
    if (out.length === n) break;
  }
  return out;
}
