import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { readOpenInference } from '../src/grounded-answer/spans/openinference.js';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { otlpLine, type SpanSpec } from './helpers/otlp-spans.js';
import { tmpTree } from './helpers/tmp.js';

// Spans under the OpenTelemetry GenAI conventions (semantic-conventions v1.41.0, docs/gen-ai/gen-ai-spans.md),
// read as `format: otel` reads them (#55, point 1).

const T0 = 1_767_000_000_000;

/** An agent root, a retrieval of `documents`, and a chat whose first output message is `answer`. */
function genaiTrace(n: number, documents: SpanSpec['attributes'][string], answer = 'Fact one is 7.'): string {
  return otlpLine(n, [
    {
      id: 1,
      name: 'invoke_agent qa',
      start: T0,
      end: T0 + 1000,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.input.messages': JSON.stringify([
          { role: 'system', parts: [{ type: 'text', content: 'Answer from the context.' }] },
          {
            role: 'user',
            parts: [
              { type: 'text', content: 'What is ' },
              { type: 'text', content: 'fact one?' },
            ],
          },
        ]),
        'app.qid': 'q1',
      },
    },
    {
      id: 2,
      parent: 1,
      name: 'retrieval corpus',
      start: T0 + 10,
      end: T0 + 260,
      attributes: {
        'gen_ai.operation.name': 'retrieval',
        'gen_ai.retrieval.query.text': 'fact one',
        'gen_ai.retrieval.documents': documents,
      },
    },
    {
      id: 3,
      parent: 1,
      name: 'chat m',
      start: T0 + 300,
      end: T0 + 900,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' },
          { role: 'assistant', parts: [{ type: 'text', content: 'a second choice' }], finish_reason: 'stop' },
        ]),
      },
    },
  ]);
}

async function records(lines: readonly string[], qid = 'app.qid') {
  const dir = tmpTree({ 'spans.jsonl': lines.join('\n') + '\n' });
  const out = [];
  for await (const r of readOpenInference([path.join(dir, 'spans.jsonl')], { qid })) out.push(r.value);
  return out;
}

describe('GenAI spans', () => {
  it('read the documents from a JSON string, the question from the last user message, the answer from the first choice', async () => {
    const [trace] = await records([
      genaiTrace(
        1,
        JSON.stringify([
          { id: 'doc-a', score: 0.9 },
          { id: 'doc-b', score: 0.5 },
        ]),
      ),
    ]);
    expect(trace).toEqual({
      qid: 'q1',
      q: 'What is fact one?',
      retrieved_ids: ['doc-a', 'doc-b'],
      output: 'Fact one is 7.',
      answer_json: { claim: 'Fact one is 7.', citations: [] },
      ts: T0 / 1000,
      latency_ms: 1000,
    });
  });

  it('read the documents from a structured array attribute (arrayValue of kvlistValues) alike', async () => {
    const [trace] = await records([
      genaiTrace(1, [
        { id: 'doc-a', score: 0.9 },
        { id: 'doc-b', score: 0.5 },
      ]),
    ]);
    expect((trace as { retrieved_ids: unknown }).retrieved_ids).toEqual(['doc-a', 'doc-b']);
  });

  it('match by question: the root’s user message, else the first retrieval’s query text', async () => {
    const noInput = otlpLine(2, [
      { id: 1, start: T0, end: T0 + 5, attributes: { 'gen_ai.operation.name': 'invoke_agent' } },
      {
        id: 2,
        parent: 1,
        start: T0 + 1,
        end: T0 + 2,
        attributes: {
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.retrieval.query.text': 'fact two?',
          'gen_ai.retrieval.documents': '[]',
        },
      },
    ]);
    const [a, b] = await records([genaiTrace(1, '[]'), noInput], 'input.value');
    expect([(a as { qid: string }).qid, (b as { qid: string }).qid]).toEqual([
      'What is fact one?',
      'fact two?',
    ]);
  });

  it('a document without an id is an error naming its line and the attribute', async () => {
    const lines = [genaiTrace(1, '[]'), genaiTrace(2, JSON.stringify([{ id: 'doc-a' }, { score: 0.5 }]))];
    await expect(records(lines)).rejects.toThrow(
      /spans\.jsonl:2: retriever span "retrieval corpus" has gen_ai\.retrieval\.documents\[1\]\.id undefined; expected a string$/,
    );
  });

  it('documents that are not a list of objects are an error naming the line', async () => {
    const err = await records([genaiTrace(1, 'doc-a, doc-b')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(path.basename((err as Error).message)).toBe(
      'spans.jsonl:1: span "retrieval corpus": gen_ai.retrieval.documents is "doc-a, doc-b"; expected a list of {"id", "score"} objects (structured, or as a JSON string)',
    );
  });

  it('a span with an OpenInference kind is read by OpenInference, its gen_ai attributes aside', () => {
    const line = otlpLine(1, [
      {
        id: 1,
        start: T0,
        end: T0 + 1,
        attributes: {
          'openinference.span.kind': 'LLM',
          'gen_ai.operation.name': 'retrieval',
          'output.value': 'from OpenInference',
        },
      },
    ]);
    const [s] = spanFacts(JSON.parse(line), 'f', 1, undefined);
    expect([s!.kind, s!.output, s!.genai]).toEqual(['LLM', 'from OpenInference', undefined]);
  });

  it('Phoenix’s nested attributes keep the documents and messages whole', () => {
    const span = {
      name: 'retrieval corpus',
      context: { trace_id: 't1', span_id: 's1' },
      start_time: '2026-01-01T00:00:00Z',
      end_time: '2026-01-01T00:00:01Z',
      attributes: {
        gen_ai: {
          operation: { name: 'retrieval' },
          retrieval: { documents: [{ id: 'doc-a', score: 1 }], query: { text: 'q?' } },
        },
      },
    };
    const [s] = spanFacts(span, 'f', 1, undefined);
    expect([s!.kind, s!.documents, s!.query]).toEqual(['RETRIEVER', ['doc-a'], 'q?']);
  });
});
