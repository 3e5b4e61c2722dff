import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTraceLine, type TraceLine } from '../src/grounded-answer/contract.js';
import { idMisread, readerOf } from '../src/grounded-answer/id-misread.js';
import { readersOf } from '../src/grounded-answer/misread.js';
import { judgeHeld } from '../src/grounded-answer/pipeline/judged-runs.js';
import { pickWinners } from '../src/grounded-answer/pipeline/pick.js';
import { RECORD_READS } from '../src/grounded-answer/record-reads.js';
import { readsOf, registerSource } from '../src/grounded-answer/sources/index.js';
import type { TraceSource } from '../src/grounded-answer/sources/source.js';
import { SPAN_READS } from '../src/grounded-answer/spans/span-reads.js';
import { timestamp } from '../src/grounded-answer/timestamp.js';
import type { TraceReads } from '../src/grounded-answer/trace-reads.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// Where a format reads a trace's members, and whether one trace may span files, are asked of the format
// (TraceSource.reads, through readsOf), never of its name: a format added from this file alone words the
// warnings, the id misread and the shard check with its own reads.

/** A run of the toy format: a canonical trace line, and the trace it is a part of. */
type ToyRun = TraceLine & { trace?: string };

interface ToyScan {
  utf8?: [string, number][];
  runs: { file: number; index: number; run: ToyRun; ts: number }[];
}

/** A format that reads a JSON array of runs a file, with the reads given. */
function toyFormat(name: string, reads: TraceReads | undefined): TraceSource {
  const source: TraceSource<ToyScan, undefined, readonly ToyScan[]> = {
    name,
    explanation: `a JSON array of runs a file (format: ${name}, a test of the registry)`,
    formats: [name],
    accepts: (_, input) => input.format === name,
    cut: (files) => () =>
      Promise.resolve({
        chunks: files.map((file, fileIndex) => ({ file, fileIndex, start: 0, end: 0 })),
        worthIt: false,
      }),
    async scan(queue) {
      const runs: ToyScan['runs'] = [];
      for (let next = queue.claim(); next; next = queue.claim()) {
        const { file, fileIndex } = next.chunk;
        (JSON.parse(readFileSync(file, 'utf8')) as { trace?: string }[]).forEach((value, index) => {
          const run = { ...checkTraceLine(value, file, index + 1), trace: value.trace };
          runs.push({ file: fileIndex, index, run, ts: timestamp(run.ts, file, index + 1) });
        });
      }
      return { runs };
    },
    buffers: () => [],
    pick: (scans, { gold, options, questions }) =>
      pickWinners(
        gold.map((g) => g.qid),
        options.cutoffs.length,
        questions,
        (offer) => {
          const runs = scans[0]!.runs;
          runs.forEach(({ file, index, run, ts }, ref) =>
            offer({
              qid: run.qid,
              ts,
              position: { file, ordinal: index + 1 },
              line: index + 1,
              ref,
              runs: 1,
            }),
          );
          return { lines: runs.length, winners: scans };
        },
      ),
    readBack: ({ table, winners }, _, judge) => ({
      records: judgeHeld(table, (row) => winners[0]!.runs[table.ref[row]!]!.run, judge),
      traceIds: () => winners[0]!.runs.flatMap((r) => r.run.trace ?? []),
    }),
    readsRecords: false,
    mainReads: true,
    digest: 'none',
    alone: true,
    ...(reads && { reads: () => reads }),
  };
  return source as TraceSource;
}

/** Reads of a format of its own words, its one misread key `doc_ref`, meeting 3 gold ids in 2 runs. */
const TOY_READS: TraceReads = {
  readers: (input) => ({ qid: `toy.qid: ${input.qid}`, retrieved: 'toy.docs', citations: 'toy.cites' }),
  idReader: () => 'toy.ids: doc',
  idKeys: () => Promise.resolve({ keys: [{ key: 'doc_ref', meets: 3 }], runs: 2 }),
  idFix: (key) => ({ key: `run.${key}`, setting: `toy.ids: ${key}` }),
  assemblesAcrossFiles: false,
};

let removals: (() => void)[] = [];
const register = (source: TraceSource) => removals.push(registerSource(source));
afterEach(() => {
  for (const remove of removals) remove();
  removals = [];
  vi.unstubAllEnvs();
});

