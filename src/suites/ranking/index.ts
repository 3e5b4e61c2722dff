import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { didYouMean } from '../../config/suggest.js';
import { compareCodeUnits } from '../../io/files.js';
import { IR_MEASURES } from '../../metrics/ir.js';
import {
  metricNames,
  notComputable,
  resolveMetric,
  type MetricSpec,
  type MetricValue,
} from '../../metrics/spec.js';
import type { Offender, ScoreContext, SuiteKind, SuiteResult } from '../types.js';
import { rankingSplit } from './split.js';
import { FORMATS } from './contract.js';
import {
  evaluateRanking,
  type MeasureRequest,
  type QueryResult,
  type RankingEvaluation,
  type RankingOptions,
} from './evaluate.js';
import { compareUtf8 } from './order.js';

export const metrics: readonly MetricSpec[] = IR_MEASURES.map((m) => ({
  name: m.name,
  direction: 'higher',
  unit: 'ratio',
  description: m.description,
}));

const DEFAULT_K = 10;

const metricName = z.string().superRefine((name, ctx) => {
  if (resolveMetric(name, metrics)) return;
  const names = metricNames(metrics, DEFAULT_K);
  ctx.addIssue({
    code: 'custom',
    message: `unknown metric ${JSON.stringify(name)}${didYouMean(name, names)}; expected one of ${names.join(', ')}`,
  });
});

export const configSchema = z.strictObject({
  kind: z.literal('ranking'),
  qrels: z.string().min(1),
  run: z.string().min(1),
  qrels_format: z.enum(FORMATS).optional(),
  run_format: z.enum(FORMATS).optional(),
  relevance_level: z.int().min(0).max(1_000_000).default(1),
  complete: z.boolean().default(false),
  k: z.int().min(1).max(100_000).default(DEFAULT_K),
  offender_metric: metricName.optional(),
  gates: gatesSchema.default({}),
});
export type RankingConfig = z.infer<typeof configSchema>;

const MEASURES = new Map(IR_MEASURES.map((m) => [m.name, m]));

/** A metric name as written (`ndcg@10`) → what to compute for each query; `k` is the suite's cutoff. */
export function measureRequest(name: string, k: number): MeasureRequest {
  const resolved = resolveMetric(name, metrics)!;
  return { name, measure: MEASURES.get(resolved.spec.name)!, k: resolved.k ?? k };
}

export const ranking: SuiteKind<RankingConfig> = {
  kind: 'ranking',
  description: 'Ranking: trec_eval measures (MAP, P@k, recall@k, nDCG, MRR, ...) of a run against qrels',
  configSchema,
  inputKeys: ['qrels', 'run'],
  metrics,
  offenderColumns: ['retrieved', 'relevant', 'first_relevant_rank', 'missed'],
  defaultCutoffs: (config) => [config.k],

  async score(config, ctx) {
    const plan = planOf(config, ctx);
    return rankingResult(config, ctx, plan, await evaluateRanking(plan.options));
  },
  split: rankingSplit,
};

/** What a ranking suite computes: the measures (the offender measure among them) and the evaluation's options. */
export function planOf(config: RankingConfig, ctx: ScoreContext) {
  const measures = ctx.metrics.map((m) => measureRequest(m.name, config.k));
  const offenderName = config.offender_metric ?? Object.keys(config.gates)[0] ?? 'map';
  let offenderIndex = measures.findIndex((m) => m.name === offenderName);
  if (offenderIndex === -1) offenderIndex = measures.push(measureRequest(offenderName, config.k)) - 1;
  const options: RankingOptions = {
    qrels: ctx.inputs.qrels!,
    run: ctx.inputs.run!,
    qrelsFormat: config.qrels_format,
    runFormat: config.run_format,
    relevanceLevel: config.relevance_level,
    complete: config.complete,
    measures,
    offender: { index: offenderIndex, k: measures[offenderIndex]!.k },
  };
  return { measures, offenderIndex, options };
}

