import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { formatBaseline } from '../src/baseline/committed.js';
import { InputError } from '../src/errors.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { buildTrends } from '../src/report/trend.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { otlpLine, type SpanSpec } from './helpers/otlp-spans.js';
import { oneSuite, runIn } from './helpers/scored.js';
import { FIXTURES, jsonl, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

// Tokens and cost per answer in the grounded-qa suite (#58, points 1, 2 and 5): an answer is a gold item's
// winning run, refusals included.

const suite = (lines: readonly string[]) => oneSuite('qa', 'grounded-qa', lines);

const PRICES = [
  'pricing:',
  '      gpt-4o-mini: { input: 0.15, output: 0.60 }',
  '      claude-haiku: { input: 0.80, output: 4.00 }',
];

describe('grounded-qa over the OpenInference exports made by the real instrumentation', () => {
  // test/fixtures/openinference/ (npm run fixtures:openinference): the example's 50 runs, run i reporting
  // 1000 + i prompt and 100 + i completion tokens. The winners are runs 1 … 49 but 20 and 40 (runs 0, 20 and
  // 40 are superseded by later runs of their qids): 47 answers, Σi = 1225 − 60 = 1165.
  const n = 47;
  const sum = 1165;
  function workspace(fixture: string): string {
    const dir = tmpTree({});
    for (const file of ['gold/qa.gold.jsonl', 'gold/qa.gold.lock.json']) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      copyFileSync(path.join(REPO, file), path.join(dir, file));
    }
    copyFileSync(path.join(FIXTURES, 'openinference', fixture), path.join(dir, fixture));
    const config = YAML.parse(qaOnlyGates()) as { suites: { qa: Record<string, unknown> } };
    const qa = {
      ...config.suites.qa,
      traces: fixture,
      format: 'openinference',
      openinference: {
        qid: 'metadata.qid',
        ...(fixture.startsWith('langchain') && { document_id: 'metadata.id' }),
        ...(fixture.startsWith('llama-index') && { document_id: 'metadata.doc_id' }),
      },
      pricing: { fake: { input: 1.0, output: 2.0 } },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ ...config, suites: { qa } }));
    return dir;
  }

  for (const fixture of ['core.otlp.jsonl', 'llama-index.otlp.jsonl', 'langchain.otlp.jsonl']) {
    it(`reads each winner's LLM span counts (${fixture})`, async () => {
      const qa = (await runIn(workspace(fixture))).report.suites.qa!;
      expect(qa.metrics.tokens_in!.value).toBeCloseTo(1000 + sum / n, 10);
      expect(qa.metrics.tokens_out!.value).toBeCloseTo(100 + sum / n, 10);
      expect(qa.metrics.tokens!.value).toBeCloseTo(1100 + (2 * sum) / n, 10);
      // Sorted i: 1 … 19, 21 … 39, 41 … 49. p50 at rank 46·0.5 = 23, i = 25; p95 at rank 43.7, i = 46.7.
      expect(qa.metrics['tokens_in.p50']!.value).toBe(1025);
      expect(qa.metrics['tokens_in.p95']!.value).toBeCloseTo(1046.7, 10);
      expect(qa.counts).toMatchObject({ untokened: 0, uncosted: fixture.startsWith('langchain') ? 47 : 0 });
      if (fixture.startsWith('langchain')) {
        // LangChain's instrumentation writes no llm.model_name for a model that has none.
        expect(qa.metrics.cost!.value).toBeNull();
        expect(qa.warnings).toContain(
          '47 answers name no model (model, llm.model_name, gen_ai.response.model): n/a for cost',
        );
      } else {
        // Run i: ((1000 + i)·1 + (100 + i)·2)/1e6 = (1200 + 3i)/1e6; in all (47·1200 + 3·1165)/1e6.
        expect(qa.metrics.cost!.value).toBeCloseTo((1200 + (3 * sum) / n) / 1e6, 15);
        expect(qa.metrics['cost.total']!.value).toBeCloseTo(0.059895, 14);
      }
    });
  }
});