describe('readsOf: how a format reads its traces, from its name alone', () => {
  it('is the span reads for openinference (OTLP lines and span documents alike), the records reads for jsonl', () => {
    expect(readsOf({ format: 'openinference', qid: 'input.value' })).toBe(SPAN_READS);
    expect(readsOf({ format: 'jsonl', qid: 'input.value' })).toBe(RECORD_READS);
  });

  it("is a format's own reads, or the records reads when it declares none", () => {
    register(toyFormat('toy', TOY_READS));
    register(toyFormat('plain', undefined));
    expect(readsOf({ format: 'toy', qid: 'input.value' })).toBe(TOY_READS);
    expect(readsOf({ format: 'plain', qid: 'input.value' })).toBe(RECORD_READS);
  });

  it('refuses two sources of one format name that read it in different ways', () => {
    register(toyFormat('toy', TOY_READS));
    register({ ...toyFormat('toy', undefined), name: 'toy2' });
    expect(() => readsOf({ format: 'toy', qid: 'input.value' })).toThrow(
      'internal: the trace sources of format toy read its traces in different ways',
    );
  });
});

describe("the messages of a format's reads", () => {
  it('name where the qid, the retrieved ids and the citations are read', () => {
    register(toyFormat('toy', TOY_READS));
    expect(readersOf({ format: 'toy', qid: 'q' })).toEqual({
      qid: 'toy.qid: q',
      retrieved: 'toy.docs',
      citations: 'toy.cites',
      refusal: 'refusal_token, or refusal: (phrases, patterns, a mapped /refused flag)',
    });
    // citation_markers: the claim is the one place citations are read from, whatever the format.
    expect(readersOf({ format: 'toy', qid: 'q', markers: true }).citations).toBe(
      'citation_markers (its pattern found no marker in any answer)',
    );
    expect(readerOf({ format: 'toy', qid: 'q' })).toBe('toy.ids: doc');
  });

  it('name the key that meets the gold ids, and the setting that reads ids from it', async () => {
    register(toyFormat('toy', TOY_READS));
    const meeting = { gold: 4, met: 0, traced: ['x1', 'x2', 'x3'], goldIds: ['g1', 'g2', 'g3'] };
    const gold = [{ citations: ['g1', 'g2'] }, { citations: ['g3', 'g4'] }];
    const err = await idMisread(meeting, gold, ['t.toy'], { format: 'toy', qid: 'q' }, [], 2);
    // Needed: ⌈0.05 × 4 gold ids × 2/2 runs⌉ = 1; doc_ref meets 3, in all 2 winners (no "read again" note).
    expect(err?.message).toBe(
      't.toy: retrieved ids (toy.ids: doc) look like x1, x2, …; gold ids like g1, g2, …; run.doc_ref meets 3 of 4 gold ids: set toy.ids: doc_ref',
    );
  });
});

describe('a format whose traces span files, sharded', () => {
  /** Two shards of a toy format's runs, trace `t1` in both (or `t1` and `t2`), merged. */
  async function mergeShards(reads: TraceReads, traces: [string, string]) {
    vi.stubEnv('GROUNDGATE_THREADS', '1');
    register(toyFormat('spread', reads));
    const gold = ['Q1', 'Q2'].map((qid) => ({
      qid,
      question: qid,
      answerable: true,
      gold_claim_substr: ['alpha'],
      gold_citations: ['d1'],
    }));
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'gates.yaml':
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: shards/*/t.toy\n    format: spread\n    gates:\n      precision: ">= 0"\n',
    });
    const config = path.join(dir, 'gates.yaml');
    const parts: string[] = [];
    for (const [k, qid] of ['Q1', 'Q2'].entries()) {
      const file = path.join(dir, 'shards', `${k}`, 't.toy');
      mkdirSync(path.dirname(file), { recursive: true });
      const run = { qid, retrieved_ids: ['d1'], answer_json: { claim: 'alpha', citations: ['d1'] } };
      writeFileSync(file, JSON.stringify([{ ...run, trace: traces[k] }]));
      const part = path.join(dir, `part-${k}.partial`);
      await writePartialRun(part, { config, inputs: [{ key: 'traces', path: file }] });
      parts.push(part);
    }
    return mergeRun(parts, { config });
  }

  it('is refused when one trace is in two shards, as OpenInference spans are', async () => {
    await expect(mergeShards({ ...RECORD_READS, assemblesAcrossFiles: true }, ['t1', 't1'])).rejects.toThrow(
      /part-1\.partial: suite qa: trace "t1" has spans in this shard and in \S*part-0\.partial; expected each trace's spans in one shard's files/,
    );
  });

  it('merges when each trace is in one shard, or when its traces cannot span files', async () => {
    const apart = await mergeShards({ ...RECORD_READS, assemblesAcrossFiles: true }, ['t1', 't2']);
    expect(apart.report.suites.qa!.metrics.precision!.value).toBe(1);
    removals.pop()!();
    const records = await mergeShards(RECORD_READS, ['t1', 't1']);
    expect(records.report.suites.qa!.metrics.precision!.value).toBe(1);
  });
});
