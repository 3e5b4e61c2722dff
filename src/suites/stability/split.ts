import { z } from 'zod';
import { InputError } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import { loadGold } from '../../grounded-answer/load.js';
import type { MergePart, SuiteSplit } from '../types.js';
import type { StabilityRun } from './contract.js';
import type { StabilityRunsLoad } from './load.js';
import type { StabilityConfig } from './config.js';
import { loadStability } from './load.js';
import { stabilityResult } from './result.js';

/**
 * stability over shards of its runs: a question's runs may sit in any shards. Each shard keeps its runs of
 * gold questions as read (a run_id's later line in its place), with where each run's first and last line
 * were. A merge lists each question's runs in the order one run over every shard's files reads them: by
 * first line, a run_id repeated in two shards once, with the later shard's content, counted as superseded.
 */
const place = z.tuple([z.int().min(0), z.int().min(1)]);
const runSchema = z.strictObject({
  qid: z.string(),
  run_id: z.string().optional(),
  claim: z.string(),
  citations: z.array(z.string()),
  constraints_echo: z.array(z.string()).optional(),
  retrieved: z.array(z.string()),
  refused: z.boolean().optional(),
  /** [file, line] of the line read (the last of its run_id), and of its first line. */
  last: place,
  first: place,
});
const sectionSchema = z.strictObject({
  lines: z.int().min(0),
  superseded: z.int().min(0),
  runs: z.array(runSchema),
  unknown: z.array(z.tuple([z.string(), z.int().min(1)])),
});
type Section = z.infer<typeof sectionSchema>;

export const stabilitySplit: SuiteSplit<StabilityConfig> = {
  shardKeys: ['runs'],

  async partial(config, ctx) {
    const { digest, loaded } = await loadStability(config, ctx);
    const files = new Map(ctx.inputs.runs!.map((f, i) => [f, i]));
    const at = (s: { file: string; line: number }): [number, number] => [files.get(s.file)!, s.line];
    const section: Section = {
      lines: loaded.lines,
      superseded: loaded.superseded,
      runs: [...loaded.runs.values()].flat().map((r) => ({
        qid: r.qid,
        ...(r.runId !== undefined ? { run_id: r.runId } : {}),
        claim: r.claim,
        citations: r.citations,
        ...(r.constraintsEcho !== undefined ? { constraints_echo: r.constraintsEcho } : {}),
        retrieved: r.retrieved,
        ...(r.refused !== undefined ? { refused: r.refused } : {}),
        last: at(r.source),
        first: at(loaded.firsts.get(r) ?? r.source),
      })),
      unknown: [...loaded.unknown],
    };
    return {
      state: {},
      goldDigest: digest!,
      sections: { runs: Buffer.from(JSON.stringify(section), 'utf8') },
    };
  },

  async merge(config, parts, ctx) {
    const { items: gold, digest } = await loadGold(ctx.inputs.gold!, { fields: config.fields?.gold });
    const qids = new Set(gold.map((g) => g.qid));
    const files = ctx.inputs.runs!;
    interface Placed {
      run: StabilityRun;
      first: number[];
      last: number[];
    }
    const placed: Placed[] = [];
    const loaded: StabilityRunsLoad = {
      runs: new Map(),
      lines: 0,
      superseded: 0,
      unknown: new Map(),
      firsts: new Map(),
    };
    for (const part of parts) {
      const section = sectionOf(part, ctx.suite);
      const where = { file: part.partial.file };
      checkCounts(part, ctx.suite, section, qids);
      const union = ([f, line]: [number, number]) => [part.fileAt('runs', f), line];
      loaded.lines += section.lines;
      loaded.superseded += section.superseded;
      for (const [qid, n] of section.unknown) loaded.unknown.set(qid, (loaded.unknown.get(qid) ?? 0) + n);
      for (const r of section.runs) {
        if (!qids.has(r.qid))
          throw new InputError(
            where,
            `suite ${ctx.suite}: a run of qid ${JSON.stringify(r.qid)}, which is not in gold; expected a partial of this gold set`,
          );
        const last = union(r.last);
        placed.push({
          run: {
            qid: r.qid,
            ...(r.run_id !== undefined ? { runId: r.run_id } : {}),
            claim: r.claim,
            citations: r.citations,
            ...(r.constraints_echo !== undefined ? { constraintsEcho: r.constraints_echo } : {}),
            retrieved: r.retrieved,
            ...(r.refused !== undefined ? { refused: r.refused } : {}),
            source: { file: files[last[0]!]!, line: last[1]! },
          },
          first: union(r.first),
          last,
        });
      }
    }
    const before = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]!;
    // A run_id in several shards is one run: placed where it first was, read as where it last was.
    const byRunId = new Map<string, Placed>();
    const kept: Placed[] = [];
    for (const p of placed) {
      if (p.run.runId === undefined) {
        kept.push(p);
        continue;
      }
      const key = `${p.run.qid}\u0000${p.run.runId}`;
      const other = byRunId.get(key);
      if (!other) {
        byRunId.set(key, p);
        kept.push(p);
        continue;
      }
      loaded.superseded++;
      const first = before(p.first, other.first) < 0 ? p.first : other.first;
      const latest = before(p.last, other.last) > 0 ? p : other;
      other.run = latest.run;
      other.last = latest.last;
      other.first = first;
    }
    kept.sort((a, b) => before(a.first, b.first) || compareCodeUnits(a.run.qid, b.run.qid));
    for (const p of kept) {
      let list = loaded.runs.get(p.run.qid);
      if (!list) loaded.runs.set(p.run.qid, (list = []));
      list.push(p.run);
    }
    return { result: await stabilityResult(config, ctx, gold, loaded), digests: digest! };
  },
};

/**
 * A shard's counts against its runs: every line read was a run of a gold question (kept, or superseded by a
 * later line of its run_id) or of a qid not in gold; a run_id is one run; a run's first line is not after
 * its last.
 */
function checkCounts(part: MergePart, suite: string, section: Section, qids: ReadonlySet<string>): void {
  const broken = (what: string) =>
    new InputError(
      { file: part.partial.file },
      `suite ${suite}: section runs ${what}; expected a consistent partial`,
    );
  let unknownLines = 0;
  for (const [qid, n] of section.unknown) {
    if (qids.has(qid)) throw broken(`lists qid ${JSON.stringify(qid)} as not in gold, which it is`);
    unknownLines += n;
  }
  if (section.lines !== section.runs.length + section.superseded + unknownLines)
    throw broken(
      `holds ${section.lines} lines; expected its runs, superseded lines and unknown lines, ${section.runs.length + section.superseded + unknownLines}`,
    );
  const ids = new Set<string>();
  section.runs.forEach((r, i) => {
    if (r.first[0] > r.last[0] || (r.first[0] === r.last[0] && r.first[1] > r.last[1]))
      throw broken(`run ${i}: its first line is after its last`);
    if (r.run_id === undefined) return;
    const key = `${r.qid}\u0000${r.run_id}`;
    if (ids.has(key))
      throw broken(`run ${i}: run_id ${JSON.stringify(r.run_id)} of ${JSON.stringify(r.qid)} twice`);
    ids.add(key);
  });
}

function sectionOf(part: MergePart, suite: string): Section {
  return part.partial.json(suite, 'runs', sectionSchema, 'the runs a stability shard read');
}
