import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GroundedQaConfig } from '../src/suites/grounded-qa/config.js';
import { configError } from './helpers/config-error.js';
import { parseConfig } from '../src/config/load.js';
import { checkTraceLine, type TraceLine } from '../src/grounded-answer/contract.js';
import { judgeHeld } from '../src/grounded-answer/pipeline/judged-runs.js';
import { judgeRuns, loadGold } from '../src/grounded-answer/load.js';
import { aggregate, answerableOf } from '../src/grounded-answer/score.js';
import type { ScoreOptions } from '../src/grounded-answer/score-options.js';
import { registerSource } from '../src/grounded-answer/sources/index.js';
import { timestamp } from '../src/grounded-answer/timestamp.js';
import { CANONICAL_TRACES, traceInput, type TraceInput } from '../src/grounded-answer/trace-input.js';
import type { TraceSource } from '../src/grounded-answer/sources/source.js';

const gates = (format: string) =>
  `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold/qa.gold.jsonl\n    traces: qa.trace.toy\n    format: ${format}\n    gates:\n      precision: ">= 0.8"\n`;

// A format added from this file alone: one module (the object below) and one registry call. It reads runs as
// one JSON array a file, and scores the repository example as its JSON Lines do. It declares only what its
// input is and how it is read: threads, chunks, what crosses between them and the gold digest are the
// pipeline's.

interface ToyScan {
  runs: { file: number; index: number; run: TraceLine; ts: number }[];
}

const toy: TraceSource<ToyScan, readonly ToyScan[]> = {
  name: 'toy',
  explanation: 'a JSON array of runs a file (format: toy, a test of the registry)',
  formats: ['toy'],
  accepts: (_, input) => input.format === 'toy',
  layout: { chunks: 'files', heap: 'lines' },
  async scan(queue) {
    const runs: ToyScan['runs'] = [];
    for (let next = queue.claim(); next; next = queue.claim()) {
      const { file, fileIndex } = next.chunk;
      (JSON.parse(readFileSync(file, 'utf8')) as unknown[]).forEach((value, index) => {
        const run = checkTraceLine(value, file, index + 1);
        runs.push({ file: fileIndex, index, run, ts: timestamp(run.ts, file, index + 1) });
      });
    }
    return { runs };
  },
  candidates: (scans, _, offer) => {
    const runs = scans[0]!.runs;
    runs.forEach(({ file, index, run, ts }, ref) =>
      offer({ qid: run.qid, ts, position: { file, ordinal: index + 1 }, line: index + 1, ref, runs: 1 }),
    );
    return { lines: runs.length, winners: scans };
  },
  readBack: ({ table, winners }, _, judge) => ({
    records: judgeHeld(table, (row) => winners[0]!.runs[table.ref[row]!]!.run, judge),
  }),
};

describe('a format added from a test file alone', () => {
  it('scores the repository example through the registry as canonical JSON Lines', async () => {
    const remove = registerSource(toy as TraceSource);
    try {
      const lines = readFileSync('runs/qa.trace.jsonl', 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      const dir = mkdtempSync(path.join(tmpdir(), 'toy-format-'));
      const file = path.join(dir, 'qa.trace.toy');
      writeFileSync(file, `[${lines.join(',\n')}]`);
      const { items: gold } = await loadGold(['gold/qa.gold.jsonl']);
      // gates.yaml names the toy as it names any format: the registry's list is the one it accepts.
      const config = parseConfig(gates('toy'), path.join(dir, 'gates.yaml')).suites[0]!
        .config as GroundedQaConfig;
      const toyInput = traceInput({ ...config, fields: config.fields?.traces });
      expect(toyInput).toEqual({ format: 'toy', qid: 'input.value' });
      const options = (traces: TraceInput): ScoreOptions => ({
        refusalToken: 'not in context',
        scuRules: null,
        cutoffs: [5],
        traces,
      });
      const canonical = await judgeRuns(['runs/qa.trace.jsonl'], gold, options(CANONICAL_TRACES));
      const viaToy = await judgeRuns([file], gold, options(toyInput));
      const answerable = answerableOf(gold);
      const metrics = (t: typeof canonical) =>
        aggregate(answerable, t.table, options(CANONICAL_TRACES)).metrics;
      expect(viaToy.lines).toBe(50);
      expect(viaToy.superseded).toBe(3);
      expect(metrics(viaToy)).toEqual(metrics(canonical));
      // The example's figures (README): precision 30/33, chr 32/33, recall@5 32/35.
      expect(metrics(viaToy).precision!.value).toBeCloseTo(30 / 33, 10);
      expect(metrics(viaToy).chr!.value).toBeCloseTo(32 / 33, 10);
    } finally {
      remove();
    }
  });
});

describe('gates.yaml format: the registered formats', () => {
  it('refuses a format no source reads, at its line:column, listing the registered ones', () => {
    expect(configError(gates('toy'))).toBe(
      'gates.yaml:7:13: suite "qa": format: unknown trace format "toy"; expected one of jsonl, openinference, otel',
    );
  });

  it('lists a format registered since, and forgets it once removed', () => {
    const remove = registerSource(toy as TraceSource);
    try {
      expect(configError(gates('toi'))).toBe(
        'gates.yaml:7:13: suite "qa": format: unknown trace format "toi"; expected one of jsonl, openinference, otel, toy',
      );
    } finally {
      remove();
    }
    expect(configError(gates('toi'))).toMatch(/expected one of jsonl, openinference, otel$/);
  });
});
