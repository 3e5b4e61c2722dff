import path from 'node:path';
import { z } from 'zod';
import { displayPath, InputError } from '../../errors.js';
import { judge } from '../../metrics/ir/judge.js';
import type { MergePart, SuiteSplit } from '../types.js';
import { scanRun, summarize, type QueryResult } from './evaluate.js';
import { loadQrels } from './load.js';
import type { RankingConfig } from './config.js';
import { planOf } from './plan.js';
import { rankingResult } from './result.js';

/**
 * ranking over shards of its run, split by query: every shard reads the whole qrels and keeps each judged
 * query's result (its measures, counts, missed docs, first run line) and the qids it saw. A merge gathers
 * them, refuses a query scored in two shards (one run would have ranked their lines together), and sums the
 * means in the order one run does (summarize), over qrels it reads itself.
 */
const resultSchema = z.strictObject({
  qid: z.string(),
  // Every measure is a share, 0 to 1 (with room for rounding: a DCG over its ideal sums in another order).
  values: z.array(
    z
      .number()
      .min(0)
      .max(1 + 1e-9),
  ),
  retrieved: z.int().min(0),
  relevant: z.int().min(0),
  relevantRetrieved: z.int().min(0),
  firstRelevantRank: z.int().min(1).nullable(),
  offending: z.boolean(),
  missed: z.array(z.string()),
  run: z.tuple([z.string(), z.int().min(1)]),
});
const scanSchema = z.strictObject({
  measures: z.array(z.string()),
  queries: z.array(resultSchema),
  seen: z.array(z.string()),
  run_only: z.array(z.tuple([z.string(), z.int().min(1)])),
});

export const rankingSplit: SuiteSplit<RankingConfig> = {
  shardKeys: ['run'],

  async partial(config, ctx) {
    const plan = planOf(config, ctx);
    const qrels = await loadQrels(plan.options.qrels, plan.options.qrelsFormat);
    const scan = await scanRun(qrels, plan.options);
    const value: z.infer<typeof scanSchema> = {
      measures: plan.measures.map((m) => m.name),
      queries: [...scan.results.values()].map((q) => ({
        qid: q.qid,
        values: q.values,
        retrieved: q.retrieved,
        relevant: q.relevant,
        relevantRetrieved: q.relevantRetrieved,
        firstRelevantRank: q.firstRelevantRank,
        offending: q.offending,
        missed: q.missed,
        run: [ctx.relative(q.runSource!.file), q.runSource!.line],
      })),
      seen: [...scan.seen],
      run_only: [...scan.runOnly],
    };
    return { state: {}, sections: { scan: Buffer.from(JSON.stringify(value), 'utf8') } };
  },

  async merge(config, parts, ctx) {
    const plan = planOf(config, ctx);
    const qrels = await loadQrels(plan.options.qrels, plan.options.qrelsFormat);
    const names = plan.measures.map((m) => m.name);
    const results = new Map<string, QueryResult>();
    const owner = new Map<string, MergePart>();
    const seen = new Set<string>();
    const runOnly = new Map<string, number>();
    for (const part of parts) {
      const scan = scanOf(part, ctx.suite);
      const where = { file: part.partial.file };
      if (scan.measures.join('\n') !== names.join('\n'))
        throw new InputError(
          where,
          `suite ${ctx.suite}: measures ${scan.measures.join(', ')}; expected ${names.join(', ')}, as the config asks`,
        );
      for (const q of scan.queries) {
        const judged = qrels.get(q.qid);
        if (!judged || q.values.length !== names.length)
          throw new InputError(
            where,
            `suite ${ctx.suite}: query ${JSON.stringify(q.qid)} ${judged ? `has ${q.values.length} values` : 'is not in the qrels'}; expected a partial of these qrels and measures`,
          );
        const broken = resultProblem(
          q,
          judged.grades,
          plan.options.relevanceLevel,
          part.suite.inputs.run ?? [],
        );
        if (broken)
          throw new InputError(
            where,
            `suite ${ctx.suite}: section scan: query ${JSON.stringify(q.qid)} ${broken}; expected a partial of these qrels`,
          );
        const other = owner.get(q.qid);
        if (other)
          throw new InputError(
            where,
            `suite ${ctx.suite}: query ${JSON.stringify(q.qid)} was scored in ${displayPath(other.partial.file)} too; expected each query's run lines in one shard (split the run by query)`,
          );
        owner.set(q.qid, part);
        const { run, ...rest } = q;
        results.set(q.qid, {
          ...rest,
          qrelsSource: judged.source,
          runSource: { file: path.resolve(ctx.baseDir, run[0]), line: run[1] },
        });
      }
      for (const qid of scan.seen) seen.add(qid);
      for (const [qid, n] of scan.run_only) runOnly.set(qid, (runOnly.get(qid) ?? 0) + n);
    }
    // A shard scores every judged qid it sees: a qid one shard saw and another scored would be a broken partial.
    for (const qid of seen)
      if (qrels.has(qid) && !results.has(qid))
        throw new InputError(
          { file: parts[0]!.partial.file },
          `suite ${ctx.suite}: query ${JSON.stringify(qid)} was seen but not scored; expected consistent partials`,
        );
    return {
      result: rankingResult(config, ctx, plan, summarize(qrels, { results, seen, runOnly }, plan.options)),
    };
  },
};

/**
 * What is wrong with a query's result, if anything, against the qrels and the shard's run files: its counts
 * as scoring gives them (relevant from the qrels; a first relevant rank when, and only when, a relevant doc
 * was retrieved), missed docs judged relevant, and its first line in one of the shard's files.
 */
function resultProblem(
  q: z.infer<typeof resultSchema>,
  grades: ReadonlyMap<string, number>,
  level: number,
  files: readonly string[],
): string | undefined {
  // R as scoring counts it: judge's numRel, whatever the ranking.
  const relevant = judge([], grades, level).numRel;
  if (q.relevant !== relevant) return `has ${q.relevant} relevant docs, the qrels ${relevant}`;
  if (q.relevantRetrieved > q.retrieved)
    return `retrieved ${q.relevantRetrieved} relevant docs of ${q.retrieved}`;
  if (
    (q.firstRelevantRank === null) !== (q.relevantRetrieved === 0) ||
    (q.firstRelevantRank ?? 0) > q.retrieved
  )
    return `has its first relevant doc at rank ${q.firstRelevantRank}, with ${q.relevantRetrieved} of ${q.retrieved} retrieved relevant`;
  const unjudged = q.missed.find((doc) => !((grades.get(doc) ?? -1) >= 0));
  if (unjudged !== undefined) return `missed ${JSON.stringify(unjudged)}, which the qrels do not judge`;
  if (!files.includes(q.run[0]))
    return `was read from ${JSON.stringify(q.run[0])}, not one of the shard's run files`;
  return undefined;
}

function scanOf(part: MergePart, suite: string): z.infer<typeof scanSchema> {
  return part.partial.json(suite, 'scan', scanSchema, 'the queries a ranking shard scored');
}
