import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import type { MetricSpec } from '../../metrics/spec.js';
import type { Offender, SuiteKind } from '../types.js';
import { loadGold, loadRuns } from './load.js';
import { compileRules, DEFAULT_SCU_RULES, type ScuRule } from './scu.js';
import { offendingItems, scoreGroundedQa, type ItemVerdict } from './score.js';

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
    const gold = await loadGold(ctx.inputs.gold!);
    const loaded = await loadRuns(ctx.inputs.traces!, new Set(gold.map((g) => g.qid)));
    const rules = scuRules(config.scu);
    const cutoffs = [
      ...new Set([config.k, ...ctx.metrics.flatMap((m) => (m.k === undefined ? [] : [m.k]))]),
    ].sort((a, b) => a - b);
    const scored = scoreGroundedQa(gold, loaded.runs, {
      refusalToken: config.refusal_token,
      scuRules: rules ? compileRules(rules) : null,
      cutoffs,
    });

    const warnings: string[] = [];
    if (loaded.unknown.size > 0) {
      const ids = [...loaded.unknown.keys()].sort();
      const lines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
      const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
      warnings.push(
        `${ids.length} trace qid${ids.length === 1 ? '' : 's'} not in gold (${lines} line${lines === 1 ? '' : 's'}) not scored: ${shown}`,
      );
    }
    if (scored.counts.missing > 0) {
      warnings.push(`${scored.counts.missing} of ${scored.counts.gold} gold items have no trace`);
    }

    return {
      metrics: scored.metrics,
      counts: {
        ...scored.counts,
        trace_lines: loaded.lines,
        superseded_runs: loaded.superseded,
        unknown_qids: loaded.unknown.size,
      },
      offenders: offendingItems(scored.items).map((v) => toOffender(v, ctx.relative)),
      warnings,
      items: scored.items.map((v) => ({
        id: v.gold.qid,
        pass: v.labels[0] === 'ok' || v.labels[0] === 'refusal_ok',
      })),
    };
  },
};

function toOffender(v: ItemVerdict, relative: (file: string) => string): Offender {
  const fields: Offender['fields'] = {
    question: v.gold.question,
    claim: v.run ? v.run.claim : null,
    citations: v.run ? v.run.citations : null,
    retrieved_ids: v.run ? v.run.retrieved : null,
    gold_citations: v.gold.citations,
  };
  if (v.labels.includes('claim_miss')) fields.gold_claim_substr = v.gold.claimSubstrings;
  if (v.labels.includes('scu_violation')) {
    fields.constraints = v.gold.constraints;
    fields.constraints_echo = v.run?.constraintsEcho ?? null;
    if (v.brokenRule) fields.contradiction = v.brokenRule.source.contradiction;
  }
  if (v.run) fields.trace = `${relative(v.run.source.file)}:${v.run.source.line}`;
  return {
    id: v.gold.qid,
    labels: v.labels,
    fields,
    source: { file: relative(v.gold.source.file), line: v.gold.source.line },
  };
}