/** The suite's result from an evaluation: one function for a run and a merge, so they agree to the byte. */
export function rankingResult(
  config: RankingConfig,
  ctx: ScoreContext,
  { measures, offenderIndex }: ReturnType<typeof planOf>,
  result: RankingEvaluation,
): SuiteResult {
  const metricValues: Record<string, MetricValue> = {};
  measures.forEach((m, i) => {
    const mean = result.means[i] ?? null;
    metricValues[m.name] =
      mean === null
        ? notComputable(
            `no query was evaluated: none of the ${result.qrelsQueries} qrels queries is in the run (complete: true scores them 0)`,
          )
        : { value: mean };
  });

  const warnings: string[] = [];
  if (result.runOnly.size > 0) {
    const ids = [...result.runOnly.keys()].sort(compareUtf8);
    const lines = [...result.runOnly.values()].reduce((a, b) => a + b, 0);
    warnings.push(
      `${plural(ids.length, 'run qid')} not in qrels (${plural(lines, 'line')}) not scored: ${listed(ids)}`,
    );
  }
  if (result.skipped.length > 0) {
    warnings.push(
      `${result.skipped.length} of ${result.qrelsQueries} qrels queries are not in the run and were skipped (complete: true scores them 0): ${listed(result.skipped)}`,
    );
  }
  if (result.zeroed.length > 0) {
    warnings.push(
      `${result.zeroed.length} of ${result.qrelsQueries} qrels queries are not in the run and score 0 (complete: true): ${listed(result.zeroed)}`,
    );
  }

  // The offender measure first, then each gated one: what a reviewer compares against the gates.
  const shown = [...new Set([offenderIndex, ...Object.keys(config.gates).map(indexIn(measures))])];
  // Every offender names the same file or two: each path is made relative once.
  const relativePaths = new Map<string, string>();
  const relative = (file: string) => {
    let rel = relativePaths.get(file);
    if (rel === undefined) relativePaths.set(file, (rel = ctx.relative(file)));
    return rel;
  };
  const offenders = result.queries
    .filter((q) => q.offending)
    .sort((a, b) => a.values[offenderIndex]! - b.values[offenderIndex]! || compareCodeUnits(a.qid, b.qid))
    .map((q) => toOffender(q, shown, measures, relative));

  return {
    metrics: metricValues,
    counts: {
      qrels_queries: result.qrelsQueries,
      run_queries: result.runQueries,
      evaluated: result.queries.length,
      skipped: result.skipped.length,
      run_only: result.runOnly.size,
    },
    offenders,
    warnings,
    resample: {
      items: result.queries.length,
      metric(name, pick) {
        const i = measures.findIndex((m) => m.name === name);
        if (i === -1 || pick.length === 0) return i === -1 ? undefined : null;
        let sum = 0;
        for (const q of pick) sum += result.queries[q]!.values[i]!;
        return sum / pick.length;
      },
    },
  };
}

function indexIn(measures: readonly MeasureRequest[]): (name: string) => number {
  return (name) => measures.findIndex((m) => m.name === name);
}

/** Why a query offends, one label: the first that applies. */
function label(q: QueryResult): string {
  if (!q.runSource) return 'missing_run';
  if (q.relevant === 0) return 'no_relevant_judged';
  if (q.relevantRetrieved === 0) return 'no_relevant_retrieved';
  if (q.missed.length > 0) return 'relevant_missed';
  return 'misranked';
}

function toOffender(
  q: QueryResult,
  shown: readonly number[],
  measures: readonly MeasureRequest[],
  relative: (file: string) => string,
): Offender {
  const fields: Offender['fields'] = {};
  for (const i of shown) fields[measures[i]!.name] = q.values[i]!;
  fields.retrieved = q.retrieved;
  fields.relevant = q.relevant;
  fields.relevant_retrieved = q.relevantRetrieved;
  fields.first_relevant_rank = q.firstRelevantRank;
  fields.missed = q.missed;
  fields.run = q.runSource ? `${relative(q.runSource.file)}:${q.runSource.line}` : null;
  return {
    id: q.qid,
    labels: [label(q)],
    fields,
    source: { file: relative(q.qrelsSource.file), line: q.qrelsSource.line },
  };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
