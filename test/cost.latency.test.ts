import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spanUsage } from '../src/cost/usage.js';
import { InputError } from '../src/errors.js';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { traceLineSchema, traceTest } from '../src/grounded-answer/contract.js';
import { lineScanner } from '../src/io/record-shape.js';
import { traceShape } from '../src/grounded-answer/contract.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { buildTrends } from '../src/report/trend.js';
import { otlpLine, type SpanSpec } from './helpers/otlp-spans.js';
import { oneSuite, runIn } from './helpers/scored.js';
import { tmpTree } from './helpers/tmp.js';

// Tokens and cost per answer as gated metrics in the latency suite (#58, points 1–3).

const PRICES = [
  'pricing:',
  '      gpt-4o-mini: { input: 0.15, output: 0.60 }',
  '      claude-haiku: { input: 0.80, output: 4.00 }',
];

type Call = [model: string, tokensIn: number, tokensOut: number];

/** Trace n: a CHAIN root of 1000 ms and one LLM span per call, each with its OpenInference counts and model. */
function trace(n: number, calls: readonly Call[]): string {
  const t0 = 1_767_000_000_000 + n * 10_000;
  const spans: SpanSpec[] = [
    {
      id: 1,
      start: t0,
      end: t0 + 1000,
      attributes: { 'openinference.span.kind': 'CHAIN', metadata: JSON.stringify({ qid: `q${n}` }) },
    },
    ...calls.map(([model, tokensIn, tokensOut], i): SpanSpec => ({
      id: i + 2,
      parent: 1,
      start: t0 + 100 * (i + 1),
      end: t0 + 100 * (i + 1) + 50,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': model,
        'llm.token_count.prompt': tokensIn,
        'llm.token_count.completion': tokensOut,
        // Not read: a total cannot be priced (input and output have their own prices).
        'llm.token_count.total': 999_999,
      },
    })),
  ];
  return otlpLine(n, spans);
}

const TRACES = [
  trace(1, [
    ['gpt-4o-mini', 1000, 100],
    ['claude-haiku', 200, 50],
  ]),
  trace(2, [['gpt-4o-mini', 2000, 200]]),
  trace(3, [
    ['gpt-4o-mini', 1000, 100],
    ['unknown-model', 100, 10],
  ]),
  trace(4, []),
];

const suite = (lines: readonly string[]) => oneSuite('lat', 'latency', lines);

