import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dominators } from '../src/metrics/pareto.js';
import { percentile, sortedSamples } from '../src/metrics/percentile.js';
import { resolveMetric } from '../src/metrics/spec.js';
import { run } from '../src/run.js';
import type { LatencySample } from '../src/suites/latency/contract.js';
import { splitCsvLine } from '../src/suites/latency/csv.js';
import { metrics as latencyMetricSpecs } from '../src/suites/latency/metrics.js';
import { loadCsv } from '../src/suites/latency/load.js';
import {
  configurationPoints,
  latencyMetrics,
  slowestStage,
  slowRequests,
  tailAmplification,
} from '../src/suites/latency/score.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

const p = (values: number[], k: number) => percentile(sortedSamples(values), k);

describe('percentile (linear interpolation between closest ranks, R-7 / numpy default)', () => {
  it('matches hand-computed values', () => {
    // h = (n − 1)·k/100; x[⌊h⌋] + (h − ⌊h⌋)(x[⌈h⌉] − x[⌊h⌋]).
    expect(p([1, 2, 3, 4], 50)).toBe(2.5); // h = 1.5
    expect(p([1, 2, 3, 4], 95)).toBeCloseTo(3.85, 12); // h = 2.85
    expect(p([1, 2, 3, 4], 99)).toBeCloseTo(3.97, 12); // h = 2.97
    expect(p([1, 2, 3, 4], 0)).toBe(1);
    expect(p([1, 2, 3, 4], 100)).toBe(4);
    // The textbook example for this definition: P40 of 15, 20, 35, 40, 50 is 29 (h = 1.6).
    expect(p([15, 20, 35, 40, 50], 40)).toBeCloseTo(29, 12);
    // Order of the input does not matter; sortedSamples sorts numerically (not as strings: 100 > 20).
    expect(p([100, 20, 3], 50)).toBe(20);
  });

  it('lands exactly on a sample when the rank is whole, and handles ties', () => {
    const xs = Array.from({ length: 21 }, (_, i) => i * 10);
    expect(p(xs, 95)).toBe(190); // h = 20 · 0.95 = 19 exactly
    expect(p([5, 5, 5, 10], 50)).toBe(5); // h = 1.5 between two tied samples
    expect(p([5, 5, 5, 10], 90)).toBeCloseTo(8.5, 12); // h = 2.7: 5 + 0.7 · 5
    expect(p([7, 7, 7], 99)).toBe(7); // all identical
  });

  it('returns the sample itself for one sample, and nothing for none', () => {
    for (const k of [0, 50, 95, 99, 100]) expect(p([42], k)).toBe(42);
    expect(p([], 50)).toBeUndefined();
    expect(() => p([1], 101)).toThrow(RangeError);
    expect(() => p([1], -1)).toThrow(RangeError);
  });
});

describe('tail amplification', () => {
  it('is P99 / P50, not computable without samples or with P50 = 0', () => {
    // P50 = 300; P99: h = 3.96 → 400 + 0.96 · 600 = 976.
    expect(tailAmplification(sortedSamples([100, 200, 300, 400, 1000])).value).toBeCloseTo(976 / 300, 12);
    expect(tailAmplification(sortedSamples([250]))).toEqual({ value: 1 });
    expect(tailAmplification(sortedSamples([]))).toEqual({ value: null, reason: 'no latency samples' });
    expect(tailAmplification(sortedSamples([0, 0, 5]))).toEqual({ value: null, reason: 'P50 is 0 ms' });
  });
});

describe('dominators (Pareto set of lower cost, higher gain)', () => {
  it('finds the first dominating point; ties stay on the frontier together', () => {
    const points = [
      { cost: 100, gain: 0.7 }, // A: fastest
      { cost: 200, gain: 0.9 }, // B
      { cost: 300, gain: 0.9 }, // C: slower than B, no more precise → dominated by B
      { cost: 150, gain: 0.6 }, // D: slower and less precise than A
      { cost: 200, gain: 0.9 }, // E: equal to B → neither dominates the other
      { cost: 100, gain: 0.5 }, // F: as fast as A, less precise → dominated by A
    ];
    expect(dominators(points)).toEqual([-1, -1, 1, 0, -1, 0]);
    expect(dominators([])).toEqual([]);
    expect(dominators([{ cost: 1, gain: 0 }])).toEqual([-1]);
  });
});

