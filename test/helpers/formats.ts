// The repository's example gold and traces rewritten in the shapes and formats pipelines write, for tests
// that every one of them scores exactly as the canonical files do.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { GoldLine, TraceLine } from '../../src/grounded-answer/contract.js';
import { InputError } from '../../src/errors.js';
import { readParquetHere } from '../../src/io/parquet.js';
import { REPO } from './tmp.js';

export const readJsonlFile = <T>(file: string): T[] =>
  readFileSync(path.join(REPO, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** Shape A: every member somewhere else, nested in objects. */
export const nestedA = {
  trace: (t: TraceLine) => ({
    request: { id: t.qid, at: t.ts },
    output: {
      text: t.answer_json.claim,
      sources: t.answer_json.citations,
      echo: t.answer_json.constraints_echo,
    },
    retrieval: { ids: t.retrieved_ids },
    timing: { ms: t.latency_ms },
  }),
  gold: (g: GoldLine) => ({
    item: { key: g.qid, text: g.question },
    label: { ok: g.answerable, must: g.gold_claim_substr, cite: g.gold_citations, rules: g.constraints },
  }),
  traceFields: {
    '/qid': '/request/id',
    '/ts': '/request/at',
    '/answer_json/claim': '/output/text',
    '/answer_json/citations': '/output/sources',
    '/answer_json/constraints_echo': '/output/echo',
    '/retrieved_ids': '/retrieval/ids',
    '/latency_ms': '/timing/ms',
  },
  goldFields: {
    '/qid': '/item/key',
    '/question': '/item/text',
    '/answerable': '/label/ok',
    '/gold_claim_substr': '/label/must',
    '/gold_citations': '/label/cite',
    '/constraints': '/label/rules',
  },
};

/**
 * Shape B: arrays reached by index, keys that need escapes (`~1` for "/", `~0` for "~"), a parent mapped
 * whole (answer_json → /choices/0/answer) with its members read from inside it, one member mapped apart.
 */
export const nestedB = {
  trace: (t: TraceLine) => ({
    'meta/data': { 'run~id': t.qid, when: t.ts },
    choices: [{ answer: { claim: t.answer_json.claim, constraints_echo: t.answer_json.constraints_echo } }],
    cites: t.answer_json.citations,
    hits: t.retrieved_ids,
    latency_ms: t.latency_ms,
  }),
  traceFields: {
    '/qid': '/meta~1data/run~0id',
    '/ts': '/meta~1data/when',
    '/answer_json': '/choices/0/answer',
    '/answer_json/citations': '/cites',
    '/retrieved_ids': '/hits',
  },
};

const attr = (key: string, v: string | number) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) },
});

const startMs = (t: TraceLine) => (typeof t.ts === 'number' ? t.ts * 1000 : Date.parse(String(t.ts)));

/** OTLP JSON a line, as the OpenTelemetry file exporter writes it: a CHAIN root, a RETRIEVER, an LLM. */
export function otlpLines(traces: readonly TraceLine[], question: (t: TraceLine) => string): string {
  return (
    traces
      .map((t, i) => {
        const traceId = (i + 1).toString(16).padStart(32, '0');
        const start = startMs(t);
        const end = start + (t.latency_ms ?? 0);
        const ns = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;
        const spans = [
          {
            traceId,
            spanId: '00000000000000a1',
            name: 'qa',
            kind: 1,
            startTimeUnixNano: ns(start),
            endTimeUnixNano: ns(end),
            attributes: [
              attr('openinference.span.kind', 'CHAIN'),
              attr('input.value', question(t)),
              attr('output.value', JSON.stringify(t.answer_json)),
              attr('metadata', JSON.stringify({ qid: t.qid, tenant: 'acme' })),
            ],
          },
          {
            traceId,
            spanId: '00000000000000b2',
            parentSpanId: '00000000000000a1',
            name: 'retrieve',
            kind: 1,
            startTimeUnixNano: ns(start + 1),
            endTimeUnixNano: ns(start + 2),
            attributes: [
              attr('openinference.span.kind', 'RETRIEVER'),
              attr('input.value', question(t)),
              ...t.retrieved_ids.flatMap((id, n) => [
                attr(`retrieval.documents.${n}.document.id`, id),
                attr(`retrieval.documents.${n}.document.content`, `text of ${id}`),
              ]),
            ],
          },
          {
            traceId,
            spanId: '00000000000000c3',
            parentSpanId: '00000000000000a1',
            name: 'embed',
            kind: 1,
            startTimeUnixNano: ns(start),
            endTimeUnixNano: ns(start + 1),
            attributes: [attr('openinference.span.kind', 'EMBEDDING'), attr('embedding.model_name', 'e5')],
          },
          // A trace that counts tokens has them on an LLM span, as OpenInference's instrumentations write them.
          ...(t.tokens_in === undefined && t.tokens_out === undefined
            ? []
            : [
                {
                  traceId,
                  spanId: '00000000000000d4',
                  parentSpanId: '00000000000000a1',
                  name: 'llm',
                  kind: 1,
                  startTimeUnixNano: ns(start + 2),
                  endTimeUnixNano: ns(start + 3),
                  attributes: [
                    attr('openinference.span.kind', 'LLM'),
                    ...(t.model === undefined ? [] : [attr('llm.model_name', t.model)]),
                    ...(t.tokens_in === undefined ? [] : [attr('llm.token_count.prompt', t.tokens_in)]),
                    ...(t.tokens_out === undefined ? [] : [attr('llm.token_count.completion', t.tokens_out)]),
                  ],
                },
              ]),
        ];
        return JSON.stringify({
          resourceSpans: [
            { resource: { attributes: [attr('service.name', 'rag')] }, scopeSpans: [{ spans }] },
          ],
        });
      })
      .join('\n') + '\n'
  );
}

