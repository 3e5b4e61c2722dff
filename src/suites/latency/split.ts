import path from 'node:path';
import { z } from 'zod';
import { InputError, preview } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import type { MergePart, SuiteSplit } from '../types.js';
import { STAGES, type LatencySample } from './contract.js';
import type { LatencyConfig } from './config.js';
import { readLatencies } from './read.js';
import { scoreConfigurations } from './accuracy.js';
import { latencyResult } from './result.js';
import { usageFromWire, usageToWire, usageWireSchema } from '../../cost/usage-wire.js';

/**
 * latency over shards of its csv or traces files: percentiles need every sample, so a shard keeps its
 * samples (the exact state; a sample is a few numbers) and, with traces and gold, each trace file's accuracy
 * (a file is a configuration, scored alone). A merge lists the samples in the order one run reads them
 * (file, then line) and makes the suite's result with the function a run makes it with.
 */
const stageSchema = z.strictObject(Object.fromEntries(STAGES.map((s) => [s, z.number().min(0).optional()])));
const sectionSchema = z.strictObject({
  samples: z.array(
    z.strictObject({
      configuration: z.string(),
      qid: z.string(),
      e2e: z.number().min(0), // as load.ts reads a time: non-negative milliseconds
      stages: stageSchema,
      /** The request's token counts (cost/usage-wire.ts). */
      usage: usageWireSchema.optional(),
      at: z.tuple([z.int().min(0), z.int().min(1)]),
    }),
  ),
  untimed: z.strictObject({ untimed: z.int().min(0), lines: z.int().min(0) }).optional(),
  /** Scoring accuracy failed (gold or a trace file): an error for the merge, if one run would score it. */
  accuracy_error: z
    .strictObject({
      file: z.string(),
      line: z.int().min(1).optional(),
      column: z.int().min(1).optional(),
      detail: z.string(),
    })
    .optional(),
  accuracy: z
    .strictObject({
      by_configuration: z.array(
        z.tuple([
          z.string(),
          z.strictObject({
            precision: z.number().nullable(),
            chr: z.number().nullable(),
            coverage: z.number().nullable(),
            triage: z.string(),
          }),
        ]),
      ),
      unknown: z.array(z.string()),
    })
    .optional(),
});
type Section = z.infer<typeof sectionSchema>;