describe('splitCsvLine', () => {
  it('splits plain and quoted fields, with columns', () => {
    expect(splitCsvLine('a,b,,c')).toEqual([
      { value: 'a', column: 1 },
      { value: 'b', column: 3 },
      { value: '', column: 5 },
      { value: 'c', column: 6 },
    ]);
    expect(splitCsvLine('1,"{""k"": 1, ""x"": 2}",z')).toEqual([
      { value: '1', column: 1 },
      { value: '{"k": 1, "x": 2}', column: 3 },
      { value: 'z', column: 26 },
    ]);
    expect(splitCsvLine('x,')).toEqual([
      { value: 'x', column: 1 },
      { value: '', column: 3 },
    ]);
    expect(splitCsvLine('""')).toEqual([{ value: '', column: 1 }]);
  });

  it('reports malformed quoting at its column', () => {
    expect(splitCsvLine('a,"open')).toMatchObject({
      column: 3,
      reason: expect.stringMatching(/^unterminated/),
    });
    expect(splitCsvLine('a,"x"y')).toEqual({
      column: 6,
      reason: 'found "y" after a closing quote; expected "," or the end of the line',
    });
    expect(splitCsvLine('ab"c,d')).toMatchObject({
      column: 3,
      reason: expect.stringMatching(/quote inside/),
    });
  });
});

const HEADER = 'ts,qid,e2e_ms,retrieval_ms,rerank_ms,llm_ms,guard_ms,knobs';

describe('loadCsv', () => {
  it('reads rows, skips a repeated header, keeps empty stages absent', async () => {
    const dir = tmpTree({
      'l.csv': `${HEADER}\r\n1,q1,100,10,,80,5,"{""k"": 1}"\n\n${HEADER}\n2,q2,200.5,20,30,140,5,\n`,
    });
    const samples = await loadCsv([path.join(dir, 'l.csv')]);
    expect(samples.map((s) => [s.qid, s.e2eMs, s.stageMs, s.configuration, s.source.line])).toEqual([
      ['q1', 100, { retrieval: 10, llm: 80, guard: 5 }, '{"k": 1}', 2],
      ['q2', 200.5, { retrieval: 20, rerank: 30, llm: 140, guard: 5 }, '', 5],
    ]);
  });

  it('accepts columns in any order and without the optional ones', async () => {
    const dir = tmpTree({ 'l.csv': 'e2e_ms,qid\n300,q1\n' });
    const [s] = await loadCsv([path.join(dir, 'l.csv')]);
    expect(s).toMatchObject({ qid: 'q1', e2eMs: 300, stageMs: {}, configuration: '' });
  });

  it('names file, line and column of bad input', async () => {
    const error = async (text: string) => {
      const dir = tmpTree({ 'l.csv': text });
      return loadCsv([path.join(dir, 'l.csv')]).then(
        () => 'no error',
        (e: Error) => e.message.replace(dir + path.sep, ''),
      );
    };
    expect(await error(`${HEADER}\n1,q1,fast,10,10,10,10,k\n`)).toBe(
      'l.csv:2:6: e2e_ms: found "fast"; expected a non-negative number of milliseconds',
    );
    expect(await error(`${HEADER}\n1,q1,-5,10,10,10,10,k\n`)).toBe(
      'l.csv:2:6: e2e_ms: found "-5"; expected a non-negative number of milliseconds',
    );
    expect(await error(`${HEADER}\n1,q1,,10,10,10,10,k\n`)).toBe(
      'l.csv:2:6: found an empty e2e_ms; expected the end-to-end milliseconds',
    );
    expect(await error(`${HEADER}\n1,q1,5,10,x,10,10,k\n`)).toBe(
      'l.csv:2:11: rerank_ms: found "x"; expected a non-negative number of milliseconds',
    );
    expect(await error(`${HEADER}\n1,q1,5\n`)).toBe(
      'l.csv:2: found 3 fields; expected 8, as in the header at line 1',
    );
    expect(await error(`${HEADER}\n1,,5,1,1,1,1,k\n`)).toBe(
      'l.csv:2:3: found an empty qid; expected a question id',
    );
    expect(await error('ts,qid,latency\n1,q,5\n')).toBe(
      `l.csv:1: header has no e2e_ms column; expected a header such as ${HEADER}`,
    );
    expect(await error('qid,e2e_ms,qid\n')).toBe(
      'l.csv:1: header names column "qid" twice; expected unique names',
    );
    expect(await error(`${HEADER}\n1,q1,5,1,1,1,1,"k\n`)).toMatch(/^l\.csv:2:16: unterminated quoted field/);
  });
});

