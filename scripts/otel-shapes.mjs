// npm run fixtures:otel-shapes: writes test/fixtures/shapes/openinference-otlp/ and genai-otlp/ (see each
// folder's README.md).
//
// The shape's project/ is what a team tracing a LangChain RAG chain with OpenInference keeps: the gold set and
// the OTLP/JSON export, nothing else. Its export is the first RUNS lines of test/fixtures/openinference/
// langchain.otlp.jsonl (made with the real libraries by scripts/openinference-fixtures.mjs), its gold set the
// items of gold/qa.gold.jsonl those runs answer. canonical/ holds the same runs as runs/qa.trace.jsonl writes
// them (the runs the export was made from) beside the same gold set.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

const REPO = path.resolve(import.meta.dirname, '..');
const RUNS = 12;
const lines = (file) =>
  readFileSync(path.join(REPO, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

const runs = lines('runs/qa.trace.jsonl').slice(0, RUNS);
const qids = new Set(runs.map((l) => JSON.parse(l).qid));
const gold = lines('gold/qa.gold.jsonl').filter((l) => qids.has(JSON.parse(l).qid));
const spans = lines('test/fixtures/openinference/langchain.otlp.jsonl').slice(0, RUNS);

/** A shape's folder, emptied of project/ and canonical/, and a writer of its files. */
function shape(name) {
  const out = path.join(REPO, 'test', 'fixtures', 'shapes', name);
  rmSync(path.join(out, 'project'), { recursive: true, force: true });
  rmSync(path.join(out, 'canonical'), { recursive: true, force: true });
  return (file, text) => {
    mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    writeFileSync(path.join(out, file), text);
  };
}

const CANONICAL_GATES = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold/qa.gold.jsonl
    traces: runs/qa.trace.jsonl
    scu: true
    gates:
      coverage: '>= 0'
`;

/**
 * A run's line with the token counts its export's LLM span carries (llm.token_count.prompt, .completion and
 * .prompt_details.cache_read) as the canonical tokens_in, tokens_out and tokens_cached: init gates tokens_in
 * on the export, so the canonical suite is asked for them too (a gate on tokens_in).
 */
function withTokens(run, exported) {
  const counts = {};
  for (const rs of JSON.parse(exported).resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const span of ss.spans)
        for (const { key, value } of span.attributes) counts[key] = Number(value.intValue ?? NaN);
  const members = [
    ['tokens_in', counts['llm.token_count.prompt']],
    ['tokens_out', counts['llm.token_count.completion']],
    ['tokens_cached', counts['llm.token_count.prompt_details.cache_read']],
  ].filter(([, n]) => Number.isInteger(n));
  return run.replace(/\}$/, members.map(([k, n]) => `, "${k}": ${n}`).join('') + '}');
}

let write = shape('openinference-otlp');
write('project/gold/qa.gold.jsonl', gold.join('\n') + '\n');
write('project/traces/qa.otlp.jsonl', spans.join('\n') + '\n');
write('canonical/gold/qa.gold.jsonl', gold.join('\n') + '\n');
write('canonical/runs/qa.trace.jsonl', runs.map((r, i) => withTokens(r, spans[i])).join('\n') + '\n');
write('canonical/gates.yaml', CANONICAL_GATES + '      tokens_in: { max_increase: 0.1 }\n');

// The same runs traced by hand under the OpenTelemetry GenAI conventions (semantic-conventions v1.41.0,
// docs/gen-ai/gen-ai-spans.md): an invoke_agent root whose input message is the question, a retrieval span
// (gen_ai.retrieval.query.text, gen_ai.retrieval.documents [{id, score}]) and a chat span whose output message
// is the answer. The JS SDK's attributes hold no objects, so the documents and messages are JSON strings, as
// the conventions allow on spans. Each span starts and ends at the run's times (root: ts, latency_ms; the
// retrieval its first quarter, the chat the rest); ids come from a seeded generator: the same bytes each run.

/** Ids from a fixed seed (splitmix64), in the order spans ask for them. */
function seededIds(seed) {
  let state = BigInt(seed);
  const next = () => {
    state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return (z ^ (z >> 31n)).toString(16).padStart(16, '0');
  };
  return { generateTraceId: () => next() + next(), generateSpanId: next };
}

async function genaiExport() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: seededIds(0x6741),
    resource: resourceFromAttributes({ 'service.name': 'groundgate-fixtures-genai' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('groundgate-fixtures-genai');
  const text = (role, content) => JSON.stringify([{ role, parts: [{ type: 'text', content }] }]);
  const lines = [];
  for (const line of runs) {
    const run = JSON.parse(line);
    const start = run.ts * 1000;
    const retrieved = start + Math.floor(run.latency_ms / 4);
    const end = start + run.latency_ms;
    const root = tracer.startSpan('invoke_agent qa', {
      startTime: start,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'qa',
        'gen_ai.input.messages': text('user', run.q),
      },
    });
    const parent = trace.setSpan(context.active(), root);
    const retrieval = tracer.startSpan(
      'retrieval corpus',
      {
        kind: SpanKind.CLIENT,
        startTime: start,
        attributes: {
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.data_source.id': 'corpus',
          'gen_ai.retrieval.query.text': run.q,
          'gen_ai.retrieval.documents': JSON.stringify(
            run.retrieved_ids.map((id, i) => ({ id, score: Number((1 - i / 10).toFixed(2)) })),
          ),
        },
      },
      parent,
    );
    retrieval.end(retrieved);
    const chat = tracer.startSpan(
      'chat fake-model',
      {
        kind: SpanKind.CLIENT,
        startTime: retrieved,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'fake',
          'gen_ai.request.model': 'fake-model',
          'gen_ai.input.messages': text('user', run.q),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [{ type: 'text', content: JSON.stringify(run.answer_json) }],
              finish_reason: 'stop',
            },
          ]),
        },
      },
      parent,
    );
    chat.end(end);
    root.end(end);
    await provider.forceFlush();
    lines.push(
      Buffer.from(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())).toString('utf8'),
    );
    exporter.reset();
  }
  return lines;
}

write = shape('genai-otlp');
write('project/gold/qa.gold.jsonl', gold.join('\n') + '\n');
write('project/traces/qa.otlp.jsonl', (await genaiExport()).join('\n') + '\n');
write('canonical/gold/qa.gold.jsonl', gold.join('\n') + '\n');
write('canonical/runs/qa.trace.jsonl', runs.join('\n') + '\n');
write('canonical/gates.yaml', CANONICAL_GATES);