const T0 = 1_767_000_000_000;
/** A chat call: its model and counts (none: a call whose span counts no tokens). */
type Call = [model: string, tokensIn?: number, tokensOut?: number];

/** A GenAI trace of `qid` (app.qid) at T0 + at seconds: an agent root, a retrieval of d1, one chat per call. */
function genaiTrace(n: number, qid: string, at: number, calls: readonly Call[]): string {
  const t0 = T0 + at * 1000;
  return otlpLine(n, [
    {
      id: 1,
      name: 'invoke_agent qa',
      start: t0,
      end: t0 + 1000,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'app.qid': qid,
        // Not added: an agent's usage is its model calls' again.
        'gen_ai.usage.input_tokens': 999_999,
        'gen_ai.usage.output_tokens': 999_999,
      },
    },
    {
      id: 2,
      parent: 1,
      start: t0 + 10,
      end: t0 + 200,
      attributes: {
        'gen_ai.operation.name': 'retrieval',
        'gen_ai.retrieval.documents': JSON.stringify([{ id: 'd1' }]),
      },
    },
    ...calls.map(([model, tokensIn, tokensOut], i): SpanSpec => ({
      id: i + 3,
      parent: 1,
      start: t0 + 300 + 100 * i,
      end: t0 + 350 + 100 * i,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'requested-model',
        'gen_ai.response.model': model,
        ...(tokensIn !== undefined && { 'gen_ai.usage.input_tokens': tokensIn }),
        ...(tokensOut !== undefined && { 'gen_ai.usage.output_tokens': tokensOut }),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'Fact is 7.' }], finish_reason: 'stop' },
        ]),
      },
    })),
  ]);
}

const goldOf = (qids: readonly string[]) =>
  jsonl(
    qids.map((qid) => ({
      qid,
      question: `question ${qid}?`,
      answerable: true,
      gold_claim_substr: ['Fact is 7'],
      gold_citations: ['d1'],
    })),
  );

describe('grounded-qa over OTel GenAI spans', () => {
  // q1: gpt-4o-mini 1000 in, 100 out ((1000·0.15 + 100·0.60)/1e6 = 0.00021) and claude-haiku 200 in, 50 out
  // ((200·0.80 + 50·4.00)/1e6 = 0.00036): 1200 in, 150 out, 0.00057 USD. q2's first run (9000 in) is
  // superseded by its later one: 2000 in, 200 out, (300 + 120)/1e6 = 0.00042. q3 counts none. q4 calls a model
  // without a price: 500 in, 50 out, no cost. q5 has no trace: no answer.
  const spans = [
    genaiTrace(1, 'q1', 0, [
      ['gpt-4o-mini', 1000, 100],
      ['claude-haiku', 200, 50],
    ]),
    genaiTrace(2, 'q2', 1, [['gpt-4o-mini', 9000, 900]]),
    genaiTrace(3, 'q3', 2, [['gpt-4o-mini']]),
    genaiTrace(4, 'q4', 3, [['gpt-5', 500, 50]]),
    genaiTrace(5, 'q2', 4, [['gpt-4o-mini', 2000, 200]]),
  ];
  const config = suite([
    'gold: gold.jsonl',
    'traces: spans.jsonl',
    'format: otel',
    'openinference: { qid: app.qid }',
    ...PRICES,
    'gates:',
    '  tokens_in: { max: 4000 }',
  ]);

  for (const ext of ['jsonl', 'json'] as const)
    it(`sums each winner's chat spans, prices each call at its model's price, a trace without counts n/a (.${ext})`, async () => {
      // OTLP lines are read by the otlp source, a .json document by the records source.
      const body =
        ext === 'json'
          ? JSON.stringify({
              resourceSpans: spans.flatMap(
                (t) => (JSON.parse(t) as { resourceSpans: unknown[] }).resourceSpans,
              ),
            })
          : spans.join('\n') + '\n';
      const dir = tmpTree({
        'gold.jsonl': goldOf(['q1', 'q2', 'q3', 'q4', 'q5']),
        [`spans.${ext}`]: body,
        'gates.yaml': config.replace('traces: spans.jsonl', `traces: spans.${ext}`),
      });
      const qa = (await runIn(dir)).report.suites.qa!;
      const expected = {
        tokens_in: (1200 + 2000 + 500) / 3,
        tokens_out: (150 + 200 + 50) / 3,
        tokens: (1350 + 2200 + 550) / 3,
        // Sorted 1200, 2000, 500 → 500, 1200, 2000: p50 1200, p95 at rank 1.9: 1200 + 0.9·800.
        'tokens_in.p50': 1200,
        'tokens_in.p95': 1920,
        cost: (0.00057 + 0.00042) / 2,
        'cost.p50': (0.00057 + 0.00042) / 2,
        'cost.total': 0.00099,
      };
      for (const [name, value] of Object.entries(expected))
        expect([name, qa.metrics[name]!.value]).toEqual([name, expect.closeTo(value, 12)]);
      expect(qa.counts).toMatchObject({ untokened: 1, uncosted: 2 });
      expect(qa.warnings).toContain(
        '1 of 4 answers have no token count (tokens_in, tokens_out): n/a, left out of the token and cost figures',
      );
      expect(qa.warnings).toContain(
        'model "gpt-5" has no price in pricing: its 1 answer is n/a for cost (prices are yours to keep current; groundgate looks none up)',
      );
      const items = JSON.parse(JSON.stringify(qa.items)) as Record<string, { values?: object }>;
      expect(items.q1!.values).toEqual({
        tokens_in: 1200,
        tokens_out: 150,
        tokens: 1350,
        cost: expect.closeTo(0.00057, 15),
      });
      expect(items.q2!.values).toMatchObject({ tokens_in: 2000 });
      expect(items.q3!.values).toBeUndefined();
      expect(items.q4!.values).toEqual({ tokens_in: 500, tokens_out: 50, tokens: 550 });
      expect(items.q5!.values).toBeUndefined();
    });
});