describe('token counts and cost from OpenInference spans', () => {
  // Trace 1: gpt-4o-mini 1000 in, 100 out ((1000·0.15 + 100·0.60)/1e6 = 0.00021) and claude-haiku 200 in, 50
  // out ((200·0.80 + 50·4.00)/1e6 = 0.00036): 1200 in, 150 out, 0.00057 USD. Trace 2: 2000 in, 200 out,
  // (300 + 120)/1e6 = 0.00042. Trace 3: 1100 in, 110 out, one call to a model without a price: no cost.
  // Trace 4: no count at all.
  const expected = {
    tokens_in: (1200 + 2000 + 1100) / 3,
    'tokens_in.p50': 1200,
    tokens_out: (150 + 200 + 110) / 3,
    tokens: (1350 + 2200 + 1210) / 3,
    cost: (0.00057 + 0.00042) / 2,
    'cost.total': 0.00099,
  };

  for (const ext of ['otlp.jsonl', 'json'] as const) {
    it(`sums each trace's LLM spans, prices each call at its model's price, warns of a model without one (.${ext})`, async () => {
      // A .jsonl line is read on its bytes (otlp-attributes.ts); a .json document is parsed (span-facts.ts).
      const body =
        ext === 'json'
          ? JSON.stringify({ resourceSpans: TRACES.flatMap((t) => JSON.parse(t).resourceSpans) })
          : TRACES.join('\n') + '\n';
      const dir = tmpTree({
        [`spans.${ext}`]: body,
        'gates.yaml': suite([
          `traces: spans.${ext}`,
          'format: openinference',
          'openinference: { qid: metadata.qid }',
          'percentiles: [50]',
          ...PRICES,
          'gates:',
          "  p50_ms: '<= 5000'",
        ]),
      });
      const { report } = await runIn(dir);
      const lat = report.suites.lat!;
      for (const [name, value] of Object.entries(expected))
        expect([name, lat.metrics[name]!.value]).toEqual([name, expect.closeTo(value, 15)]);
      expect(lat.counts).toMatchObject({ untokened: 1, uncosted: 2 });
      expect(lat.warnings).toContain(
        '1 of 4 requests have no token count (tokens_in, tokens_out): n/a, left out of the token and cost figures',
      );
      expect(lat.warnings).toContain(
        'model "unknown-model" has no price in pricing: its 1 request is n/a for cost (prices are yours to keep current; groundgate looks none up)',
      );
      // Each item's values, for a later run's max_increase to pair with; q4 has none.
      const items = JSON.parse(JSON.stringify(lat.items)) as Record<string, { values?: object }>;
      expect(items.q1!.values).toEqual({
        cost: expect.closeTo(0.00057, 15),
        tokens: 1350,
        tokens_in: 1200,
        tokens_out: 150,
      });
      expect(items.q3!.values).toEqual({ tokens: 1210, tokens_in: 1100, tokens_out: 110 });
      expect(items.q4!.values).toBeUndefined();
    });
  }

  it('reports no token metric for traces that count none, unless a gate names one (then n/a, not 0)', async () => {
    const plain = [trace(1, []), trace(2, [])].join('\n') + '\n';
    const config = (gates: string[]) =>
      suite([
        'traces: spans.otlp.jsonl',
        'format: openinference',
        'openinference: { qid: metadata.qid }',
        'gates:',
        "  p50_ms: '<= 5000'",
        ...gates,
      ]);
    const quiet = await runIn(tmpTree({ 'spans.otlp.jsonl': plain, 'gates.yaml': config([]) }));
    expect(Object.keys(quiet.report.suites.lat!.metrics).filter((m) => m.startsWith('tokens'))).toEqual([]);
    const gated = await runIn(
      tmpTree({ 'spans.otlp.jsonl': plain, 'gates.yaml': config(['  tokens_in: { max: 4000 }']) }),
    );
    expect(gated.report.suites.lat!.metrics.tokens_in!.value).toBeNull();
    expect(gated.report.verdict).toBe('fail');
  });

  it('names the span whose count is no whole number', () => {
    const line = trace(1, [['gpt-4o-mini', 1000, 100]]).replace('"intValue":"1000"', '"doubleValue":10.5');
    const spans = spanFacts(JSON.parse(line), 'x.jsonl', 3, undefined);
    expect(() => spanUsage(spans)).toThrow(InputError);
    expect(() => spanUsage(spans)).toThrow(
      'x.jsonl:3: span "span 2": llm.token_count.prompt is 10.5; expected a whole number of tokens, 0 or more',
    );
  });
});

describe('pricing: in a file of its own', () => {
  const config = suite(['traces: traces.jsonl', 'pricing: prices.yaml', 'gates:', '  cost: { max: 1 }']);
  const traces =
    JSON.stringify({ qid: 'a', latency_ms: 900, tokens_in: 2000, tokens_out: 500, model: 'm' }) + '\n';

  it('reads the table from the YAML file the suite names', async () => {
    const dir = tmpTree({
      'traces.jsonl': traces,
      'prices.yaml': 'm: { input: 2.5, output: 10 }\n',
      'gates.yaml': config,
    });
    // (2000·2.5 + 500·10)/1e6 = 0.01.
    expect((await runIn(dir)).report.suites.lat!.metrics.cost!.value).toBe(0.01);
  });

  it('names the file, line and column of a price that is no number', async () => {
    const dir = tmpTree({
      'traces.jsonl': traces,
      'prices.yaml': 'm:\n  input: cheap\n  output: 10\n',
      'gates.yaml': config,
    });
    await expect(runIn(dir)).rejects.toThrow(
      /prices\.yaml:2:10: field "m\.input": expected number, received string/,
    );
  });
});

