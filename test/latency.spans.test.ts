import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { scopeAt } from '../src/io/confine.js';
import { run } from '../src/run.js';
import type { SpanFacts } from '../src/grounded-answer/spans/span-values.js';
import { spanStages } from '../src/suites/latency/span-stages.js';
import { otlpLine, type SpanSpec } from './helpers/otlp-spans.js';
import { copyOf } from './helpers/shapes.js';
import { tmpTree } from './helpers/tmp.js';

// The latency suite's stage times from spans (#55, point 5): no CSV needed.

const span = (kind: string, start: number, end: number): SpanFacts => ({
  traceId: 't',
  spanId: `${kind}${start}`,
  parentId: undefined,
  name: undefined,
  kind,
  start,
  end,
  documents: [],
  line: 1,
  file: 'f',
});

describe('spanStages', () => {
  it('is the union of each stage kind’s span intervals; a stage without spans is absent', () => {
    const stages = spanStages([
      span('CHAIN', 0, 1000),
      // Two retrievals side by side (100–300 and 200–350) and one later (500–540): 250 + 40.
      span('RETRIEVER', 100, 300),
      span('RETRIEVER', 200, 350),
      span('RETRIEVER', 500, 540),
      // A model call inside another (600–900 holds 650–700): 300.
      span('LLM', 600, 900),
      span('LLM', 650, 700),
      span('GUARDRAIL', 950, 960),
    ]);
    expect(stages).toEqual({ retrieval: 290, llm: 300, guard: 10 });
  });
});

/** Trace n: a CHAIN root over 1000 ms, a retriever of 100 + n ms, a reranker of 10 ms, an LLM call of 500 ms. */
function trace(n: number): string {
  const t0 = 1_767_000_000_000 + n * 10_000;
  const kind = (k: string) => ({ 'openinference.span.kind': k });
  const spans: SpanSpec[] = [
    {
      id: 1,
      start: t0,
      end: t0 + 1000,
      attributes: {
        ...kind('CHAIN'),
        'input.value': `question ${n}`,
        metadata: JSON.stringify({ qid: `q${n}` }),
      },
    },
    { id: 2, parent: 1, start: t0 + 5, end: t0 + 105 + n, attributes: kind('RETRIEVER') },
    { id: 3, parent: 1, start: t0 + 200, end: t0 + 210, attributes: kind('RERANKER') },
    {
      id: 4,
      parent: 1,
      start: t0 + 300,
      end: t0 + 800,
      attributes: { ...kind('LLM'), 'output.value': `answer ${n}` },
    },
  ];
  return otlpLine(n, spans);
}

describe('a latency suite over OpenInference spans', () => {
  it('fills the per-stage percentiles from the spans', async () => {
    const dir = tmpTree({
      'spans.otlp.jsonl': [1, 2, 3, 4].map(trace).join('\n') + '\n',
      'gates.yaml': [
        'version: 1',
        'suites:',
        '  lat:',
        '    kind: latency',
        '    traces: spans.otlp.jsonl',
        '    format: openinference',
        '    openinference: { qid: metadata.qid }',
        '    percentiles: [50]',
        '    gates:',
        "      p50_ms: '<= 1000'",
        "      retrieval.p50_ms: '<= 1000'",
        "      rerank.p50_ms: '<= 1000'",
        "      llm.p50_ms: '<= 1000'",
        "      guard.p50_ms: '<= 1000'",
        '',
      ].join('\n'),
    });
    const file = path.join(dir, 'gates.yaml');
    const scope = scopeAt(dir, 'the repository');
    const outcome = await run({
      config: file,
      loaded: parseConfig(readFileSync(file, 'utf8'), file, scope),
      scope,
    });
    const m = outcome.report.suites.lat!.metrics;
    // Retrievals of 101, 102, 103, 104 ms: the median (type 7, see docs/metrics.md) is 102.5.
    expect(m['p50_ms']!.value).toBe(1000);
    expect(m['retrieval.p50_ms']!.value).toBe(102.5);
    expect(m['rerank.p50_ms']!.value).toBe(10);
    expect(m['llm.p50_ms']!.value).toBe(500);
    // No GUARDRAIL span: the stage did not run, as an empty CSV cell says.
    expect(m['guard.p50_ms']!.value).toBeNull();
  });
});

describe('a latency suite over GenAI spans (format: otel)', () => {
  it('times retrieval and llm from the retrieval and chat spans of the genai-otlp shape', async () => {
    const dir = copyOf('genai-otlp', 'project');
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      [
        'version: 1',
        'suites:',
        '  lat:',
        '    kind: latency',
        '    traces: traces/qa.otlp.jsonl',
        '    format: otel',
        '    percentiles: [100]',
        '    gates:',
        "      p1_ms: '<= 100000'",
        "      p100_ms: '<= 100000'",
        "      retrieval.p100_ms: '<= 100000'",
        "      llm.p100_ms: '<= 100000'",
        '',
      ].join('\n'),
    );
    const file = path.join(dir, 'gates.yaml');
    const scope = scopeAt(dir, 'the repository');
    const outcome = await run({
      config: file,
      loaded: parseConfig(readFileSync(file, 'utf8'), file, scope),
      scope,
    });
    const m = outcome.report.suites.lat!.metrics;
    // The 12 runs last 496 to 2283 ms; the script times the retrieval ⌊latency_ms / 4⌋ (124 to 570) and
    // the chat the rest (at most 2283 − 570 = 1713).
    // e2e is the root's: p1 by type 7 is 496 + 0.11 × (568 − 496) = 503.92.
    expect([m['p1_ms']!.value, m['p100_ms']!.value]).toEqual([503.92, 2283]);
    expect(m['retrieval.p100_ms']!.value).toBe(570);
    expect(m['llm.p100_ms']!.value).toBe(1713);
  });
});