describe('grounded-qa over OTel GenAI spans in chunks', () => {
  it('sums a winning trace whose spans are in two chunks of the input over all its spans', async () => {
    // q1's agent, retrieval and first chat (gpt-4o-mini 1000 in, 100 out) on the first line, its second chat
    // (claude-haiku 200 in, 50 out) on the last, 600 kB later: the input is cut in chunks of 256 kB or more,
    // so the two lines are in different chunks, and the trace is assembled again from both, 1200 in, 150 out, (1000·0.15 + 100·0.60 + 200·0.80 + 50·4.00)/1e6 USD.
    const q1 = JSON.parse(
      genaiTrace(1, 'q1', 0, [
        ['gpt-4o-mini', 1000, 100],
        ['claude-haiku', 200, 50],
      ]),
    ) as { resourceSpans: [{ scopeSpans: [{ spans: unknown[] }] }] };
    const spans = q1.resourceSpans[0].scopeSpans[0].spans;
    const withSpans = (some: unknown[]) => {
      const copy = structuredClone(q1);
      copy.resourceSpans[0].scopeSpans[0].spans = some;
      return JSON.stringify(copy);
    };
    // Traces of qids not in gold, 1.5 kB or so each.
    const filler = Array.from({ length: 500 }, (_, i) =>
      genaiTrace(100 + i, `other${i}`, i, [['gpt-4o-mini', 1, 1]]),
    );
    expect(filler.join('\n').length).toBeGreaterThan(600_000);
    const body = [withSpans(spans.slice(0, -1)), ...filler, withSpans(spans.slice(-1))].join('\n') + '\n';
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q1']),
      'spans.jsonl': body,
      'gates.yaml': suite([
        'gold: gold.jsonl',
        'traces: spans.jsonl',
        'format: otel',
        'openinference: { qid: app.qid }',
        ...PRICES,
      ]),
    });
    const qa = (await runIn(dir)).report.suites.qa!;
    expect(qa.metrics.tokens_in!.value).toBe(1200);
    expect(qa.metrics.tokens_out!.value).toBe(150);
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(0.00057, 15);
  });
});

