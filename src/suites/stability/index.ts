import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { compareCodeUnits } from '../../io/files.js';
import type { MetricSpec } from '../../metrics/spec.js';
import { answerSettings, checkMarkers, fieldsSchema } from '../../grounded-answer/config.js';
import { compileFieldMap, type CompiledFieldMap } from '../../io/field-map.js';
import { questionsOf } from '../../grounded-answer/questions.js';
import { goldShape } from '../../grounded-answer/contract.js';
import { loadGold } from '../../grounded-answer/load.js';
import {
  itemVerdicts,
  type Offender,
  type ScoreContext,
  type SuiteKind,
  type SuiteResult,
} from '../types.js';
import type { GoldItem } from '../../grounded-answer/contract.js';
import { stabilitySplit } from './split.js';
import { CHECKS, DEFAULT_THRESHOLDS, runShape, type Check } from './contract.js';
import { loadStabilityRuns, type StabilityRunsLoad } from './load.js';
import { scoreStability, tally, unstableQuestions, type QuestionScore } from './score.js';
import { stabilityMisreads, stabilityReaders } from './misread.js';
import { isRefusal, refusalRule } from '../../grounded-answer/refusal.js';

const MEANS: Record<Check, Omit<MetricSpec, 'name'>> = {
  refusal_consistency: {
    direction: 'higher',
    unit: 'ratio',
    description: 'Mean over questions of the share of runs in the majority class, refused or answered (rcr)',
  },
  constraint_echo_consistency: {
    direction: 'higher',
    unit: 'ratio',
    description:
      'Mean over questions with constraints of 1 when every run echoes them exactly, else 0 (scu_cons)',
  },
  containment_rate: {
    direction: 'higher',
    unit: 'ratio',
    description:
      'Mean over answerable questions of the share of runs whose claim contains a gold substring (acr)',
  },
  citation_hit_rate: {
    direction: 'higher',
    unit: 'ratio',
    description:
      'Mean over answerable questions of the share of runs citing a gold id, all cited ids retrieved (cghc)',
  },
  citation_stability: {
    direction: 'higher',
    unit: 'ratio',
    description: 'Mean over questions of |∩ citation sets| / |∪ citation sets| across runs (css)',
  },
  claim_edit_distance_median: {
    direction: 'lower',
    unit: 'ratio',
    description: 'Mean over questions of the median normalized edit distance between pairs of claims (ned50)',
  },
};

export const metrics: readonly MetricSpec[] = [
  {
    name: 'stable_rate',
    direction: 'higher',
    unit: 'ratio',
    description: 'Questions that pass every per-question threshold, over questions with runs',
  },
  {
    name: 'unstable_questions',
    direction: 'lower',
    unit: 'count',
    description: 'Questions with runs that fail a per-question threshold or have too few runs',
  },
  ...CHECKS.map((name) => ({ name, ...MEANS[name] })),
  {
    name: 'coverage',
    direction: 'higher',
    unit: 'ratio',
    description: 'Gold questions with at least one run, over all gold questions',
  },
];

const share = z.number().min(0).max(1);

export const configSchema = z
  .strictObject({
    kind: z.literal('stability'),
    gold: z.string().min(1),
    runs: z.string().min(1),
    lock: z.string().min(1).optional(),
    refusal_token: answerSettings.refusal_token,
    refusal: answerSettings.refusal,
    citation_markers: answerSettings.citation_markers,
    min_runs: z.int().min(1).max(1_000_000).default(2),
    fields: fieldsSchema({ gold: goldShape, runs: runShape }),
    thresholds: z
      .strictObject({
        refusal_consistency: share.default(DEFAULT_THRESHOLDS.refusal_consistency),
        constraint_echo_consistency: share.default(DEFAULT_THRESHOLDS.constraint_echo_consistency),
        containment_rate: share.default(DEFAULT_THRESHOLDS.containment_rate),
        citation_hit_rate: share.default(DEFAULT_THRESHOLDS.citation_hit_rate),
        citation_stability: share.default(DEFAULT_THRESHOLDS.citation_stability),
        claim_edit_distance_median: share.default(DEFAULT_THRESHOLDS.claim_edit_distance_median),
      })
      .default(DEFAULT_THRESHOLDS),
    gates: gatesSchema.default({}),
  })
  .superRefine(checkMarkers);
export type StabilityConfig = z.infer<typeof configSchema>;

