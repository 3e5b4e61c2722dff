import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spanUsage } from '../src/cost/usage.js';
import { InputError } from '../src/errors.js';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { traceRecords } from '../src/grounded-answer/trace-records.js';
import { otlpLine, type SpanSpec } from './helpers/otlp-spans.js';
import { oneSuite, runIn } from './helpers/scored.js';
import { tmpTree } from './helpers/tmp.js';

// Cached input tokens (#58): the part of a call's input tokens the provider served from its prompt cache, read
// where each convention defines it, and billed at the model's `cached_input` price (else at `input`):
// - OpenInference: llm.token_count.prompt_details.cache_read (Arize-ai/openinference,
//   spec/semantic_conventions.md; @arizeai/openinference-semantic-conventions 2.12.0
//   LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ);
// - OTel GenAI: gen_ai.usage.cache_read.input_tokens, "SHOULD be included in gen_ai.usage.input_tokens"
//   (open-telemetry/semantic-conventions v1.40.0, model/gen-ai/registry.yaml);
// - OpenAI's JSON: usage.prompt_tokens_details.cached_tokens (openai/openai-node,
//   src/resources/completions.ts, CompletionUsage.PromptTokensDetails), mapped to tokens_cached by fields:.

const PRICES = [
  'pricing:',
  '      gpt-4o-mini: { input: 0.15, output: 0.60, cached_input: 0.075 }',
  '      claude-haiku: { input: 0.80, output: 4.00 }',
];

type Call = [model: string, tokensIn: number, tokensOut: number, cached?: number];

/** Trace n: a CHAIN root of 1000 ms and one LLM span per call, with its counts, cached count and model. */
function trace(n: number, calls: readonly Call[]): string {
  const t0 = 1_767_000_000_000 + n * 10_000;
  const spans: SpanSpec[] = [
    {
      id: 1,
      start: t0,
      end: t0 + 1000,
      attributes: { 'openinference.span.kind': 'CHAIN', metadata: JSON.stringify({ qid: `q${n}` }) },
    },
    ...calls.map(([model, tokensIn, tokensOut, cached], i): SpanSpec => ({
      id: i + 2,
      parent: 1,
      name: `call ${i + 1}`,
      start: t0 + 100 * (i + 1),
      end: t0 + 100 * (i + 1) + 50,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': model,
        'llm.token_count.prompt': tokensIn,
        'llm.token_count.completion': tokensOut,
        ...(cached === undefined ? {} : { 'llm.token_count.prompt_details.cache_read': cached }),
      },
    })),
  ];
  return otlpLine(n, spans);
}

const suite = (lines: readonly string[]) => oneSuite('lat', 'latency', lines);

/** The spans of `traces` as one .otlp.jsonl (read on its bytes) or one .json document (parsed). */
const spansFile = (traces: readonly string[], ext: 'otlp.jsonl' | 'json') =>
  ext === 'json'
    ? JSON.stringify({ resourceSpans: traces.flatMap((t) => JSON.parse(t).resourceSpans) })
    : traces.join('\n') + '\n';

const spanSuite = (ext: string, gates: string[] = ["  p50_ms: '<= 5000'"]) =>
  suite([
    `traces: spans.${ext}`,
    'format: openinference',
    'openinference: { qid: metadata.qid }',
    ...PRICES,
    'gates:',
    ...gates,
  ]);

