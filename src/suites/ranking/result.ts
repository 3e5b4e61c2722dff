import { compareCodeUnits } from '../../io/files.js';
import { meanInterval } from '../../metrics/mean-interval.js';
import { notComputable, type MetricValue } from '../../metrics/spec.js';
import type { Offender, ScoreContext, SuiteResult } from '../types.js';
import type { MeasureRequest, QueryResult, RankingEvaluation } from './evaluate.js';
import { compareUtf8 } from './order.js';
import type { RankingConfig } from './config.js';
import type { planOf } from './plan.js';

/** The suite's result from an evaluation: one function for a run and a merge, so they agree to the byte. */
export function rankingResult(
  config: RankingConfig,
  ctx: ScoreContext,
  { measures, offenderIndex }: ReturnType<typeof planOf>,
  result: RankingEvaluation,
): SuiteResult {
  const metricValues: Record<string, MetricValue> = {};
  const n = result.queries.length;
  const column = (i: number) => Float64Array.from(result.queries, (q) => q.values[i]!);
  measures.forEach((m, i) => {
    const mean = result.means[i] ?? null;
    // Every measure lies in [0, 1], and so does its mean: the symmetric interval is cut there.
    const interval = meanInterval(column(i));
    const ci95 = interval && ([Math.max(0, interval[0]), Math.min(1, interval[1])] as [number, number]);
    metricValues[m.name] =
      mean === null
        ? notComputable(
            `no query was evaluated: none of the ${result.qrelsQueries} qrels queries is in the run (complete: true scores them 0)`,
          )
        : { value: mean, n, ...(ci95 ? { ci95 } : {}) };
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

  const offenderName = measures[offenderIndex]!.name;
  return {
    metrics: metricValues,
    counts: {
      qrels_queries: result.qrelsQueries,
      run_queries: result.runQueries,
      evaluated: result.queries.length,
      skipped: result.skipped.length,
      run_only: result.runOnly.size,
      no_relevant_judged: result.queries.filter((q) => q.relevant === 0).length,
    },
    offenders,
    dropped(base) {
      const drops = droppedQueries(result.queries, offenderIndex, (qid) => base.value(qid, offenderName));
      return (
        drops &&
        drops.map(({ query, before }) =>
          dropOffender(query, before, offenderIndex, shown, measures, relative),
        )
      );
    },
    warnings,
    // A query passes when it reaches its ideal ranking on the offender metric (the per-item bar); its values
    // of that and every gated metric go with it, for a later run to pair with.
    items: {
      ids: result.queries.map((q) => q.qid),
      pass: Uint8Array.from(result.queries, (q) => (q.offending ? 0 : 1)),
      values: Object.fromEntries(shown.map((i) => [measures[i]!.name, column(i)])),
    },
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

/**
 * The queries whose offender metric fell since the baseline, the largest fall first (ties by qid in code-unit
 * order). A query with nothing judged relevant scores 0 on both sides and is never among them: it stays a
 * count. Undefined when the baseline holds no query's value of the metric (a report from before values).
 */
function droppedQueries(
  queries: readonly QueryResult[],
  index: number,
  baseValue: (qid: string) => number | undefined,
): { query: QueryResult; before: number }[] | undefined {
  const out: { query: QueryResult; before: number; delta: number }[] = [];
  let valued = false;
  for (const query of queries) {
    const before = baseValue(query.qid);
    if (before === undefined) continue;
    valued = true;
    const delta = query.values[index]! - before;
    if (query.relevant > 0 && delta < 0) out.push({ query, before, delta });
  }
  if (!valued) return undefined;
  return out.sort((a, b) => a.delta - b.delta || compareCodeUnits(a.query.qid, b.query.qid));
}

/** A dropped query: Δ, before → after, the gated metrics now, and its relevant docs now out of the top k. */
function dropOffender(
  q: QueryResult,
  before: number,
  index: number,
  shown: readonly number[],
  measures: readonly MeasureRequest[],
  relative: (file: string) => string,
): Offender {
  const after = q.values[index]!;
  const offender = toOffender(q, shown, measures, relative);
  return {
    ...offender,
    labels: ['dropped', ...offender.labels],
    fields: { delta: after - before, before, after, ...offender.fields },
  };
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