describe('token counts from GenAI spans', () => {
  it("sums chat spans' gen_ai.usage.*, naming the response's model over the request's; an agent span's usage is not added", () => {
    const t0 = 1_767_000_000_000;
    const spans: SpanSpec[] = [
      {
        id: 1,
        start: t0,
        end: t0 + 900,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.usage.input_tokens': 700,
          'gen_ai.usage.output_tokens': 70,
        },
      },
      ...[1, 2].map((i): SpanSpec => ({
        id: i + 1,
        parent: 1,
        start: t0 + 100 * i,
        end: t0 + 100 * i + 50,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
          'gen_ai.usage.input_tokens': 300 * i,
          'gen_ai.usage.output_tokens': 30 * i,
        },
      })),
    ];
    const facts = spanFacts(JSON.parse(otlpLine(1, spans)), 'g.jsonl', 1, undefined);
    expect(spanUsage(facts)).toEqual({
      tokensIn: 900,
      tokensOut: 90,
      byModel: [{ model: 'gpt-4o-mini-2024-07-18', tokensIn: 900, tokensOut: 90 }],
    });
  });
});

describe('token counts from JSON Lines traces', () => {
  const line = (qid: string, prompt: number, completion: number) =>
    JSON.stringify({
      qid,
      latency_ms: 900,
      model: 'gpt-4o-mini',
      usage: { prompt_tokens: prompt, completion_tokens: completion },
    });
  const config = (gates: string[]) =>
    suite([
      'traces: traces.jsonl',
      'fields:',
      '  traces:',
      '    /tokens_in: /usage/prompt_tokens',
      '    /tokens_out: /usage/completion_tokens',
      ...PRICES,
      'gates:',
      ...gates,
    ]);

  it('maps usage.prompt_tokens and completion_tokens with fields:, a line without them n/a', async () => {
    const dir = tmpTree({
      'traces.jsonl':
        [line('a', 1000, 100), line('b', 3000, 300), JSON.stringify({ qid: 'c', latency_ms: 900 })].join(
          '\n',
        ) + '\n',
      'gates.yaml': config(["  p50_ms: '<= 5000'"]),
    });
    const lat = (await runIn(dir)).report.suites.lat!;
    expect(lat.metrics.tokens_in!.value).toBe(2000);
    expect(lat.metrics.tokens_out!.value).toBe(200);
    // (1000·0.15 + 100·0.60)/1e6 = 0.00021 and (3000·0.15 + 300·0.60)/1e6 = 0.00063.
    expect(lat.metrics['cost.total']!.value).toBeCloseTo(0.00084, 15);
    expect(lat.counts.untokened).toBe(1);
  });

  it('fails max_increase when tokens_in rose 20%, naming the items whose cost grew most, before → after', async () => {
    const before = [line('a', 1000, 100), line('b', 1000, 100), line('c', 1000, 100)];
    // a +60% (cost 0.00021 → 0.00030), b unchanged, c gone, d new: paired on a and b, 1000 → 1300 is +30%...
    const after = [line('a', 1600, 100), line('b', 1000, 100), line('d', 9000, 100)];
    const gates = ['  tokens_in: { max_increase: 0.10 }', '  cost: { max_increase: 0.50 }'];
    const base = tmpTree({ 'traces.jsonl': before.join('\n') + '\n', 'gates.yaml': config(gates) });
    const baseReport = path.join(base, 'report.json');
    writeFileSync(baseReport, JSON.stringify((await runIn(base)).report));
    const dir = tmpTree({ 'traces.jsonl': after.join('\n') + '\n', 'gates.yaml': config(gates) });
    const { report } = await runIn(dir, baseReport);
    const tokens = report.gates.find((g) => g.metric === 'tokens_in')!;
    // Paired: a 1000 → 1600, b 1000 → 1000: mean 1000 → 1300, +30% (d, new, and c, gone, are not compared).
    expect(tokens).toMatchObject({ op: 'max_increase', threshold: 0.1, baseline: 1000, passed: false });
    expect(tokens.reason).toBe(
      '+30.0% (1000 → 1300) over 2 paired items; grew most: a cost 0.00021 → 0.0003',
    );
    // Cost over the same pairs: (0.00021 + 0.00021)/2 → (0.0003 + 0.00021)/2, +21.4%, within 50%.
    const cost = report.gates.find((g) => g.metric === 'cost')!;
    expect(cost.passed).toBe(true);
    expect(report.verdict).toBe('fail');
    // The offenders are the requests that grew (a alone), not the slowest ones.
    expect(report.suites.lat!.offenders.map((o) => [o.id, o.labels, o.grew, o.before, o.after])).toEqual([
      ['a', ['grew'], 'cost', 0.00021, 0.0003],
    ]);

    // The PR comment: cost beside latency. Per answer now (0.0003 + 0.00021 + (9000·0.15 + 100·0.60)/1e6)/3 =
    // 0.00064 against 0.00021; in all 0.00192 against 0.00063; tokens (1700 + 1100 + 9100)/3 against 1100.
    expect(renderMarkdown(report, { offenders: 0 })).toContain(
      '**cost** 0.00064 USD per answer (Δ +0.00043) · 0.00192 USD in all (Δ +0.00129) · 3966.67 tokens per answer (Δ +2866.67) · 900 ms at p95 (Δ ±0)',
    );
    // The trend chart plots a metric gated by max_increase alone (without a threshold line: it has none).
    expect(buildTrends([], report).find((t) => t.key === 'lat.cost')).toEqual({
      key: 'lat.cost',
      unit: 'usd',
      points: [{ label: 'now', value: expect.closeTo(0.00064, 15) }],
      thresholds: [],
    });
  });
});

