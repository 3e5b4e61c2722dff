import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { idMisread, readerOf } from '../src/grounded-answer/id-misread.js';
import { readersOf } from '../src/grounded-answer/misread.js';
import { RECORD_READS } from '../src/grounded-answer/record-reads.js';
import { readsOf, registerSource } from '../src/grounded-answer/sources/index.js';
import type { TraceSource } from '../src/grounded-answer/sources/source.js';
import { SPAN_READS } from '../src/grounded-answer/spans/span-reads.js';
import { otlpSource } from '../src/grounded-answer/sources/otlp/otlp-source.js';
import type { TraceInput } from '../src/grounded-answer/trace-input.js';
import type { TraceReads } from '../src/grounded-answer/trace-reads.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { otlpLines } from './helpers/formats.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// Where a format reads a trace's members, and whether one trace may span files, are asked of the format
// (TraceSource.reads, through readsOf), never of its name: a format added from this file alone words the
// warnings and the id misread with its own reads, and the merge of partials asks it whether a trace spans
// shards.

/**
 * A format of its own name, as far as the registry and the messages see it: what else a source does is not
 * asked of it here.
 */
const namedFormat = (name: string, reads: TraceReads | undefined) =>
  ({
    name,
    explanation: `format: ${name}, a test of the registry`,
    formats: [name],
    accepts: (_: unknown, input: TraceInput) => input.format === name,
    ...(reads && { reads: () => reads }),
  }) as unknown as TraceSource;

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
    register(namedFormat('toy', TOY_READS));
    register(namedFormat('plain', undefined));
    expect(readsOf({ format: 'toy', qid: 'input.value' })).toBe(TOY_READS);
    expect(readsOf({ format: 'plain', qid: 'input.value' })).toBe(RECORD_READS);
  });

  it('refuses two sources of one format name that read it in different ways', () => {
    register(namedFormat('toy', TOY_READS));
    register({ ...namedFormat('toy', undefined), name: 'toy2' });
    expect(() => readsOf({ format: 'toy', qid: 'input.value' })).toThrow(
      'internal: the trace sources of format toy read its traces in different ways',
    );
  });
});

describe("the messages of a format's reads", () => {
  it('name where the qid, the retrieved ids and the citations are read', () => {
    register(namedFormat('toy', TOY_READS));
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
    register(namedFormat('toy', TOY_READS));
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
  /**
   * Two shards of OTLP lines read under a format name of their own, with `reads`; one run each, of Q1 and of
   * Q2. Each shard numbers its traces from 1, so trace 1 is in both.
   */
  async function mergeShards(reads: TraceReads) {
    vi.stubEnv('GROUNDGATE_THREADS', '1');
    register({
      ...otlpSource,
      name: 'spread',
      formats: ['spread'],
      accepts: (_, i) => i.format === 'spread',
      reads: () => reads,
    } as TraceSource);
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
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: shards/*/t.jsonl\n    format: spread\n    gates:\n      precision: ">= 0"\n',
    });
    const config = path.join(dir, 'gates.yaml');
    const parts: string[] = [];
    for (const [k, qid] of ['Q1', 'Q2'].entries()) {
      const file = path.join(dir, 'shards', `${k}`, 't.jsonl');
      mkdirSync(path.dirname(file), { recursive: true });
      const run = {
        qid,
        ts: 1000 + k,
        retrieved_ids: ['d1'],
        answer_json: { claim: 'alpha', citations: ['d1'] },
      };
      writeFileSync(
        file,
        otlpLines([run], (t) => t.qid),
      );
      const part = path.join(dir, `part-${k}.partial`);
      await writePartialRun(part, { config, inputs: [{ key: 'traces', path: file }] });
      parts.push(part);
    }
    return mergeRun(parts, { config });
  }

  it('is refused when one trace is in two shards, as OpenInference spans are', async () => {
    await expect(mergeShards(SPAN_READS)).rejects.toThrow(
      /part-1\.partial: suite qa: trace "0+1" has spans in this shard and in \S*part-0\.partial; expected each trace's spans in one shard's files/,
    );
  });

  it('merges the shards when its traces cannot span files', async () => {
    const merged = await mergeShards({ ...SPAN_READS, assemblesAcrossFiles: false });
    expect(merged.report.suites.qa!.metrics.precision!.value).toBe(1);
  });
});
