import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { runCli } from './helpers/process.js';
import { seeded } from './helpers/random.js';
import { otlpLines } from './helpers/formats.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// The threaded reading of traces (dist/qa-worker) is checked on the bundle, as users run it: the same
// report, byte for byte, whether one thread or several read the lines, and the same first error.
const rnd = seeded(909);
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const gold = Array.from({ length: 300 }, (_, i) => ({
  qid: `Q${i}`,
  question: `question ${i}?`,
  answerable: i % 7 !== 0,
  gold_claim_substr: i % 7 !== 0 ? [`fact number ${i}`] : [],
  gold_citations: i % 7 !== 0 ? [`d${i}`] : [],
  ...(i % 5 === 0 ? { constraints: ['Tokens are never written to the log.'] } : {}),
}));
function trace() {
  const i = int(0, 320); // past 299: qids not in gold
  const claim = rnd() < 0.1 ? 'not in context' : `It is fact number ${rnd() < 0.7 ? i : i + 1}; it may vary.`;
  return {
    // Few distinct ts values, some missing: ties and run order decide many winners.
    ...(rnd() < 0.15 ? {} : { ts: int(1, 4) }),
    qid: `Q${i}`,
    retrieved_ids: [`d${int(0, 320)}`, `d${i}`, `d${int(0, 320)}`],
    answer_json: {
      claim,
      citations: rnd() < 0.8 ? [`d${i}`] : ['d-none'],
      ...(rnd() < 0.5 ? { constraints_echo: ['Tokens are never written to the log.'] } : {}),
    },
  };
}
const lines = (n: number) =>
  jsonl(Array.from({ length: n }, trace)).replace(/\n/g, (nl) => (rnd() < 0.02 ? '\n\n' : nl));
const gates = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*.jsonl
    scu: true
    gates:
      precision: '>= 0.5'
