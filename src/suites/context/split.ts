import { digestGold } from '../../gold/digest-files.js';
import { z } from 'zod';
import { displayPath, InputError } from '../../errors.js';
import type { MergePart, SuiteSplit } from '../types.js';
import { INSTANCE_ERRORS } from './contract.js';
import type { InstanceOutcome } from './evaluate.js';
import { evaluate } from './evaluate.js';
import { loadGold } from './gold.js';
import { loadPredictions, type PredictionRecord } from './predictions.js';
import { reposOf, type ContextConfig } from './config.js';
import { contextResult } from './result.js';

/**
 * context over shards of its predictions: each instance is scored alone, so a shard keeps each of its
 * predictions' outcome (score, error, steps, its gold row's index and where it was). A merge lists them in
 * the order one run reads the predictions (file, then line) and refuses an instance predicted in two shards,
 * as one run refuses it twice. Scores are numbers, kept as JSON: a value JSON cannot hold exactly (not
 * finite) makes --partial fail rather than merge approximately.
 */
const levelScore = z.strictObject({
  intersection: z.number(),
  gold: z.number(),
  predicted: z.number(),
  coverage: z.number(),
  precision: z.number(),
  f1: z.number(),
});
const levels = z.strictObject({
  file: z.number().optional(),
  symbol: z.number().optional(),
  span: z.number().optional(),
  line: z.number().optional(),
});
const scoreSchema = z.strictObject({
  final: z.strictObject({
    file: levelScore.optional(),
    symbol: levelScore.optional(),
    span: levelScore.optional(),
    line: levelScore.optional(),
  }),
  auc: levels,
  redundancy: levels,
  curve: z.array(levels),
  editloc: z
    .strictObject({
      intersection: z.number(),
      gold: z.number(),
      predicted: z.number(),
      recall: z.number(),
      precision: z.number(),
    })
    .optional(),
  neverOpened: z.array(z.string()),
});
const outcomeSchema = z.strictObject({
  id: z.string(),
  gold: z.int().min(0).nullable(),
  error: z.enum(INSTANCE_ERRORS).optional(),
  score: scoreSchema.optional(),
  steps: z.int().min(0),
  pred_files: z.array(z.string()),
  at: z.tuple([z.int().min(0), z.int().min(0)]),
});
const sectionSchema = z.strictObject({ outcomes: z.array(outcomeSchema), unsupported: z.array(z.string()) });
type Section = z.infer<typeof sectionSchema>;

export const contextSplit: SuiteSplit<ContextConfig> = {
  shardKeys: ['predictions'],

  async partial(config, ctx) {
    // Raw trajectories are listed in an order of their own (completion folders after files): extracted
    // predictions keep one run's order, file by file and line by line, which a merge can restore.
    if (config.agent !== 'extracted')
      throw new InputError(
        { file: ctx.inputs.predictions![0]! },
        `suite "${ctx.suite}": raw ${config.agent} trajectories cannot be split into partials; expected extracted predictions (groundgate extract --agent ${config.agent} … --out predictions.jsonl) with --partial`,
      );
    const gold = await loadGold(ctx.inputs.gold!);
    const predictions = await loadPredictions(ctx.inputs.predictions!, config.agent);
    const { outcomes, unsupported } = await evaluate(gold, predictions, {
      repos: reposOf(config, ctx),
      patchFallback: config.patch_fallback,
    });
    const goldIndex = new Map(gold.map((g, i) => [g, i]));
    const files = new Map(ctx.inputs.predictions!.map((f, i) => [f, i]));
    const section: Section = {
      outcomes: outcomes.map((o) => ({
        id: o.id,
        gold: o.gold ? goldIndex.get(o.gold)! : null,
        ...(o.error ? { error: o.error } : {}),
        ...(o.score ? { score: o.score } : {}),
        steps: o.steps,
        pred_files: o.prediction.traj.pred_files,
        at: [files.get(o.prediction.source.file)!, o.prediction.source.line],
      })),
      unsupported: [...unsupported],
    };
    const text = JSON.stringify(section, (key, value: unknown) => {
      if (typeof value === 'number' && !Number.isFinite(value))
        throw new InputError(
          { file: ctx.inputs.predictions![0]! },
          `suite ${ctx.suite}: a score (${key}) is ${value}, which a partial cannot hold exactly; expected finite scores (run this suite without --partial)`,
        );
      return value;
    });
    return { state: {}, sections: { outcomes: Buffer.from(text, 'utf8') } };
  },

  async merge(config, parts, ctx) {
    const gold = await loadGold(ctx.inputs.gold!);
    const files = ctx.inputs.predictions!;
    const placed: { outcome: InstanceOutcome; at: [number, number]; part: MergePart }[] = [];
    const unsupported = new Set<string>();
    for (const part of parts) {
      const section = sectionOf(part, ctx.suite);
      const where = { file: part.partial.file };
      for (const o of section.outcomes) {
        const [f, line] = [part.fileAt('predictions', o.at[0]), o.at[1]];
        if (o.gold !== null && o.gold >= gold.length)
          throw new InputError(
            where,
            `suite ${ctx.suite}: instance ${JSON.stringify(o.id)} names gold row ${o.gold} of ${gold.length}; expected a consistent partial`,
          );
        const levels = config.repos
          ? (['file', 'symbol', 'span', 'line'] as const)
          : (['file', 'line'] as const);
        const lacking = o.score && levels.find((level) => !o.score!.final[level]);
        if (lacking)
          throw new InputError(
            where,
            `suite ${ctx.suite}: instance ${JSON.stringify(o.id)} has no ${lacking} score; expected a score at every level the config computes`,
          );
        const source = { file: files[f]!, line };
        // Only what the result reads of a prediction: its final files and where it is.
        const prediction = {
          id: o.id,
          traj: { pred_files: o.pred_files },
          source,
        } as unknown as PredictionRecord;
        placed.push({
          outcome: {
            id: o.id,
            prediction,
            ...(o.gold !== null ? { gold: gold[o.gold]! } : {}),
            ...(o.error ? { error: o.error } : {}),
            ...(o.score ? { score: o.score } : {}),
            steps: o.steps,
          },
          at: [f, line],
          part,
        });
      }
      for (const file of section.unsupported) unsupported.add(file);
    }
    placed.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
    const seen = new Map<string, MergePart>();
    for (const p of placed) {
      const other = seen.get(p.outcome.id);
      if (other)
        throw new InputError(
          { file: p.part.partial.file },
          `suite ${ctx.suite}: instance ${JSON.stringify(p.outcome.id)} is predicted in ${displayPath(other.partial.file)} too; expected one prediction per instance`,
        );
      seen.set(p.outcome.id, p.part);
    }
    const outcomes = placed.map((p) => p.outcome);
    // The items' gold digests, as a run takes them from its gold files: the merged report pairs items alike.
    return {
      result: contextResult(ctx, gold, outcomes, unsupported, config.repos !== undefined),
      digests: await digestGold(ctx.inputs.gold!),
    };
  },
};

function sectionOf(part: MergePart, suite: string): Section {
  return part.partial.json(suite, 'outcomes', sectionSchema, 'the outcomes a context shard scored');
}
