import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import type { MetricSpec } from '../../metrics/spec.js';
import type { Offender, SuiteKind } from '../types.js';
import { readRecord } from '../../io/jsonl.js';
import { asTraceLine, type GoldItem } from './contract.js';
import type { Label } from './labels.js';
import { judgeRuns, loadGold, type Winner } from './load.js';
import { compileRules, DEFAULT_SCU_RULES, type ScuRule } from './scu.js';
import { aggregate, offendingItems, passes } from './score.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'precision',
    direction: 'higher',
    unit: 'ratio',
    description: 'Shipped answers that are contained, cited and constraint-safe, over all shipped answers',
  },
  {
    name: 'chr',
    direction: 'higher',
    unit: 'ratio',
    description: 'Citation hit rate: shipped answers citing a gold id, all citations retrieved',
  },
  {
    name: 'under_refusal',
    direction: 'lower',
    unit: 'ratio',
    description: 'Unanswerable gold items that were answered, over all unanswerable items',
  },
  {
    name: 'over_refusal',
    direction: 'lower',
    unit: 'ratio',
    description: 'Answerable gold items that were refused, over all answerable items',
  },
  {
    name: 'recall@{k}',
    direction: 'higher',
    unit: 'ratio',
    description: 'Answerable items whose gold citations are all in the top k retrieved ids',
  },
  {
    name: 'chr@{k}_upper_bound',
    direction: 'higher',
    unit: 'ratio',
    description:
      'Shipped answers with a gold id among the top k retrieved: the best CHR the retriever allows',
  },
  {
    name: 'scu_violations',
    direction: 'lower',
    unit: 'count',
    description: 'Shipped answers with constraints that miss the echo or contradict a lock (scu: true)',
  },
  {
    name: 'constraint_integrity',
    direction: 'higher',
    unit: 'ratio',
    description: '1 − scu_violations / shipped answers with constraints',
  },
  {
    name: 'coverage',
    direction: 'higher',
    unit: 'ratio',
    description: 'Gold items with a trace, over all gold items',
  },
];

const regex = z.string().superRefine((source, ctx) => {
  try {
    new RegExp(source);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${(err as Error).message}` });
  }
});

const scuSchema = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().default(true),
    /** Added to the defaults, or replacing them with `default_rules: false`. */
    rules: z.array(z.strictObject({ lock: regex, contradiction: regex })).default([]),
    default_rules: z.boolean().default(true),
  }),
]);

export const configSchema = z.strictObject({
  kind: z.literal('grounded-qa'),
  gold: z.string().min(1),
  traces: z.string().min(1),
  lock: z.string().min(1).optional(),
  refusal_token: z.string().trim().min(1).default('not in context'),
  k: z.int().min(1).max(100_000).default(5),
  scu: scuSchema.default(false),
  gates: gatesSchema.default({}),
});
export type GroundedQaConfig = z.infer<typeof configSchema>;

/** The contradiction rules in force, or null when SCU is off. */
export function scuRules(scu: GroundedQaConfig['scu']): ScuRule[] | null {
  if (scu === false) return null;
  if (scu === true) return [...DEFAULT_SCU_RULES];
  if (!scu.enabled) return null;
  return [...(scu.default_rules ? DEFAULT_SCU_RULES : []), ...scu.rules];
}

export const groundedQa: SuiteKind<GroundedQaConfig> = {
  kind: 'grounded-qa',
  description: 'Grounded Q&A: precision, citation hit rate, refusal rates, constraint integrity, Recall@k',
  configSchema,
  inputKeys: ['gold', 'traces'],
  goldKey: 'gold',
  metrics,
  offenderColumns: ['question', 'claim', 'citations', 'retrieved_ids', 'gold_citations'],
  defaultCutoffs: (config) => [config.k],

  async score(config, ctx) {
    const { items: gold, digest } = await loadGold(ctx.inputs.gold!);
    const rules = scuRules(config.scu);
    const cutoffs = [
      ...new Set([config.k, ...ctx.metrics.flatMap((m) => (m.k === undefined ? [] : [m.k]))]),
    ].sort((a, b) => a - b);
    const options = {
      refusalToken: config.refusal_token,
      scuRules: rules ? compileRules(rules) : null,
      cutoffs,
    };
    const loaded = await judgeRuns(ctx.inputs.traces!, new Map(gold.map((g) => [g.qid, g])), options);
    const { metrics, counts } = aggregate(gold, (qid) => loaded.winners.get(qid)?.judgement, options);

    const warnings: string[] = [];
    if (loaded.unknown.size > 0) {
      const ids = [...loaded.unknown.keys()].sort();
      const lines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
      const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
      warnings.push(
        `${ids.length} trace qid${ids.length === 1 ? '' : 's'} not in gold (${lines} line${lines === 1 ? '' : 's'}) not scored: ${shown}`,
      );
    }
    if (counts.missing > 0) warnings.push(`${counts.missing} of ${counts.gold} gold items have no trace`);

    const verdicts = gold.map((g) => {
      const winner = loaded.winners.get(g.qid);
      return { gold: g, winner, labels: winner ? winner.judgement.labels : (['missing_trace'] as Label[]) };
    });
    const byId = new Map(verdicts.map((v) => [v.gold.qid, v]));
    return {
      metrics,
      counts: {
        ...counts,
        trace_lines: loaded.lines,
        superseded_runs: loaded.superseded,
        unknown_qids: loaded.unknown.size,
      },
      offenders: offendingItems(verdicts).map((v) => ({
        id: v.gold.qid,
        labels: v.labels,
        source: { file: ctx.relative(v.gold.source.file), line: v.gold.source.line },
      })),
      // Only the offenders a report shows are read again from disk, so memory does not grow with failures.
      describe: async (ids) => {
        const out = new Map<string, NonNullable<Offender['fields']>>();
        for (const id of ids) {
          const v = byId.get(id);
          if (v) out.set(id, await describeItem(v.gold, v.winner, v.labels, ctx.relative));
        }
        return out;
      },
      warnings,
      items: verdicts.map((v) => ({ id: v.gold.qid, pass: passes(v.labels) })),
      goldDigest: digest,
    };
  },
};

async function describeItem(
  gold: GoldItem,
  winner: Winner | undefined,
  labels: readonly Label[],
  relative: (file: string) => string,
): Promise<NonNullable<Offender['fields']>> {
  const g = (await readRecord(gold.source)) as { question?: unknown };
  const t = winner ? asTraceLine(await readRecord(winner.ref)) : undefined;
  const fields: NonNullable<Offender['fields']> = {
    question: typeof g.question === 'string' ? g.question : null,
    claim: t ? t.answer_json.claim : null,
    citations: t ? t.answer_json.citations : null,
    retrieved_ids: t ? t.retrieved_ids : null,
    gold_citations: gold.citations,
  };
  if (labels.includes('claim_miss')) fields.gold_claim_substr = gold.claimSubstrings;
  if (labels.includes('scu_violation')) {
    fields.constraints = gold.constraints;
    fields.constraints_echo = t?.answer_json.constraints_echo ?? null;
    const broken = winner?.judgement.brokenRule;
    if (broken) fields.contradiction = broken.source.contradiction;
  }
  if (winner) fields.trace = `${relative(winner.ref.file)}:${winner.ref.line}`;
  return fields;
}
