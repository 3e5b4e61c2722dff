import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import type { MetricSpec } from '../../metrics/spec.js';
import {
  itemVerdicts,
  type Offender,
  type ScoreContext,
  type SuiteKind,
  type SuiteResult,
} from '../types.js';
import { LABELS, type Pair } from './contract.js';
import { joinRaters, loadPairs, type JoinedPairs } from './load.js';
import { consistencySplit } from './split.js';
import { scoreConsistency, type FlaggedPair } from './score.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'agreement',
    direction: 'higher',
    unit: 'ratio',
    description: 'Percent agreement: pairs where scholar and auditor gave the same label, over all pairs',
  },
  {
    name: 'kappa',
    direction: 'higher',
    unit: 'ratio',
    description: "Cohen's kappa over the four labels: agreement corrected for chance",
  },
  {
    name: 'abstain_rate',
    direction: 'lower',
    unit: 'ratio',
    description: 'Pairs where either agent said ABSTAIN, over all pairs',
  },
  {
    name: 'disagreements',
    direction: 'lower',
    unit: 'count',
    description: 'Pairs where scholar and auditor gave different labels',
  },
];

export const configSchema = z
  .strictObject({
    kind: z.literal('consistency'),
    pairs: z.string().min(1).optional(),
    scholar: z.string().min(1).optional(),
    auditor: z.string().min(1).optional(),
    gates: gatesSchema.default({}),
  })
  .superRefine((config, ctx) => {
    const split = config.scholar !== undefined || config.auditor !== undefined;
    if (config.pairs !== undefined ? split : config.scholar === undefined || config.auditor === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected either pairs (one file of scholar/auditor pairs) or both scholar and auditor',
      });
    }
  });
export type ConsistencyConfig = z.infer<typeof configSchema>;

export const consistency: SuiteKind<ConsistencyConfig> = {
  kind: 'consistency',
  description: "Cross-agent consistency: scholar vs auditor agreement, Cohen's kappa, abstain rate",
  configSchema,
  inputKeys: ['pairs', 'scholar', 'auditor'],
  metrics,
  offenderColumns: ['scholar', 'auditor', 'final', 'arbitration'],
  defaultCutoffs: () => [],
  // A pair passes when both agents agree on a label: every metric counts every pair.
  populations: {},

  async score(_config, ctx) {
    const { pairs: pairFiles, scholar, auditor } = oneInput(ctx);
    const read = pairFiles
      ? { pairs: await loadPairs(pairFiles) }
      : { joined: await joinRaters(scholar!, auditor!) };
    return consistencyResult(ctx, read);
  },
  split: consistencySplit,
};

/** The suite's inputs, checked to be pairs or scholar and auditor, not both. */
export function oneInput(ctx: ScoreContext): ScoreContext['inputs'] {
  const { pairs, scholar, auditor } = ctx.inputs;
  if (pairs && (scholar || auditor)) {
    throw new InputError(
      { file: pairs[0]! },
      `suite "${ctx.suite}": both pairs and scholar/auditor are given (one by --input); expected one of them`,
    );
  }
  return ctx.inputs;
}

/** The suite's result from its pairs (read whole, or joined): one function for a run and a merge. */
export function consistencyResult(
  ctx: Pick<ScoreContext, 'relative'>,
  read: { pairs: Pair[] } | { joined: JoinedPairs },
): SuiteResult {
  const warnings: string[] = [];
  const counts: Record<string, number> = {};
  let pairs;
  if ('pairs' in read) {
    pairs = read.pairs;
  } else {
    const joined = read.joined;
    pairs = joined.pairs;
    counts.scholar_only = joined.scholarOnly.length;
    counts.auditor_only = joined.auditorOnly.length;
    for (const [ids, who, other] of [
      [joined.scholarOnly, 'scholar', 'auditor'],
      [joined.auditorOnly, 'auditor', 'scholar'],
    ] as const) {
      if (ids.length > 0) {
        warnings.push(
          `${ids.length} qid${ids.length === 1 ? '' : 's'} labelled by the ${who} only (no ${other} label) not scored: ${listed(ids)}`,
        );
      }
    }
  }
  const scored = scoreConsistency(pairs);
  const all = pairs;
  return {
    resample: {
      items: all.length,
      metric: (name, pick) => scoreConsistency(Array.from(pick, (i) => all[i]!)).metrics[name]?.value,
    },
    metrics: scored.metrics,
    counts: { pairs: pairs.length, ...counts },
    offenders: scored.flagged.map((f) => toOffender(f, ctx.relative)),
    warnings,
    tables: [
      {
        title: 'confusion matrix (rows: Scholar, columns: Auditor)',
        columns: ['scholar \\ auditor', ...LABELS],
        rows: LABELS.map((s, i) => [s, ...scored.confusion[i]!]),
      },
    ],
    items: itemVerdicts(
      pairs,
      (p) => p.qid,
      (p) => p.scholar.label === p.auditor.label && p.scholar.label !== 'ABSTAIN',
    ),
  };
}

function toOffender(f: FlaggedPair, relative: (file: string) => string): Offender {
  const { pair } = f;
  const at = (s: { file: string; line: number }) => `${relative(s.file)}:${s.line}`;
  const fields: Offender['fields'] = { scholar: pair.scholar.label, auditor: pair.auditor.label };
  if (f.arbitration) {
    fields.final = f.arbitration.final;
    fields.arbitration = f.arbitration.why;
  }
  fields.scholar_reason = pair.scholar.reason ?? null;
  fields.auditor_reason = pair.auditor.reason ?? null;
  // A pairs line is the source of both judgments; joined files give each its own line.
  if (pair.scholar.source !== pair.auditor.source) {
    fields.scholar_line = at(pair.scholar.source);
    fields.auditor_line = at(pair.auditor.source);
  }
  return {
    id: pair.qid,
    labels: [...(f.disagreement ? ['disagreement'] : []), ...(f.abstain ? ['abstain'] : [])],
    fields,
    source: { file: relative(pair.scholar.source.file), line: pair.scholar.source.line },
  };
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