`;

describe('grounded-qa on several threads (dist)', () => {
  const dir = tmpTree({
    'gates.yaml': gates,
    'gold.jsonl': jsonl(gold),
    'traces/a.jsonl': lines(1500),
    'traces/b.jsonl': lines(1700),
  });
  const run = (threads: string, report: string) =>
    runCli(['-c', 'gates.yaml', '--report', report, '--offenders', '50'], dir, {
      GROUNDGATE_THREADS: threads,
    });

  it('writes the same report as one thread, byte for byte', () => {
    const one = run('1', 'one.json');
    expect(one.status).toBe(1);
    const report = JSON.parse(readFileSync(path.join(dir, 'one.json'), 'utf8')) as {
      suites: { qa: { counts: Record<string, number> } };
    };
    expect(report.suites.qa.counts).toMatchObject({ gold: 300, trace_lines: 3200 });
    expect(report.suites.qa.counts.superseded_runs).toBeGreaterThan(2000);
    for (const threads of ['2', '3', '7']) {
      const many = run(threads, `many-${threads}.json`);
      expect(many.stdout).toBe(one.stdout);
      expect(readFileSync(path.join(dir, `many-${threads}.json`), 'utf8')).toBe(
        readFileSync(path.join(dir, 'one.json'), 'utf8'),
      );
    }
  }, 60_000);

  it('reports the first bad line in file order, with its line number in the file', () => {
    const bad = tmpTree({
      'gates.yaml': gates,
      'gold.jsonl': jsonl(gold),
      'traces/a.jsonl': lines(1500),
      // Two errors, both late in the last file: the earlier one is named whichever thread reads the later.
      'traces/b.jsonl': `${lines(1200)}{"qid": "Q1", "retrieved_ids": "d1"}\n${lines(300)}{not json\n`,
    });
    const expected =
      /^groundgate: traces\/b\.jsonl:(\d+): field "retrieved_ids": expected array, received string/;
    const one = runCli(['-c', 'gates.yaml'], bad, { GROUNDGATE_THREADS: '1' });
    const many = runCli(['-c', 'gates.yaml'], bad, { GROUNDGATE_THREADS: '5' });
    expect(one.status).toBe(2);
    expect(many.status).toBe(2);
    expect(one.stderr).toMatch(expected);
    expect(many.stderr).toBe(one.stderr);
    const text = readFileSync(path.join(bad, 'traces/b.jsonl'), 'utf8').split('\n');
    const line = Number(expected.exec(one.stderr)![1]);
    expect(text[line - 1]).toBe('{"qid": "Q1", "retrieved_ids": "d1"}');
  }, 60_000);

  it('says once, with its line, that a file is not UTF-8, whichever thread read the line', () => {
    const dir = tmpTree({ 'gates.yaml': gates, 'gold.jsonl': jsonl(gold), 'traces/a.jsonl': lines(1500) });
    const before = Buffer.from(lines(1400));
    const bad = Buffer.from(
      '{"qid": "Q3", "retrieved_ids": ["d3"], "answer_json": {"claim": "caf\u00e9 X", "citations": ["d3"]}}\n',
    );
    bad[bad.indexOf(0xc3)] = 0xff; // a byte that is never UTF-8, where é began
    writeFileSync(path.join(dir, 'traces/b.jsonl'), Buffer.concat([before, bad, Buffer.from(lines(300))]));
    const line = before.toString('utf8').split('\n').length;
    const expected = `traces/b.jsonl:${line}: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes (first such line; expected UTF-8 text)`;
    for (const threads of ['1', '5', '5', '5']) {
      const r = runCli(['-c', 'gates.yaml', '--report', `r${threads}.json`], dir, {
        GROUNDGATE_THREADS: threads,
      });
      expect(r.status).toBe(1);
      expect(r.stdout).toContain(`  warning: ${expected}\n`);
      const report = JSON.parse(readFileSync(path.join(dir, `r${threads}.json`), 'utf8'));
      expect(report.suites.qa.warnings).toContain(expected);
    }
    expect(readFileSync(path.join(dir, 'r5.json'), 'utf8')).toBe(
      readFileSync(path.join(dir, 'r1.json'), 'utf8'),
    );
  }, 60_000);

  it('OpenInference: names a span met twice in one line as one thread does, with its first place in the file', () => {
    const span = (traceId: string, spanId: string, parent?: string) => ({
      traceId,
      spanId,
      ...(parent ? { parentSpanId: parent } : {}),
      name: spanId,
      startTimeUnixNano: '1767225600000000000',
      endTimeUnixNano: '1767225601000000000',
      attributes: [
        { key: 'metadata', value: { stringValue: '{"qid":"Q1"}' } },
        { key: 'output.value', value: { stringValue: '{"claim":"x","citations":[]}' } },
      ],
    });
    const line = (...spans: object[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    const others = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => line(span(`x${from + i}`, 'a'))).join('\n');
    const dir = tmpTree({
      'gates.yaml': gates
        .replace('traces/*.jsonl', 'o.jsonl')
        .replace('    scu: true', '    format: openinference\n    openinference:\n      qid: metadata.qid'),
      'gold.jsonl': jsonl(gold),
      // The bad trace past the first chunks, whole in its own chunk on several threads.
      'o.jsonl': `${others(0, 300)}\n${line(span('t1', 'a'), span('t1', 'b', 'a'), span('t1', 'b', 'a'))}\n${others(300, 100)}\n`,
    });
    const expected =
      'groundgate: o.jsonl:301: trace "t1": span "b" again (first at o.jsonl:301); expected each span once (one export read twice?)\n';
    for (const threads of ['1', '2', '4']) {
      const r = runCli(['-c', 'gates.yaml'], dir, { GROUNDGATE_THREADS: threads });
      expect([threads, r.status, r.stderr]).toEqual([threads, 2, expected]);
    }
  }, 60_000);

  it('OpenInference with token counts: the same tokens and cost on one thread and on several', () => {
    // Trace i answers Q(i mod 300) at ts 1 + ⌊i/300⌋ with 1000 + i tokens in and 10 out of m-a: the last
    // round, i = 2700 … 2999, wins. tokens_in = 1000 + 2849.5; cost (3849.5·0.15 + 10·0.60)/1e6 each, 300 of them.
    const traces = Array.from({ length: 3000 }, (_, i) => ({
      ts: 1_767_225_600 + Math.floor(i / 300),
      qid: `Q${i % 300}`,
      retrieved_ids: [`d${i % 300}`],
      answer_json: { claim: `fact number ${i % 300}`, citations: [`d${i % 300}`] },
      latency_ms: 900,
      tokens_in: 1000 + i,
      tokens_out: 10,
      model: 'm-a',
    }));
    const dir = tmpTree({
      'gates.yaml': gates
        .replace('traces/*.jsonl', 'o.otlp.jsonl')
        .replace(
          '    scu: true',
          '    format: openinference\n    openinference:\n      qid: metadata.qid\n    pricing: { m-a: { input: 0.15, output: 0.6 } }',
        ),
      'gold.jsonl': jsonl(gold),
      'o.otlp.jsonl': otlpLines(traces, (t) => `question ${t.qid.slice(1)}?`),
    });
    const report = (threads: string) => {
      const r = runCli(['-c', 'gates.yaml', '--report', `r${threads}.json`], dir, {
        GROUNDGATE_THREADS: threads,
      });
      expect(r.status).toBe(0);
      return readFileSync(path.join(dir, `r${threads}.json`), 'utf8');
    };
    const one = report('1');
    const qa = (JSON.parse(one) as { suites: { qa: { metrics: Record<string, { value: number }> } } }).suites
      .qa;
    expect(qa.metrics.tokens_in!.value).toBe(3849.5);
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(300 * ((3849.5 * 0.15 + 10 * 0.6) / 1e6), 12);
    for (const threads of ['2', '4']) expect(report(threads)).toBe(one);
  }, 60_000);

  it('Parquet with token counts: the same tokens and cost on one thread and on several', () => {
    // Row i answers Q(i mod 300) at ts ⌊i/300⌋ with 1000 + i tokens in (10 cached) and 10 out of m-a, in row
    // groups of 100: the last round, rows 2700 … 2999, wins. tokens_in = 1000 + 2849.5; cost
    // ((3849.5 − 10)·0.15 + 10·0.075 + 10·0.60)/1e6 each, 300 of them.
    const rows = Array.from({ length: 3000 }, (_, i) => i);
    const dir = tmpTree({
      'gates.yaml': gates
        .replace('traces/*.jsonl', 'traces.parquet')
        .replace('    scu: true', '    pricing: { m-a: { input: 0.15, output: 0.6, cached_input: 0.075 } }'),
      'gold.jsonl': jsonl(gold),
    });
    writeFileSync(
      path.join(dir, 'traces.parquet'),
      Buffer.from(
        parquetWriteBuffer({
          columnData: [
            { name: 'ts', data: rows.map((i) => BigInt(Math.floor(i / 300))), type: 'INT64' },
            { name: 'qid', data: rows.map((i) => `Q${i % 300}`), type: 'STRING' },
            { name: 'retrieved_ids', data: rows.map((i) => [`d${i % 300}`]) },
            {
              name: 'answer_json',
              data: rows.map((i) => ({ claim: `fact number ${i % 300}`, citations: [`d${i % 300}`] })),
            },
            { name: 'tokens_in', data: rows.map((i) => 1000 + i), type: 'INT32' },
            { name: 'tokens_out', data: rows.map(() => 10), type: 'INT32' },
            { name: 'tokens_cached', data: rows.map(() => 10), type: 'INT32' },
            { name: 'model', data: rows.map(() => 'm-a'), type: 'STRING' },
          ],
          rowGroupSize: 100,
        }),
      ),
    );
    const report = (threads: string) => {
      const r = runCli(['-c', 'gates.yaml', '--report', `r${threads}.json`], dir, {
        GROUNDGATE_THREADS: threads,
      });
      expect(r.status).toBe(0);
      return readFileSync(path.join(dir, `r${threads}.json`), 'utf8');
    };
    const one = report('1');
    const qa = (JSON.parse(one) as { suites: { qa: { metrics: Record<string, { value: number }> } } }).suites
      .qa;
    expect(qa.metrics.tokens_in!.value).toBe(3849.5);
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(
      300 * (((3849.5 - 10) * 0.15 + 10 * 0.075 + 10 * 0.6) / 1e6),
      12,
    );
    for (const threads of ['2', '4']) expect(report(threads)).toBe(one);
  }, 60_000);

  it('rejects a GROUNDGATE_THREADS that is not a count', () => {
    const r = run('many', 'x.json');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/GROUNDGATE_THREADS="many": expected a whole number from 1 to 64/);
  });
});
