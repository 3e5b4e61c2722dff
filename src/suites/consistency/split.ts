import { z } from 'zod';
import { InputError } from '../../errors.js';
import type { MergePart, SuiteSplit } from '../types.js';
import { LABELS, type Judgment, type Pair } from './contract.js';
import { joinJudgments, loadPairs, loadRater, once } from './load.js';
import { oneInput } from './config.js';
import { consistencyResult } from './result.js';

/**
 * consistency over shards of its pairs, or of its scholar and auditor files: a shard keeps what it read
 * (each pair, or each rater's judgments, with where they were). A merge puts them in the order one run reads
 * them (file, then line), refuses a qid twice as one run does, and joins the raters' judgments itself: a
 * qid's two judgments may sit in different shards.
 */
const at = z.tuple([z.int().min(0), z.int().min(1)]);
const judgment = z.strictObject({
  label: z.enum(LABELS),
  reason: z.string().optional(),
  at,
});
const sectionSchema = z.union([
  z.strictObject({
    pairs: z.array(
      z.strictObject({
        qid: z.string(),
        scholar: judgment.omit({ at: true }),
        auditor: judgment.omit({ at: true }),
        red_flag: z.boolean(),
        citation_out_of_scope: z.boolean(),
        at,
      }),
    ),
  }),
  z.strictObject({
    scholar: z.array(judgment.extend({ qid: z.string() })),
    auditor: z.array(judgment.extend({ qid: z.string() })),
  }),
]);
type Section = z.infer<typeof sectionSchema>;
type Key = 'pairs' | 'scholar' | 'auditor';

export const consistencySplit: SuiteSplit<unknown> = {
  shardKeys: ['pairs', 'scholar', 'auditor'],

  async partial(_config, ctx) {
    const { pairs: pairFiles } = oneInput(ctx);
    const index = (key: Key) => new Map((ctx.inputs[key] ?? []).map((f, i) => [f, i]));
    let section: Section;
    if (pairFiles) {
      const files = index('pairs');
      section = {
        pairs: (await loadPairs(pairFiles)).map((p) => ({
          qid: p.qid,
          scholar: {
            label: p.scholar.label,
            ...(p.scholar.reason !== undefined ? { reason: p.scholar.reason } : {}),
          },
          auditor: {
            label: p.auditor.label,
            ...(p.auditor.reason !== undefined ? { reason: p.auditor.reason } : {}),
          },
          red_flag: p.redFlag,
          citation_out_of_scope: p.citationOutOfScope,
          at: [files.get(p.scholar.source.file)!, p.scholar.source.line],
        })),
      };
    } else {
      const files = { scholar: index('scholar'), auditor: index('auditor') };
      const list = async (key: 'scholar' | 'auditor') =>
        [...(await loadRater(ctx.inputs[key] ?? [], key))].map(([qid, j]) => ({
          qid,
          label: j.label,
          ...(j.reason !== undefined ? { reason: j.reason } : {}),
          at: [files[key].get(j.source.file)!, j.source.line] as [number, number],
        }));
      section = { scholar: await list('scholar'), auditor: await list('auditor') };
    }
    return { state: {}, sections: { read: Buffer.from(JSON.stringify(section), 'utf8') } };
  },

  async merge(_config, parts, ctx) {
    const sections = parts.map((part) => sectionOf(part, ctx.suite));
    const pairMode = sections.some((s) => 'pairs' in s);
    if (pairMode !== sections.every((s) => 'pairs' in s))
      throw new InputError(
        { file: parts[0]!.partial.file },
        `suite ${ctx.suite}: some partials hold pairs and some raters; expected one kind of input`,
      );
    const file = (key: Key, part: MergePart, [f, line]: [number, number]) => {
      const at = part.fileAt(key, f);
      return { at: [at, line] as [number, number], source: { file: ctx.inputs[key]![at]!, line } };
    };
    const byPlace = <T extends { at: [number, number] }>(list: T[]) =>
      list.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
    if (pairMode) {
      const placed = byPlace(
        sections.flatMap((s, i) =>
          (s as Extract<Section, { pairs: unknown }>).pairs.map((p) => {
            const { at: where, source } = file('pairs', parts[i]!, p.at);
            const pair: Pair = {
              qid: p.qid,
              scholar: { ...p.scholar, source },
              auditor: { ...p.auditor, source },
              redFlag: p.red_flag,
              citationOutOfScope: p.citation_out_of_scope,
            };
            return { at: where, pair, source };
          }),
        ),
      );
      const seen = new Map<string, { file: string; line: number }>();
      for (const p of placed) once(seen, p.pair.qid, p.source.file, p.source.line);
      return { result: consistencyResult(ctx, { pairs: placed.map((p) => p.pair) }) };
    }
    const rater = (key: 'scholar' | 'auditor') => {
      const placed = byPlace(
        sections.flatMap((s, i) =>
          (s as Extract<Section, { scholar: unknown }>)[key].map((j) => {
            const { at: where, source } = file(key, parts[i]!, j.at);
            const judgment: Judgment = {
              label: j.label,
              ...(j.reason !== undefined ? { reason: j.reason } : {}),
              source,
            };
            return { at: where, qid: j.qid, judgment };
          }),
        ),
      );
      const seen = new Map<string, { file: string; line: number }>();
      const out = new Map<string, Judgment>();
      for (const p of placed) {
        once(seen, p.qid, p.judgment.source.file, p.judgment.source.line);
        out.set(p.qid, p.judgment);
      }
      return out;
    };
    return { result: consistencyResult(ctx, { joined: joinJudgments(rater('scholar'), rater('auditor')) }) };
  },
};

function sectionOf(part: MergePart, suite: string): Section {
  return part.partial.json(suite, 'read', sectionSchema, 'the pairs or judgments a consistency shard read');
}