describe('cached input tokens from OpenInference spans', () => {
  // Trace 1: gpt-4o-mini 1000 in of which 800 cached, 100 out: (200·0.15 + 800·0.075 + 100·0.60)/1e6 =
  // (30 + 60 + 60)/1e6 = 0.00015; claude-haiku 200 in of which 100 cached, 50 out, no cached_input price, so
  // all 200 at 0.80: (160 + 200)/1e6 = 0.00036. Together 0.00051. Trace 2: gpt-4o-mini 2000 in, none counted
  // as cached, 200 out: (300 + 120)/1e6 = 0.00042. Mean 0.000465, total 0.00093.
  const TRACES = [
    trace(1, [
      ['gpt-4o-mini', 1000, 100, 800],
      ['claude-haiku', 200, 50, 100],
    ]),
    trace(2, [['gpt-4o-mini', 2000, 200]]),
  ];

  for (const ext of ['otlp.jsonl', 'json'] as const) {
    it(`bills each call's cached part at its model's cached_input, else at input (.${ext})`, async () => {
      const dir = tmpTree({ [`spans.${ext}`]: spansFile(TRACES, ext), 'gates.yaml': spanSuite(ext) });
      const lat = (await runIn(dir)).report.suites.lat!;
      expect(lat.metrics.cost!.value).toBeCloseTo(0.000465, 15);
      expect(lat.metrics['cost.total']!.value).toBeCloseTo(0.00093, 15);
      // The counts themselves are unchanged: cached tokens are part of tokens_in.
      expect(lat.metrics.tokens_in!.value).toBe((1200 + 2000) / 2);
      const items = JSON.parse(JSON.stringify(lat.items)) as Record<string, { values?: object }>;
      expect(items.q1!.values).toEqual({
        cost: expect.closeTo(0.00051, 15),
        tokens: 1350,
        tokens_in: 1200,
        tokens_out: 150,
      });
    });

    it(`is an error naming the span when a cached count is above the span's input count (.${ext})`, async () => {
      const bad = [trace(1, [['gpt-4o-mini', 1000, 100, 1001]])];
      const dir = tmpTree({ [`spans.${ext}`]: spansFile(bad, ext), 'gates.yaml': spanSuite(ext) });
      await expect(runIn(dir)).rejects.toThrow(
        new InputError(
          { file: path.join(dir, `spans.${ext}`), line: 1 },
          'span "call 1": llm.token_count.prompt_details.cache_read is 1001, more than llm.token_count.prompt 1000; expected the cached part of the input tokens, at most their count',
        ),
      );
    });
  }

  it("writes the trace's cached count into the assembled record (tokens_cached), summed over its LLM spans", async () => {
    const dir = tmpTree({ 'spans.otlp.jsonl': spansFile(TRACES, 'otlp.jsonl') });
    const records = [];
    for await (const r of traceRecords(
      [path.join(dir, 'spans.otlp.jsonl')],
      { format: 'openinference', qid: 'metadata.qid' },
      true,
    ))
      records.push(r.value as Record<string, unknown>);
    // Trace 1: 800 + 100 cached; trace 2: none counted, so no member (not 0).
    expect(records.map((r) => [r.qid, r.tokens_in, r.tokens_cached])).toEqual([
      ['q1', 1200, 900],
      ['q2', 2000, undefined],
    ]);
  });

  it('is an error when a span counts cached tokens but not its input tokens', () => {
    const line = trace(1, [['gpt-4o-mini', 1000, 100, 10]]).replace(
      /\{"key":"llm\.token_count\.prompt","value":\{"intValue":"1000"\}\},/,
      '',
    );
    const spans = spanFacts(JSON.parse(line), 'x.jsonl', 3, undefined);
    expect(() => spanUsage(spans)).toThrow(
      'x.jsonl:3: span "call 1": llm.token_count.prompt_details.cache_read is 10 without llm.token_count.prompt; expected the cached part of the input tokens beside their count',
    );
  });
});

describe('cached input tokens from GenAI spans', () => {
  const genai = (cached: number) => {
    const t0 = 1_767_000_000_000;
    return spanFacts(
      JSON.parse(
        otlpLine(1, [
          { id: 1, start: t0, end: t0 + 900, attributes: { 'gen_ai.operation.name': 'invoke_agent' } },
          {
            id: 2,
            parent: 1,
            name: 'chat gpt-4o-mini',
            start: t0 + 100,
            end: t0 + 200,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.response.model': 'gpt-4o-mini',
              'gen_ai.usage.input_tokens': 300,
              'gen_ai.usage.output_tokens': 30,
              'gen_ai.usage.cache_read.input_tokens': cached,
            },
          },
        ]),
      ),
      'g.jsonl',
      1,
      undefined,
    );
  };

  it('reads gen_ai.usage.cache_read.input_tokens as the cached part of input_tokens', () => {
    expect(spanUsage(genai(250))).toEqual({
      tokensIn: 300,
      tokensOut: 30,
      cachedIn: 250,
      byModel: [{ model: 'gpt-4o-mini', tokensIn: 300, tokensOut: 30, cachedIn: 250 }],
    });
  });

  it('names the GenAI attributes when the cached count is above input_tokens', () => {
    expect(() => spanUsage(genai(301))).toThrow(
      'g.jsonl:1: span "chat gpt-4o-mini": gen_ai.usage.cache_read.input_tokens is 301, more than gen_ai.usage.input_tokens 300; expected the cached part of the input tokens, at most their count',
    );
  });
});