describe('the count kind (tokens_in, tokens_out)', () => {
  it('is accepted by hand, by the byte scanner and by the schema alike', () => {
    const scanner = lineScanner(traceShape);
    const found = scanner.found();
    for (const v of [
      '0',
      '3',
      '3.0',
      '3e2',
      '9007199254740991',
      '3.5',
      '-1',
      '9007199254740992',
      '"3"',
      'null',
      '1e999',
    ]) {
      const text = `{"qid":"q","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]},"tokens_in":${v}}`;
      const value = JSON.parse(text) as unknown;
      const schema = traceLineSchema.safeParse(value).success;
      expect([v, traceTest(value)]).toEqual([v, schema]);
      const b = Buffer.from(text);
      // The scanner may refuse a good line (JSON.parse then decides), never accept a bad one.
      if (scanner.scan(b, 0, b.length, found)) expect([v, schema]).toEqual([v, true]);
    }
  });
});

describe('a pricing file', () => {
  it('is refused in one line when its aliases expand past the limit, or it is a FIFO', async () => {
    const { readPricingFile } = await import('../src/cost/pricing-file.js');
    const { execFileSync } = await import('node:child_process');
    // Each level doubles the one before: 2^12 aliased nodes from a 13-line file.
    const bomb = [
      'a0: &a0 [x, x]',
      ...Array.from({ length: 12 }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i}, *a${i}]`),
    ];
    const dir = tmpTree({ 'prices.yaml': bomb.join('\n') + '\n' });
    const file = path.join(dir, 'prices.yaml');
    expect(() => readPricingFile(file)).toThrow(
      new InputError(
        { file, line: 2, column: 10 },
        'invalid YAML: aliases expand to too many nodes (more than 50 aliased nodes); expected a price table without such repetition',
      ),
    );
    const fifo = path.join(dir, 'prices.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readPricingFile(fifo)).toThrow(
      new InputError({ file: fifo }, 'pricing is not a file (a FIFO)'),
    );
  });
});