export const latencySplit: SuiteSplit<LatencyConfig> = {
  shardKeys: ['csv', 'traces'],

  async partial(config, ctx) {
    const read = await readLatencies(config, ctx);
    const { traces, gold } = ctx.inputs;
    // One run scores accuracy only over more than one configuration, which a shard cannot tell: its error
    // waits for the merge, which knows.
    let accuracy: Awaited<ReturnType<typeof scoreConfigurations>> | undefined;
    let failed: Section['accuracy_error'];
    if (traces && gold) {
      try {
        accuracy = await scoreConfigurations(traces, gold, config, ctx.relative);
      } catch (err) {
        if (!(err instanceof InputError) || !err.where) throw err;
        const { file, line, column } = err.where;
        failed = {
          file: ctx.relative(file),
          ...(line !== undefined ? { line } : {}),
          ...(column !== undefined ? { column } : {}),
          detail: err.detail,
        };
      }
    }
    const files = new Map((ctx.inputs.csv ?? traces ?? []).map((f, i) => [f, i]));
    const section: Section = {
      samples: read.samples.map((s) => ({
        configuration: s.configuration,
        qid: s.qid,
        e2e: s.e2eMs,
        stages: s.stageMs,
        ...(s.usage && { usage: usageToWire(s.usage) }),
        at: [files.get(s.source.file)!, s.source.line],
      })),
      ...(read.untimed ? { untimed: read.untimed } : {}),
      ...(failed ? { accuracy_error: failed } : {}),
      ...(accuracy
        ? { accuracy: { by_configuration: [...accuracy.byConfiguration], unknown: [...accuracy.unknown] } }
        : {}),
    };
    return { state: {}, sections: { samples: Buffer.from(JSON.stringify(section), 'utf8') } };
  },

  async merge(config, parts, ctx) {
    const key = ctx.inputs.csv ? 'csv' : 'traces';
    const files = ctx.inputs[key] ?? [];
    const placed: { sample: LatencySample; at: [number, number] }[] = [];
    let untimed: Section['untimed'];
    const byConfiguration = new Map<
      string,
      NonNullable<Section['accuracy']>['by_configuration'][number][1]
    >();
    const unknown = new Set<string>();
    let scored = false;
    const failures: NonNullable<Section['accuracy_error']>[] = [];
    for (const part of parts) {
      const section = sectionOf(part, ctx.suite);
      // A shard of traces read each line as a sample or as untimed; a CSV has no untimed lines.
      if (
        section.untimed &&
        (key === 'csv' || section.untimed.lines !== section.samples.length + section.untimed.untimed)
      )
        throw new InputError(
          { file: part.partial.file },
          `suite ${ctx.suite}: section samples: ${section.untimed.untimed} untimed of ${section.untimed.lines} lines; expected ${key === 'csv' ? 'none, for a CSV' : `its ${section.samples.length} samples and untimed lines in all`}`,
        );
      if (section.accuracy_error) failures.push(section.accuracy_error);
      for (const s of section.samples) {
        const f = part.fileAt(key, s.at[0]);
        // A configuration of trace files is the file's name (see configurations below).
        if (key === 'traces' && s.configuration !== ctx.relative(files[f]!))
          throw new InputError(
            { file: part.partial.file },
            `suite ${ctx.suite}: a sample of ${ctx.relative(files[f]!)}:${s.at[1]} names configuration ${preview(s.configuration, 80)}; expected its file's name, as a shard's run writes it`,
          );
        placed.push({
          sample: {
            configuration: s.configuration,
            qid: s.qid,
            e2eMs: s.e2e,
            stageMs: s.stages,
            ...(s.usage && { usage: usageFromWire(s.usage) }),
            source: { file: files[f]!, line: s.at[1] },
          },
          at: [f, s.at[1]],
        });
      }
      if (section.untimed) {
        untimed ??= { untimed: 0, lines: 0 };
        untimed.untimed += section.untimed.untimed;
        untimed.lines += section.untimed.lines;
      }
      if (section.accuracy) {
        scored = true;
        for (const [name, accuracy] of section.accuracy.by_configuration) byConfiguration.set(name, accuracy);
        for (const qid of section.accuracy.unknown) unknown.add(qid);
      }
    }
    placed.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
    const samples = placed.map((p) => p.sample);
    const configurations =
      key === 'csv'
        ? [...new Set(samples.map((s) => s.configuration))].sort(compareCodeUnits)
        : files.map(ctx.relative);
    if (configurations.length > 1 && failures.length > 0) {
      // One run reads gold first, then the trace files in order: the error it would stop at.
      const gold = new Set((ctx.inputs.gold ?? []).map(ctx.relative));
      const names = files.map(ctx.relative);
      const at = (f: (typeof failures)[number]) => (gold.has(f.file) ? -1 : names.indexOf(f.file));
      const first = failures.reduce((a, b) => (at(b) < at(a) ? b : a));
      throw new InputError(
        {
          file: path.resolve(ctx.baseDir, first.file),
          ...(first.line !== undefined ? { line: first.line } : {}),
          ...(first.column !== undefined ? { column: first.column } : {}),
        },
        first.detail,
      );
    }
    return {
      result: latencyResult(config, ctx, {
        samples,
        configurations,
        ...(untimed ? { untimed } : {}),
        ...(scored && configurations.length > 1 ? { accuracy: { byConfiguration, unknown } } : {}),
        hasStages: key === 'csv',
      }),
    };
  },
};

function sectionOf(part: MergePart, suite: string): Section {
  return part.partial.json(suite, 'samples', sectionSchema, 'the samples a latency shard read');
}