describe('cached input tokens from JSON Lines (OpenAI usage, mapped with fields:)', () => {
  const line = (qid: string, model: string, prompt: number, cached: number | undefined, completion: number) =>
    JSON.stringify({
      qid,
      latency_ms: 900,
      model,
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
      },
    });
  const config = suite([
    'traces: traces.jsonl',
    'fields:',
    '  traces:',
    '    /tokens_in: /usage/prompt_tokens',
    '    /tokens_out: /usage/completion_tokens',
    '    /tokens_cached: /usage/prompt_tokens_details/cached_tokens',
    ...PRICES,
    'gates:',
    "  p50_ms: '<= 5000'",
  ]);

  it('prices usage.prompt_tokens_details.cached_tokens at cached_input, a line without it at input', async () => {
    const dir = tmpTree({
      'traces.jsonl':
        [
          line('a', 'gpt-4o-mini', 2000, 1500, 100),
          line('b', 'claude-haiku', 1000, 400, 100),
          line('c', 'gpt-4o-mini', 2000, undefined, 100),
        ].join('\n') + '\n',
      'gates.yaml': config,
    });
    const lat = (await runIn(dir)).report.suites.lat!;
    // a: (500·0.15 + 1500·0.075 + 100·0.60)/1e6 = (75 + 112.5 + 60)/1e6 = 0.0002475;
    // b: no cached_input, so (1000·0.80 + 100·4)/1e6 = 0.0012; c: (300 + 60)/1e6 = 0.00036.
    expect(lat.metrics['cost.total']!.value).toBeCloseTo(0.0002475 + 0.0012 + 0.00036, 15);
    const items = JSON.parse(JSON.stringify(lat.items)) as Record<string, { values: { cost: number } }>;
    expect(items.a!.values.cost).toBeCloseTo(0.0002475, 15);
  });

  it('is an error at the line whose cached count is above its prompt count', async () => {
    const dir = tmpTree({
      'traces.jsonl': [
        line('a', 'gpt-4o-mini', 2000, 1500, 100),
        line('b', 'gpt-4o-mini', 2000, 2001, 100),
      ].join('\n'),
      'gates.yaml': config,
    });
    await expect(runIn(dir)).rejects.toThrow(
      new InputError(
        { file: path.join(dir, 'traces.jsonl'), line: 2 },
        'tokens_cached is 2001, more than tokens_in 2000; expected the cached part of the input tokens, at most their count',
      ),
    );
  });
});

describe('cost without prices', () => {
  it('is not reported unless a gate names it: tokens are, cost has no rows', async () => {
    const traces = JSON.stringify({ qid: 'a', latency_ms: 900, tokens_in: 2000, tokens_out: 500 }) + '\n';
    const dir = tmpTree({
      'traces.jsonl': traces,
      'gates.yaml': suite(['traces: traces.jsonl', 'percentiles: [95]', 'gates:', "  p95_ms: '<= 5000'"]),
    });
    const names = Object.keys((await runIn(dir)).report.suites.lat!.metrics);
    expect(names.filter((m) => /^(tokens|cost)/.test(m))).toEqual([
      'tokens_in',
      'tokens_in.p95',
      'tokens_out',
      'tokens_out.p95',
      'tokens',
      'tokens.p95',
    ]);
  });
});

describe('a cost gate against a baseline report scored without prices', () => {
  it("fails naming the baseline's reason and how to pass", async () => {
    const traces =
      JSON.stringify({ qid: 'a', latency_ms: 900, tokens_in: 2000, tokens_out: 500, model: 'm' }) + '\n';
    const gates = ['gates:', '  cost: { max_increase: 0.1, allow_missing: false }'];
    // Without pricing: a gate naming cost makes it n/a, with its reason, in the report.
    const base = tmpTree({ 'traces.jsonl': traces, 'gates.yaml': suite(['traces: traces.jsonl', ...gates]) });
    const baseReport = path.join(base, 'report.json');
    writeFileSync(baseReport, JSON.stringify((await runIn(base)).report));
    const dir = tmpTree({
      'traces.jsonl': traces,
      'gates.yaml': suite(['traces: traces.jsonl', 'pricing: { m: { input: 1, output: 2 } }', ...gates]),
    });
    const { report } = await runIn(dir, baseReport);
    expect(report.gates.find((g) => g.metric === 'cost')).toMatchObject({
      passed: false,
      reason:
        'baseline value not computable (no pricing: set pricing (USD per million tokens per model) in the suite); allow_missing: true passes the gate until the baseline has one (groundgate baseline remakes the committed baseline from this gates.yaml)',
    });
  });
});