let line = 0;
const sample = (
  configuration: string,
  e2eMs: number,
  stageMs: LatencySample['stageMs'] = {},
): LatencySample => ({
  configuration,
  qid: `q${++line}`,
  e2eMs,
  stageMs,
  source: { file: 'l.csv', line },
});
const resolved = (...names: string[]) => names.map((n) => resolveMetric(n, latencyMetricSpecs)!);

describe('latencyMetrics', () => {
  it('computes end-to-end and per-stage percentiles by hand', () => {
    const samples = [
      sample('a', 100, { retrieval: 10, llm: 80 }),
      sample('a', 200, { retrieval: 20, llm: 150 }),
      sample('a', 300, { retrieval: 30 }),
      sample('a', 400, { retrieval: 40, llm: 300 }),
    ];
    const m = latencyMetrics(
      samples,
      resolved('p50_ms', 'p95_ms', 'tail_amplification', 'retrieval.p50_ms', 'llm.p50_ms', 'rerank.p95_ms'),
      true,
    );
    expect(m.p50_ms).toEqual({ value: 250 });
    expect(m.p95_ms!.value).toBeCloseTo(385, 9); // h = 2.85 → 300 + 0.85 · 100
    expect(m.tail_amplification!.value).toBeCloseTo(397 / 250, 12); // P99: h = 2.97
    expect(m['retrieval.p50_ms']).toEqual({ value: 25 });
    // llm over the three rows that timed it: 80, 150, 300 → P50 = 150.
    expect(m['llm.p50_ms']).toEqual({ value: 150 });
    expect(m['rerank.p95_ms']).toEqual({ value: null, reason: 'no sample has rerank_ms' });
  });

  it('is not computable on no samples, and says traces have no stages', () => {
    const m = latencyMetrics([], resolved('p95_ms', 'tail_amplification', 'llm.p95_ms'), false);
    expect(m).toEqual({
      p95_ms: { value: null, reason: 'no latency samples' },
      tail_amplification: { value: null, reason: 'no latency samples' },
      'llm.p95_ms': {
        value: null,
        reason:
          'JSON Lines traces carry only latency_ms; per-stage times come from a csv: input, or from spans (format: openinference)',
      },
    });
  });
});