/** Phoenix's export: a JSON array of spans, nested attributes, ISO times; the answer on an LLM span. */
export function phoenixArray(traces: readonly TraceLine[], question: (t: TraceLine) => string): string {
  const spans = traces.flatMap((t, i) => {
    const trace_id = `t${i}`;
    const start = startMs(t);
    const iso = (ms: number) => new Date(ms).toISOString();
    return [
      {
        name: 'llm',
        context: { trace_id, span_id: `${i}-llm` },
        parent_id: `${i}-root`,
        span_kind: 'LLM',
        start_time: iso(start + 2),
        end_time: iso(start + (t.latency_ms ?? 0)),
        attributes: { output: { value: JSON.stringify(t.answer_json) } },
      },
      {
        name: 'qa',
        context: { trace_id, span_id: `${i}-root` },
        parent_id: null,
        span_kind: 'CHAIN',
        start_time: iso(start),
        end_time: iso(start + (t.latency_ms ?? 0)),
        attributes: { input: { value: question(t) }, metadata: { qid: t.qid } },
      },
      {
        name: 'retrieve',
        context: { trace_id, span_id: `${i}-ret` },
        parent_id: `${i}-root`,
        span_kind: 'RETRIEVER',
        start_time: iso(start + 1),
        end_time: iso(start + 2),
        attributes: {
          retrieval: { documents: t.retrieved_ids.map((id) => ({ document: { id, score: 1 } })) },
        },
      },
    ];
  });
  return JSON.stringify(spans, null, 2);
}

/** Gold and traces as Parquet files (snappy, as hyparquet-writer and most writers do by default). */
export function parquetGold(gold: readonly GoldLine[], codec?: 'UNCOMPRESSED'): Buffer {
  return Buffer.from(
    parquetWriteBuffer({
      ...(codec && { codec }),
      columnData: [
        { name: 'qid', data: gold.map((g) => g.qid), type: 'STRING' },
        { name: 'question', data: gold.map((g) => g.question), type: 'STRING' },
        { name: 'answerable', data: gold.map((g) => g.answerable), type: 'BOOLEAN' },
        { name: 'gold_claim_substr', data: gold.map((g) => g.gold_claim_substr) },
        { name: 'gold_citations', data: gold.map((g) => g.gold_citations) },
        { name: 'constraints', data: gold.map((g) => g.constraints ?? null) },
      ],
      rowGroupSize: 16,
    }),
  );
}

export function parquetTraces(traces: readonly TraceLine[]): Buffer {
  return Buffer.from(
    parquetWriteBuffer({
      columnData: [
        {
          name: 'ts',
          data: traces.map((t) => (typeof t.ts === 'number' ? BigInt(t.ts) : null)),
          type: 'INT64',
        },
        { name: 'qid', data: traces.map((t) => t.qid), type: 'STRING' },
        { name: 'retrieved_ids', data: traces.map((t) => t.retrieved_ids) },
        { name: 'answer_json', data: traces.map((t) => t.answer_json) },
        { name: 'latency_ms', data: traces.map((t) => t.latency_ms ?? null), type: 'DOUBLE' },
        // Token counts only where some trace has them: the files of tests without them stay as they were.
        ...(traces.some((t) => t.tokens_in !== undefined || t.tokens_out !== undefined)
          ? [
              { name: 'tokens_in', data: traces.map((t) => t.tokens_in ?? null), type: 'INT32' as const },
              { name: 'tokens_out', data: traces.map((t) => t.tokens_out ?? null), type: 'INT32' as const },
              { name: 'model', data: traces.map((t) => t.model ?? null), type: 'STRING' as const },
            ]
          : []),
      ],
      rowGroupSize: 16,
    }),
  );
}

/**
 * `good` (a Parquet file of at least two row groups) with one byte of the second group's first column chunk
 * flipped, the first byte counting back from the chunk's end whose flip makes its page fail to decode.
 */
export async function brokenSecondGroup(good: Buffer, scratch: string): Promise<Buffer> {
  const meta = parquetMetadata(Uint8Array.from(good).buffer);
  const chunk = meta.row_groups[1]!.columns[0]!.meta_data!;
  const end = Number(chunk.data_page_offset) + Number(chunk.total_compressed_size);
  for (let back = 1; back < Number(chunk.total_compressed_size); back++) {
    const bad = Buffer.from(good);
    bad[end - back]! ^= 0xff;
    writeFileSync(scratch, bad);
    try {
      for await (const row of readParquetHere(scratch)) void row;
    } catch (err) {
      if (err instanceof InputError && err.where?.line === Number(meta.row_groups[0]!.num_rows) + 1)
        return bad;
      throw err;
    }
  }
  throw new Error('no flipped byte of the second row group fails to decode');
}