/** A canonical trace line of `qid` answering `claim` from d1. */
const line = (qid: string, ts: number, claim: string, more: Record<string, unknown> = {}) => ({
  qid,
  ts,
  retrieved_ids: ['d1'],
  answer_json: { claim, citations: ['d1'] },
  ...more,
});

describe('grounded-qa over JSON Lines traces', () => {
  it('reads tokens_in, tokens_out and model of each winner; a refusal is an answer, a superseded run is not', async () => {
    const traces = [
      // q1's winner (ts 2) is before the run it supersedes in the file.
      line('q1', 2, 'Fact is 7.', { tokens_in: 1000, tokens_out: 100, model: 'gpt-4o-mini' }),
      line('q1', 1, 'Fact is 7.', { tokens_in: 9000, tokens_out: 900, model: 'gpt-4o-mini' }),
      line('q2', 1, 'NOT_IN_CONTEXT', { tokens_in: 3000, tokens_out: 10, model: 'claude-haiku' }),
      line('q3', 1, 'Fact is 7.'),
    ];
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q1', 'q2', 'q3', 'q4']),
      'traces.jsonl': jsonl(traces),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: traces.jsonl', ...PRICES]),
    });
    const qa = (await runIn(dir)).report.suites.qa!;
    // q1 (its winner): 0.00021; q2: (3000·0.80 + 10·4.00)/1e6 = 0.00244; q3 counts none; q4 has no run.
    expect(qa.metrics.tokens_in!.value).toBe(2000);
    expect(qa.metrics.tokens_out!.value).toBe(55);
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(0.00265, 15);
    expect(qa.counts).toMatchObject({ untokened: 1, uncosted: 1 });
  });

  it('reads a winner the byte scanner leaves (an escaped key) by parsing it, as judging does', async () => {
    const escaped =
      '{"qid":"q1","ts":1,"retrieved_ids":["d1"],"answer_json":{"claim":"Fact is 7.","citations":["d1"]},' +
      '"tokens\\u005fin":500,"tokens_out":50,"model":"gpt-4o-mini"}\n';
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q1', 'q2']),
      'traces.jsonl':
        escaped +
        jsonl([line('q2', 1, 'Fact is 7.', { tokens_in: 1500, tokens_out: 150, model: 'gpt-4o-mini' })]),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: traces.jsonl', ...PRICES]),
    });
    const qa = (await runIn(dir)).report.suites.qa!;
    expect(qa.metrics.tokens_in!.value).toBe(1000);
    // (500·0.15 + 50·0.60)/1e6 = 0.000105 and (1500·0.15 + 150·0.60)/1e6 = 0.000315.
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(0.00042, 15);
  });

  it('reads them from Parquet rows, alone or beside JSON Lines', async () => {
    // 40 rows in row groups of 16: row i answers q(i mod 20) at ts ⌊i/20⌋ with 100·(i + 1) tokens in and 10 out,
    // so the rows 20 … 39 win: Σ 100·(i + 1) over them = 100·(21 + … + 40) = 61,000, 20 answers.
    const rows = Array.from({ length: 40 }, (_, i) => i);
    const parquet = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'ts', data: rows.map((i) => BigInt(Math.floor(i / 20))), type: 'INT64' },
          { name: 'qid', data: rows.map((i) => `q${i % 20}`), type: 'STRING' },
          { name: 'retrieved_ids', data: rows.map(() => ['d1']) },
          { name: 'answer_json', data: rows.map(() => ({ claim: 'Fact is 7.', citations: ['d1'] })) },
          { name: 'tokens_in', data: rows.map((i) => 100 * (i + 1)), type: 'INT32' },
          { name: 'tokens_out', data: rows.map(() => 10), type: 'INT32' },
          { name: 'model', data: rows.map(() => 'gpt-4o-mini'), type: 'STRING' },
        ],
        rowGroupSize: 16,
      }),
    );
    const qids = rows.slice(0, 20).map((i) => `q${i}`);
    const alone = tmpTree({
      'gold.jsonl': goldOf(qids),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: traces.parquet', ...PRICES]),
    });
    writeFileSync(path.join(alone, 'traces.parquet'), parquet);
    const qa = (await runIn(alone)).report.suites.qa!;
    expect(qa.metrics.tokens_in!.value).toBe(61_000 / 20);
    // (61,000·0.15 + 200·0.60)/1e6.
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(0.00927, 15);
    // Beside a JSON Lines file whose later run of q0 (ts 5) wins with 7 tokens in: the records source reads both.
    const mixed = tmpTree({
      'gold.jsonl': goldOf(qids),
      'more.jsonl': jsonl([
        line('q0', 5, 'Fact is 7.', { tokens_in: 7, tokens_out: 10, model: 'gpt-4o-mini' }),
      ]),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: "{traces.parquet,more.jsonl}"', ...PRICES]),
    });
    writeFileSync(path.join(mixed, 'traces.parquet'), parquet);
    const both = (await runIn(mixed)).report.suites.qa!;
    expect(both.metrics.tokens_in!.value).toBe((61_000 - 2100 + 7) / 20);
  });

  it("reads a Parquet winner's counts with its row: an error at the winner's row, none at a superseded one's", async () => {
    // Rows 1 … 4: q0 at ts 0 (tokens_cached 50 above tokens_in 10, superseded by row 3), q1 at ts 0, q0 at ts 1,
    // q1 at ts 1 (its winner, tokens_cached 500 above tokens_in 100); the same file with row 4 at 100 cached reads.
    const parquet = (cachedLast: number) =>
      Buffer.from(
        parquetWriteBuffer({
          columnData: [
            { name: 'ts', data: [0n, 0n, 1n, 1n], type: 'INT64' },
            { name: 'qid', data: ['q0', 'q1', 'q0', 'q1'], type: 'STRING' },
            { name: 'retrieved_ids', data: [['d1'], ['d1'], ['d1'], ['d1']] },
            {
              name: 'answer_json',
              data: [0, 1, 2, 3].map(() => ({ claim: 'Fact is 7.', citations: ['d1'] })),
            },
            { name: 'tokens_in', data: [10, 20, 30, 100], type: 'INT32' },
            { name: 'tokens_out', data: [1, 2, 3, 4], type: 'INT32' },
            { name: 'tokens_cached', data: [50, 0, 0, cachedLast], type: 'INT32' },
            {
              name: 'model',
              data: ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini'],
              type: 'STRING',
            },
          ],
        }),
      );
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q0', 'q1']),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: traces.parquet', ...PRICES]),
    });
    writeFileSync(path.join(dir, 'traces.parquet'), parquet(100));
    expect((await runIn(dir)).report.suites.qa!.metrics.tokens_in!.value).toBe((30 + 100) / 2);
    writeFileSync(path.join(dir, 'traces.parquet'), parquet(500));
    await expect(runIn(dir)).rejects.toThrow(
      new InputError(
        { file: path.join(dir, 'traces.parquet'), line: 4 },
        'tokens_cached is 500, more than tokens_in 100; expected the cached part of the input tokens, at most their count',
      ),
    );
  });

  it("reads the records source's winners' counts with them: a superseded record's wrong count is no error", async () => {
    // Parquet beside JSON Lines, read as records: q0's first run (line 1, 50 cached of 10 in) is superseded by
    // its later one (line 2); q1's run is a Parquet row. An error at a winner's line.
    const parquet = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'ts', data: [0n], type: 'INT64' },
          { name: 'qid', data: ['q1'], type: 'STRING' },
          { name: 'retrieved_ids', data: [['d1']] },
          { name: 'answer_json', data: [{ claim: 'Fact is 7.', citations: ['d1'] }] },
          { name: 'tokens_in', data: [100], type: 'INT32' },
          { name: 'tokens_out', data: [10], type: 'INT32' },
          { name: 'model', data: ['gpt-4o-mini'], type: 'STRING' },
        ],
      }),
    );
    const usage = (tokensIn: number, cached: number) => ({
      tokens_in: tokensIn,
      tokens_out: 1,
      tokens_cached: cached,
      model: 'gpt-4o-mini',
    });
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q0', 'q1']),
      'more.jsonl': jsonl([
        line('q0', 1, 'Fact is 7.', usage(10, 50)),
        line('q0', 2, 'Fact is 7.', usage(30, 0)),
      ]),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: "{traces.parquet,more.jsonl}"', ...PRICES]),
    });
    writeFileSync(path.join(dir, 'traces.parquet'), parquet);
    expect((await runIn(dir)).report.suites.qa!.metrics.tokens_in!.value).toBe((30 + 100) / 2);
    writeFileSync(
      path.join(dir, 'more.jsonl'),
      jsonl([line('q0', 1, 'Fact is 7.', usage(10, 0)), line('q0', 2, 'Fact is 7.', usage(30, 31))]),
    );
    await expect(runIn(dir)).rejects.toThrow(
      new InputError(
        { file: path.join(dir, 'more.jsonl'), line: 2 },
        'tokens_cached is 31, more than tokens_in 30; expected the cached part of the input tokens, at most their count',
      ),
    );
  });

  it('maps usage.prompt_tokens and completion_tokens with fields:', async () => {
    const traces = [
      line('q1', 1, 'Fact is 7.', {
        model: 'gpt-4o-mini',
        usage: { prompt_tokens: 1000, completion_tokens: 100 },
      }),
      line('q2', 1, 'Fact is 7.', {
        model: 'gpt-4o-mini',
        usage: { prompt_tokens: 3000, completion_tokens: 300 },
      }),
    ];
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q1', 'q2']),
      'traces.jsonl': jsonl(traces),
      'gates.yaml': suite([
        'gold: gold.jsonl',
        'traces: traces.jsonl',
        'fields:',
        '  traces:',
        '    /tokens_in: /usage/prompt_tokens',
        '    /tokens_out: /usage/completion_tokens',
        ...PRICES,
      ]),
    });
    const qa = (await runIn(dir)).report.suites.qa!;
    expect(qa.metrics.tokens_in!.value).toBe(2000);
    expect(qa.metrics.tokens!.value).toBe(2200);
    // (1000·0.15 + 100·0.60)/1e6 = 0.00021 and (3000·0.15 + 300·0.60)/1e6 = 0.00063.
    expect(qa.metrics['cost.total']!.value).toBeCloseTo(0.00084, 15);
  });

  it('reads no usage, and reports no token metric, when neither pricing: nor a token gate asks', async () => {
    const traces = [line('q1', 1, 'Fact is 7.', { tokens_in: 1000, tokens_out: 100, model: 'gpt-4o-mini' })];
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q1']),
      'traces.jsonl': jsonl(traces),
      'gates.yaml': suite(['gold: gold.jsonl', 'traces: traces.jsonl']),
    });
    const qa = (await runIn(dir)).report.suites.qa!;
    expect(Object.keys(qa.metrics).filter((m) => m.startsWith('tokens') || m.startsWith('cost'))).toEqual([]);
    expect(qa.counts.untokened).toBeUndefined();
  });

  it('refuses max_new_failures on a token metric (an answer has no pass or fail of its tokens)', async () => {
    const dir = tmpTree({
      'gold.jsonl': goldOf(['q1']),
      'traces.jsonl': jsonl([line('q1', 1, 'Fact is 7.')]),
      'gates.yaml': suite([
        'gold: gold.jsonl',
        'traces: traces.jsonl',
        'gates:',
        '  tokens_in: { max_new_failures: 0 }',
      ]),
    });
    await expect(runIn(dir)).rejects.toThrow(
      /gates\.yaml:8:7: suite "qa": gates\.tokens_in: max_new_failures, but an item's verdict does not tell tokens_in's failures/,
    );
  });

  it('fails max_increase when a PR doubles the prompts, naming the items whose cost grew most, before → after', async () => {
    const usage = (tokensIn: number) => ({ tokens_in: tokensIn, tokens_out: 100, model: 'gpt-4o-mini' });
    const before = [
      line('a', 1, 'Fact is 7.', usage(1000)),
      line('b', 1, 'Fact is 7.', usage(2000)),
      line('c', 1, 'Fact is 7.', usage(1000)),
    ];
    // a and b double their prompts; c keeps its own.
    const after = [
      line('a', 1, 'Fact is 7.', usage(2000)),
      line('b', 1, 'Fact is 7.', usage(4000)),
      line('c', 1, 'Fact is 7.', usage(1000)),
    ];
    const gates = [...PRICES, 'gates:', '  tokens_in: { max: 4000, max_increase: 0.10 }'];
    const config = suite(['gold: gold.jsonl', 'traces: traces.jsonl', ...gates]);
    const base = tmpTree({
      'gold.jsonl': goldOf(['a', 'b', 'c']),
      'traces.jsonl': jsonl(before),
      'gates.yaml': config,
    });
    const baseReport = path.join(base, 'report.json');
    const baseRun = (await runIn(base)).report;
    writeFileSync(baseReport, JSON.stringify(baseRun));
    const dir = tmpTree({
      'gold.jsonl': goldOf(['a', 'b', 'c']),
      'traces.jsonl': jsonl(after),
      'gates.yaml': config,
    });
    const { report } = await runIn(dir, baseReport);
    const gate = report.gates.find((g) => g.metric === 'tokens_in' && g.op === 'max_increase')!;
    // Mean 4000/3 → 7000/3: +75%. Cost: b (2000·0.15 + 100·0.60)/1e6 = 0.00036 → 0.00066; a 0.00021 → 0.00036.
    expect(gate).toMatchObject({ threshold: 0.1, passed: false });
    expect(gate.reason).toBe(
      '+75.0% (1333.33 → 2333.33) over 3 paired items; grew most: b cost 0.00036 → 0.00066, a cost 0.00021 → 0.00036',
    );
    expect(report.verdict).toBe('fail');
    // Only the cost gate failed: the offenders are the answers that grew, most first, each described as the
    // suite describes its items (c did not grow).
    const qa = report.suites.qa!;
    expect(qa.offenders_total).toBe(2);
    expect(qa.offenders.map((o) => [o.id, o.labels, o.grew, o.before, o.after])).toEqual([
      ['b', ['grew'], 'cost', 0.00036, 0.00066],
      ['a', ['grew'], 'cost', 0.00021, 0.00036],
    ]);
    expect(qa.offenders[0]!.delta).toBeCloseTo(0.0003, 15);
    expect(qa.offenders[0]!.claim).toBe('Fact is 7.');
    // A cost is shown to three significant digits, where four decimals would round 0.00036 to 0.0004.
    expect(renderMarkdown(report, { offenders: 5 })).toContain(
      'grew: cost<br>before: 0.00036<br>after: 0.00066<br>delta: 0.0003',
    );
    // The PR comment's cost line: per answer (0.00036 + 0.00066 + 0.00021)/3 = 0.00041 against (0.00021 + 0.00036
    // + 0.00021)/3 = 0.00026, in all 0.00123 against 0.00078; tokens (2100 + 4100 + 1100)/3 against 4300/3.
    expect(renderMarkdown(report, { offenders: 0 })).toContain(
      '**cost** 0.00041 USD per answer (Δ +0.00015) · 0.00123 USD in all (Δ +0.00045) · 2433.33 tokens per answer (Δ +1000.00)',
    );
    // The committed baseline (.groundgate/baseline.jsonl) keeps each item's values: the gate pairs against it alike.
    const committed = formatBaseline(baseRun, null);
    expect(committed).toContain('"values":{"cost":0.00036,"tokens":2100,"tokens_in":2000,"tokens_out":100}');
    mkdirSync(path.join(dir, '.groundgate'));
    writeFileSync(path.join(dir, '.groundgate/baseline.jsonl'), committed);
    const again = (await runIn(dir)).report;
    expect(again.gates.find((g) => g.metric === 'tokens_in' && g.op === 'max_increase')!.reason).toBe(
      gate.reason,
    );
    // The trend chart plots the gated metric with its threshold.
    expect(buildTrends([], report).find((t) => t.key === 'qa.tokens_in')).toMatchObject({
      unit: 'tokens',
      points: [{ label: 'now', value: expect.closeTo(7000 / 3, 9) }],
    });
  });
});