describe('configuration points and slow requests', () => {
  it('puts one point per configuration, fastest P95 first, with the Pareto set', () => {
    const samples = [
      ...[100, 200, 300].map((ms) => sample('slow', ms * 3)),
      ...[100, 200, 300].map((ms) => sample('quick', ms)),
      sample('mid', 500),
    ];
    const accuracy = new Map([
      ['quick', { precision: 0.6, chr: 0.7, coverage: 1, triage: 'none' }],
      ['mid', { precision: 0.9, chr: 0.9, coverage: 1, triage: 'none' }],
      ['slow', { precision: 0.8, chr: 0.95, coverage: 1, triage: 'none' }],
      ['empty', { precision: null, chr: null, coverage: 0, triage: 'none' }],
    ]);
    const points = configurationPoints(samples, ['empty', 'mid', 'quick', 'slow'], accuracy);
    // quick: P95 h = 1.9 → 200 + 0.9·100 = 290; mid: one sample, 500; slow: 870; empty: no samples.
    expect(points.map((q) => [q.name, q.requests, q.p95, q.pareto, q.dominatedBy])).toEqual([
      ['quick', 3, 290, true, undefined],
      ['mid', 1, 500, true, undefined],
      ['slow', 3, 870, false, 'mid'],
      ['empty', 0, undefined, null, undefined],
    ]);
    expect(points[0]).toMatchObject({ p50: 200, p99: 298, tailAmplification: 1.49 });
    expect(points[3]).toMatchObject({ tailAmplification: null });
    // Without accuracy there is nothing to trade latency against.
    expect(configurationPoints(samples, ['mid', 'quick', 'slow']).map((q) => q.pareto)).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('lists the requests above P95, slowest first, and their slowest stage', () => {
    const samples = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100].map((ms) => sample('a', ms));
    // P95: h = 9.5 between 100 and 100 → 100; nothing is strictly slower.
    expect(slowRequests(samples)).toEqual([]);
    const tail = [...samples, sample('a', 500, { retrieval: 50, rerank: 300, llm: 300 })];
    // n = 12, P95: h = 10.45 → 100 + 0.45 · 400 = 280: only the 500 ms request.
    expect(slowRequests(tail).map((s) => s.e2eMs)).toEqual([500]);
    expect(slowestStage(tail.at(-1)!)).toBe('rerank'); // a tie goes to the earlier stage
    expect(slowestStage(samples[0]!)).toBeUndefined();
    expect(slowRequests([sample('a', 1)])).toEqual([]); // one request is its own P95
    expect(slowRequests([])).toEqual([]);
  });
});

const gatesFile = (suite: string) => `version: 1\nsuites:\n  lat:\n${suite}`;

async function runIn(files: Record<string, string>) {
  const dir = tmpTree(files);
  return (await run({ config: path.join(dir, 'gates.yaml') })).report;
}

describe('latency suite', () => {
  it("scores the seed's CSV header alone as not computable, and fails a gate on it", async () => {
    const header = readFileSync(path.join(REPO, 'examples/latency/latency_csv_header.csv'), 'utf8');
    const report = await runIn({
      // Naming a configuration does not turn an empty input into an error: it is still not computable.
      'gates.yaml': gatesFile(
        '    kind: latency\n    csv: l.csv\n    configuration: a\n    gates:\n      p95_ms: "<= 2000"\n',
      ),
      'l.csv': header,
    });
    const lat = report.suites.lat!;
    expect(lat.metrics.p95_ms).toEqual({ value: null, reason: 'no latency samples' });
    expect(lat.metrics['llm.p50_ms']).toEqual({ value: null, reason: 'no sample has llm_ms' });
    expect(lat.counts).toEqual({ samples: 0, requests: 0, configurations: 0 });
    expect(report.gates).toEqual([
      expect.objectContaining({
        metric: 'p95_ms',
        value: null,
        passed: false,
        reason: 'not computable: no latency samples',
      }),
    ]);
    expect(report.verdict).toBe('fail');
  });

  it('gates one configuration of a CSV sweep and lists every configuration as a point', async () => {
    const rows = [
      '1,q1,100,10,5,80,5,a',
      '2,q2,200,10,5,180,5,a',
      '3,q3,900,10,5,880,5,a',
      '4,q1,50,5,5,35,5,b',
      '5,q2,60,5,5,45,5,b',
    ];
    const report = await runIn({
      'gates.yaml': gatesFile(
        '    kind: latency\n    csv: l.csv\n    configuration: a\n    percentiles: [50, 95]\n    gates:\n      p95_ms: "<= 800"\n      llm.p95_ms: "<= 1000"\n',
      ),
      'l.csv': `${HEADER}\n${rows.join('\n')}\n`,
    });
    const lat = report.suites.lat!;
    // a: 100, 200, 900. P50 = 200; P95: h = 1.9 → 200 + 0.9 · 700 = 830; P99: h = 1.98 → 886.
    expect(Object.keys(lat.metrics)).toEqual([
      'p50_ms',
      'p95_ms',
      'tail_amplification',
      'retrieval.p50_ms',
      'retrieval.p95_ms',
      'rerank.p50_ms',
      'rerank.p95_ms',
      'llm.p50_ms',
      'llm.p95_ms',
      'guard.p50_ms',
      'guard.p95_ms',
    ]);
    expect(lat.metrics.p50_ms).toEqual({ value: 200 });
    expect(lat.metrics.p95_ms!.value).toBeCloseTo(830, 9);
    expect(lat.metrics.tail_amplification!.value).toBeCloseTo(886 / 200, 12);
    expect(lat.metrics['llm.p95_ms']!.value).toBeCloseTo(180 + 0.9 * 700, 9);
    expect(lat.counts).toEqual({ samples: 5, requests: 3, configurations: 2 });
    expect(report.gates.map((g) => [g.metric, g.passed])).toEqual([
      ['p95_ms', false],
      ['llm.p95_ms', true],
    ]);
    expect(lat.tables).toEqual([
      {
        title: 'latency per configuration',
        columns: ['configuration', 'requests', 'p50_ms', 'p95_ms', 'p99_ms', 'tail_amplification'],
        rows: [
          ['b', 2, 55, 59.5, 59.9, 59.9 / 55],
          ['a', 3, 200, lat.metrics.p95_ms!.value, 886, lat.metrics.tail_amplification!.value],
        ],
      },
    ]);
    expect(lat.offenders).toEqual([
      {
        id: 'q3',
        labels: ['above_p95'],
        configuration: 'a',
        e2e_ms: 900,
        retrieval_ms: 10,
        rerank_ms: 5,
        llm_ms: 880,
        guard_ms: 5,
        slowest_stage: 'llm',
        row: 'l.csv:4',
      },
    ]);
  });

  it('scores each trace file against gold for latency vs accuracy', async () => {
    const gold = [
      {
        qid: 'Q1',
        question: 'q1',
        answerable: true,
        gold_claim_substr: ['alpha one'],
        gold_citations: ['d1'],
      },
      {
        qid: 'Q2',
        question: 'q2',
        answerable: true,
        gold_claim_substr: ['beta two'],
        gold_citations: ['d2'],
      },
    ];
    const trace = (qid: string, claim: string, cite: string, latency_ms?: number) => ({
      qid,
      retrieved_ids: ['d1', 'd2'],
      answer_json: { claim, citations: [cite] },
      ...(latency_ms === undefined ? {} : { latency_ms }),
    });
    const report = await runIn({
      'gates.yaml': gatesFile(
        '    kind: latency\n    traces: runs/*.jsonl\n    gold: gold.jsonl\n    percentiles: [50]\n    gates:\n      p50_ms: "<= 1000"\n',
      ),
      'gold.jsonl': jsonl(gold),
      // cheap: fast, half right; good: slower, all right; bad: slowest, half right → dominated by cheap.
      'runs/cheap.jsonl': jsonl([trace('Q1', 'alpha one', 'd1', 100), trace('Q2', 'wrong', 'd1', 300)]),
      'runs/good.jsonl': jsonl([trace('Q1', 'alpha one', 'd1', 400), trace('Q2', 'beta two', 'd2', 600)]),
      'runs/bad.jsonl': jsonl([
        trace('Q1', 'alpha one', 'd1', 900),
        trace('Q2', 'beta two', 'd1'),
        trace('Q3', 'x', 'd1', 950),
      ]),
    });
    const lat = report.suites.lat!;
    // The six timed lines pooled (one has no latency_ms): 100 300 400 600 900 950 → P50 h = 2.5.
    expect(lat.metrics.p50_ms).toEqual({ value: 500 });
    expect(lat.counts).toEqual({
      samples: 6,
      requests: 6,
      configurations: 3,
      untimed_lines: 1,
      unknown_qids: 1,
      pareto: 2,
    });
    const [points] = lat.tables!;
    expect(points!.chart).toEqual({
      x: 'p95_ms',
      y: 'precision',
      label: 'configuration',
      highlight: 'pareto',
    });
    const col = (row: unknown[], name: string) => row[points!.columns.indexOf(name)];
    expect(
      points!.rows.map((r) =>
        ['configuration', 'pareto', 'p95_ms', 'precision', 'chr', 'dominated_by'].map((c) => col(r, c)),
      ),
    ).toEqual([
      ['runs/cheap.jsonl', true, 290, 0.5, 0.5, null],
      ['runs/good.jsonl', true, 590, 1, 1, null],
      ['runs/bad.jsonl', false, 947.5, 0.5, 0.5, 'runs/cheap.jsonl'],
    ]);
    // Each configuration's failures by stage: Q2 cites d1 where its gold is d2 (retrieved) in cheap and bad.
    expect(points!.rows.map((r) => col(r, 'where it fails'))).toEqual(['citation 1', 'none', 'citation 1']);
    expect(lat.offenders.every((o) => o.labels[0] === 'above_p95')).toBe(true);
    expect(lat.warnings).toEqual([
      '1 of 7 trace lines have no latency_ms and are left out of the latency figures',
      '1 trace qid not in gold not scored for accuracy: Q3',
    ]);
    expect(lat.offenders.filter((o) => o.labels[0] === 'above_p95').map((o) => [o.id, o.e2e_ms])).toEqual([
      ['Q3', 950],
    ]);
  });

  it('rejects configurations that cannot be scored', async () => {
    const error = async (suite: string, files: Record<string, string> = {}) =>
      runIn({ 'gates.yaml': gatesFile(suite), 'l.csv': `${HEADER}\n1,q,5,1,1,1,1,a\n`, ...files }).then(
        () => 'no error',
        (e: Error) => e.message.replace(/^.*?gates\.yaml/, 'gates.yaml').replace(/^.*?l\.csv/, 'l.csv'),
      );
    expect(await error('    kind: latency\n')).toBe(
      'gates.yaml:3:3: suite "lat": expected exactly one of csv (a latency CSV) or traces (lines with qid and latency_ms)',
    );
    expect(await error('    kind: latency\n    csv: l.csv\n    traces: t.jsonl\n')).toMatch(
      /expected exactly one of csv/,
    );
    expect(await error('    kind: latency\n    csv: l.csv\n    gold: g.jsonl\n')).toBe(
      'gates.yaml:6:11: suite "lat": gold: gold scores traces, and a csv has no answers to score; expected traces with gold',
    );
    expect(await error('    kind: latency\n    csv: l.csv\n    gates:\n      p150_ms: "<= 1"\n')).toBe(
      'gates.yaml:7:16: suite "lat": gates.p150_ms: percentile 150 is above 100; expected p1_ms to p100_ms',
    );
    expect(await error('    kind: latency\n    csv: l.csv\n    percentiles: [0]\n')).toMatch(
      /percentiles\.0: expected a percentile from 1 to 100$/,
    );
    expect(await error('    kind: latency\n    csv: l.csv\n    configuration: z\n')).toBe(
      'l.csv: suite "lat": configuration "z" is not in the input; expected one of "a"',
    );
    const dir = tmpTree({
      'gates.yaml': gatesFile('    kind: latency\n    csv: l.csv\n'),
      'l.csv': `${HEADER}\n`,
      'g.jsonl': '',
    });
    const overridden = run({
      config: path.join(dir, 'gates.yaml'),
      inputs: [{ suite: 'lat', key: 'gold', path: path.join(dir, 'g.jsonl') }],
    });
    await expect(overridden).rejects.toThrow(
      /g\.jsonl: suite "lat": gold is given \(by --input\) with csv, which has no answers to score; expected traces with gold$/,
    );
    expect(await error('    kind: latency\n    csv: l.csv\n    knobs: a\n')).toBe(
      'gates.yaml:6:5: suite "lat": unknown key "knobs"; expected one of kind, csv, traces, gold, configuration, percentiles, refusal_token, refusal, citation_markers, scu, format, openinference, fields, pricing, gates',
    );
  });
});

describe('repository example (gates.yaml: latency, latency-accuracy)', () => {
  /* Expected values from an independent Python implementation of the same definitions. */
  it('gates the middle knobs of the CSV sweep', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['latency'] });
    const lat = report.suites.latency!;
    expect(lat.metrics.p50_ms).toEqual({ value: 1164 });
    expect(lat.metrics.p90_ms).toEqual({ value: 1366.1 });
    expect(lat.metrics.p95_ms).toEqual({ value: 1470.0500000000002 });
    expect(lat.metrics.p99_ms).toEqual({ value: 1553.21 });
    expect(lat.metrics.tail_amplification).toEqual({ value: 1.334372852233677 });
    expect(lat.metrics['llm.p95_ms']).toEqual({ value: 1352.65 });
    expect(lat.metrics['rerank.p99_ms']).toEqual({ value: 59 });
    expect(lat.counts).toEqual({ samples: 30, requests: 10, configurations: 3 });
    const t = lat.tables![0]!;
    expect(t.title).toBe('latency per configuration');
    expect(t.rows.map((r) => [String(r[0]).slice(0, 12), r[t.columns.indexOf('p95_ms')]])).toEqual([
      ['{"k_lex": 40', 1470.0500000000002],
      ['{"k_lex": 20', 1606.1],
      ['{"k_lex": 60', 1625.5],
    ]);
    expect(lat.offenders.map((o) => [o.id, o.labels[0], o.e2e_ms])).toEqual([['L007', 'above_p95', 1574]]);
    expect(report.verdict).toBe('pass');
  });

  it('finds the Pareto set of the three traced configurations', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['latency-accuracy'] });
    const lat = report.suites['latency-accuracy']!;
    expect(lat.metrics.p95_ms).toEqual({ value: 1454.3500000000001 });
    const t = lat.tables![0]!;
    const pick = (name: string) => t.rows.map((r) => r[t.columns.indexOf(name)]);
    expect(pick('configuration')).toEqual([
      'examples/latency/traces/fast.trace.jsonl',
      'examples/latency/traces/balanced.trace.jsonl',
      'examples/latency/traces/deep.trace.jsonl',
    ]);
    expect(pick('pareto')).toEqual([true, true, false]);
    expect(pick('p95_ms')).toEqual([981.1, 1454.3500000000001, 2191.9]);
    expect(pick('precision')).toEqual([0.75, 1, 0.875]);
    expect(lat.offenders.map((o) => [o.id, o.labels[0], o.e2e_ms])).toEqual([['L006', 'above_p95', 1480]]);
    expect(lat.counts).toMatchObject({ configurations: 3, pareto: 2 });
    expect(report.verdict).toBe('pass');
  });
});