export const stability: SuiteKind<StabilityConfig> = {
  kind: 'stability',
  description:
    'Semantic stability across seeds and prompt jitters: claims, citations, refusals, constraint echo',
  configSchema,
  inputKeys: ['gold', 'runs'],
  goldKey: 'gold',
  metrics,
  offenderColumns: ['runs', 'claims', 'citation_sets'],
  defaultCutoffs: () => [],

  async score(config, ctx) {
    const { gold, digest, loaded } = await loadStability(config, ctx);
    return { ...(await stabilityResult(config, ctx, gold, loaded)), goldDigest: digest! };
  },
  split: stabilitySplit,
};

/** Gold and the runs of its questions, as a run and a shard's partial read them. */
export async function loadStability(config: StabilityConfig, ctx: Pick<ScoreContext, 'inputs'>) {
  const { items: gold, digest } = await loadGold(ctx.inputs.gold!, { fields: config.fields?.gold });
  const loaded = await loadStabilityRuns(
    ctx.inputs.runs!,
    new Set(gold.map((g) => g.qid)),
    config.fields?.runs,
    config.citation_markers,
  );
  return { gold, digest, loaded };
}

/** The suite's result from gold and the runs read: one function for a run and a merge, so they agree to the byte. */
export async function stabilityResult(
  config: StabilityConfig,
  ctx: Pick<ScoreContext, 'relative'>,
  gold: readonly GoldItem[],
  loaded: StabilityRunsLoad,
): Promise<SuiteResult> {
  const goldMap = compileFieldMap(config.fields?.gold);
  const scored = scoreStability(gold, loaded.runs, {
    refusalToken: config.refusal_token,
    ...(config.refusal && { refusal: config.refusal }),
    ...(config.citation_markers && { markers: config.citation_markers }),
    thresholds: config.thresholds,
    minRuns: config.min_runs,
  });

  const warnings: string[] = [];
  if (loaded.unknown.size > 0) {
    const ids = [...loaded.unknown.keys()].sort(compareCodeUnits);
    const lines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
    warnings.push(
      `${ids.length} run qid${ids.length === 1 ? '' : 's'} not in gold (${lines} line${lines === 1 ? '' : 's'}) not scored: ${listed(ids)}`,
    );
  }
  if (scored.counts.missing > 0) {
    warnings.push(`${scored.counts.missing} of ${scored.counts.gold} gold questions have no runs`);
  }
  // Never a silent zero (#44): runs that look read wrongly say which option or mapping reads them.
  const rule = refusalRule(config.refusal_token, config.refusal);
  const misread = stabilityMisreads(
    loaded.runs.values(),
    { total: loaded.lines, unknown: [...loaded.unknown.values()].reduce((a, b) => a + b, 0) },
    (r) => r.refused ?? isRefusal(r.claim, rule),
    stabilityReaders(config.fields?.runs, config.citation_markers),
  );
  warnings.push(...misread.map((m) => m.warning));

  return {
    metrics: scored.metrics,
    counts: {
      ...scored.counts,
      run_lines: loaded.lines,
      superseded_runs: loaded.superseded,
      unknown_qids: loaded.unknown.size,
    },
    offenders: await offendersOf(unstableQuestions(scored.questions), ctx.relative, goldMap),
    warnings,
    ...(misread.length > 0 && { misread }),
    items: itemVerdicts(
      scored.questions,
      (q) => q.gold.qid,
      (q) => q.labels.length === 0,
    ),
  };
}

/** The question text stays on disk until an offender needs it. */
async function offendersOf(
  questions: readonly QuestionScore[],
  relative: (file: string) => string,
  goldMap: CompiledFieldMap | undefined,
): Promise<Offender[]> {
  const texts = await questionsOf(
    questions.map((q) => q.gold),
    goldMap,
  );
  return questions.map((q, i) => toOffender(q, relative, texts[i]));
}

function toOffender(q: QuestionScore, relative: (file: string) => string, question: unknown): Offender {
  const fields: NonNullable<Offender['fields']> = {
    question: typeof question === 'string' ? question : null,
    runs: q.runs.length,
  };
  for (const check of CHECKS) fields[check] = q.values[check];
  if (q.runs.length > 0) {
    fields.claims = tally(q.runs.map((r) => r.claim));
    fields.citation_sets = tally(q.runs.map((r) => `[${r.citations.join(', ')}]`));
  }
  if (q.labels.includes('containment_rate')) fields.gold_claim_substr = q.gold.claimSubstrings;
  if (q.labels.includes('citation_hit_rate') || q.labels.includes('citation_stability')) {
    fields.gold_citations = q.gold.citations;
  }
  if (q.labels.includes('constraint_echo_consistency')) fields.constraints = q.gold.constraints;
  return {
    id: q.gold.qid,
    labels: q.labels,
    fields,
    source: { file: relative(q.gold.source.file), line: q.gold.source.line },
  };
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
