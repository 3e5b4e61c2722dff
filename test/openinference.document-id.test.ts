import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { main } from '../src/cli/main.js';
import { InputError } from '../src/errors.js';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { assemble } from '../src/grounded-answer/spans/trace-assembly.js';
import { otlpScanner } from '../src/grounded-answer/spans/otlp-scan.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { otlpLines, phoenixArray, readJsonlFile } from './helpers/formats.js';
import { seeded } from './helpers/random.js';
import { jsonl, tmpTree } from './helpers/tmp.js';
import { scored as scoredSuites, scoredPart } from './helpers/scored.js';

// `openinference.document_id` (issue 44): LangChain writes no retrieval.documents.N.document.id, only the
// document's metadata as JSON text; ids read where the exporter wrote none scored 0 without a word.

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = readJsonlFile<TraceLine>('runs/qa.trace.jsonl');
const QUESTION = new Map(GOLD.map((g) => [g.qid, g.question]));
const questionOf = (t: TraceLine) => QUESTION.get(t.qid) ?? `a question not in gold (${t.qid})`;

interface Kv {
  key: string;
  value: Record<string, unknown>;
}
interface Span {
  name: string;
  attributes: Kv[];
}
type Export = { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };

/**
 * The example's OTLP lines with each document's id moved into its document.metadata (as `metadata(id, n)`
 * makes it, JSON text), as LangChain.js writes them: content and metadata, no document.id.
 */
function idsInMetadata(metadata: (id: string, n: number) => unknown, traces = TRACES): string {
  return otlpLines(traces, questionOf)
    .trimEnd()
    .split('\n')
    .map((line) => {
      const doc = JSON.parse(line) as Export;
      for (const span of doc.resourceSpans[0]!.scopeSpans[0]!.spans)
        span.attributes = span.attributes.map((kv) => {
          const m = /^retrieval\.documents\.(\d+)\.document\.id$/.exec(kv.key);
          if (!m) return kv;
          const id = kv.value.stringValue as string;
          return {
            key: `retrieval.documents.${m[1]}.document.metadata`,
            value: { stringValue: JSON.stringify(metadata(id, Number(m[1]))) },
          };
        });
      return JSON.stringify(doc);
    })
    .join('\n')
    .concat('\n');
}

const LANGCHAIN = (id: string, n: number) => ({ id, source: id.split('#')[0], rank: n + 1 });

const QA = { kind: 'grounded-qa', k: 5, scu: true, gold: 'gold.jsonl' };
const OI = { ...QA, format: 'openinference' };
const byMetadata = (documentId?: string) => ({
  ...OI,
  openinference: { qid: 'metadata.qid', ...(documentId && { document_id: documentId }) },
});

const scored = (files: Record<string, string>, suites: Record<string, object>) =>
  scoredSuites({ 'gold.jsonl': jsonl(GOLD), ...files }, suites);

/** groundgate as a user runs it, in `dir`: its exit status and stderr. */
async function cli(dir: string, args: string[] = []) {
  let stderr = '';
  const io = {
    stdout: () => undefined,
    stderr: (t: string) => void (stderr += t),
    isTty: false,
    env: { NO_COLOR: '1' },
  };
  const previous = process.cwd();
  process.chdir(dir);
  try {
    return { status: await main(args, io), stderr: stderr.trim() };
  } finally {
    process.chdir(previous);
  }
}

function gates(suite: object, files: Record<string, string>): string {
  return tmpTree({
    'gold.jsonl': jsonl(GOLD),
    ...files,
    'gates.yaml': YAML.stringify({ version: 1, suites: { qa: suite } }),
  });
}

async function errorOf(files: Record<string, string>, suite: object): Promise<string> {
  return scored(files, { s: suite }).then(
    () => 'no error',
    (err: unknown) => {
      if (!(err instanceof InputError)) throw err;
      return err.message.replace(/[^\s(]*groundgate-test-[^/]+\//g, '');
    },
  );
}

describe('openinference.document_id: ids where the exporter wrote them', () => {
  it('ids in document.metadata, read with metadata.id, score exactly as the canonical traces', async () => {
    const lines = idsInMetadata(LANGCHAIN);
    expect(lines).not.toContain('.document.id"');
    const suites = await scored(
      { 'traces.jsonl': jsonl(TRACES), 'traces.otlp.jsonl': lines },
      {
        canonical: { ...QA, traces: 'traces.jsonl' },
        langchain: { ...byMetadata('metadata.id'), traces: 'traces.otlp.jsonl' },
      },
    );
    // The example's own figures, so that equal cannot mean equally empty.
    expect(suites.canonical!.counts.trace_lines).toBe(50);
    expect(suites.canonical!.metrics.precision!.value).toBeGreaterThan(0.5);
    expect(scoredPart(suites.langchain)).toEqual(scoredPart(suites.canonical));
  });

  it('without it, a RETRIEVER span whose documents have no document.id is exit 2 naming the keys there', async () => {
    const dir = gates(
      { ...byMetadata(), traces: 'traces.otlp.jsonl' },
      { 'traces.otlp.jsonl': idsInMetadata(LANGCHAIN) },
    );
    expect(await cli(dir)).toEqual({
      status: 2,
      stderr:
        'groundgate: traces.otlp.jsonl:1: span "retrieve" (RETRIEVER): its documents have no document.id; its document.metadata has id, source, rank: set openinference.document_id: metadata.id',
    });
    // A key that is not there names the keys that are.
    const other = gates(
      { ...byMetadata('metadata.chunk_id'), traces: 'traces.otlp.jsonl' },
      { 'traces.otlp.jsonl': idsInMetadata(LANGCHAIN) },
    );
    expect(await cli(other)).toEqual({
      status: 2,
      stderr:
        'groundgate: traces.otlp.jsonl:1: span "retrieve" (RETRIEVER): its documents have no metadata.chunk_id; its document.metadata has id, source, rank: set openinference.document_id: metadata.id; or leave openinference.document_id unset if they carry document.id',
    });
  });

  it('a nested key is dotted: metadata.source.id reads {"source": {"id": …}}', async () => {
    const nested = idsInMetadata((id, n) => ({ source: { id, file: `${id}.md` }, rank: n }));
    const suites = await scored(
      { 'traces.jsonl': jsonl(TRACES), 'traces.otlp.jsonl': nested },
      {
        canonical: { ...QA, traces: 'traces.jsonl' },
        nested: { ...byMetadata('metadata.source.id'), traces: 'traces.otlp.jsonl' },
      },
    );
    expect(scoredPart(suites.nested)).toEqual(scoredPart(suites.canonical));
    // No key is named like an id at the top: the error says what to set without guessing.
    expect(await errorOf({ 'o.jsonl': nested }, { ...byMetadata(), traces: 'o.jsonl' })).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its documents have no document.id; its document.metadata has source, rank: set openinference.document_id: metadata.<key>, the key that holds each document’s id',
    );
  });

  it('a .json OTLP document, Phoenix spans and lines on threads read the ids as the OTLP lines do', async () => {
    const lines = idsInMetadata(LANGCHAIN);
    const document = JSON.stringify(
      {
        resourceSpans: lines
          .trimEnd()
          .split('\n')
          .flatMap((l) => (JSON.parse(l) as Export).resourceSpans),
      },
      null,
      2,
    );
    // Phoenix: document.metadata nested as an object, or left as JSON text.
    const phoenix = (asText: boolean) =>
      JSON.stringify(
        (JSON.parse(phoenixArray(TRACES, questionOf)) as { attributes: Record<string, unknown> }[]).map(
          (s) => {
            const retrieval = s.attributes.retrieval as
              { documents: { document: { id: string } }[] } | undefined;
            if (!retrieval) return s;
            const documents = retrieval.documents.map(({ document: { id } }, n) => ({
              document: { metadata: asText ? JSON.stringify(LANGCHAIN(id, n)) : LANGCHAIN(id, n), score: 1 },
            }));
            return { ...s, attributes: { ...s.attributes, retrieval: { documents } } };
          },
        ),
      );
    const suites = await scored(
      {
        'traces.jsonl': jsonl(TRACES),
        'o.json': document,
        'phoenix.json': phoenix(false),
        'phoenix-text.json': phoenix(true),
      },
      {
        canonical: { ...QA, traces: 'traces.jsonl' },
        document: { ...byMetadata('metadata.id'), traces: 'o.json' },
        phoenix: {
          ...OI,
          traces: 'phoenix.json',
          openinference: { qid: 'metadata.qid', document_id: 'metadata.id' },
        },
        phoenixText: {
          ...OI,
          traces: 'phoenix-text.json',
          openinference: { qid: 'metadata.qid', document_id: 'metadata.id' },
        },
      },
    );
    for (const name of ['document', 'phoenix', 'phoenixText'])
      expect([name, scoredPart(suites[name])]).toEqual([name, scoredPart(suites.canonical)]);
    // The error is the one the lines give, at the span's own line of the document.
    // The span's `{`, two lines above its spanId.
    const line = document.slice(0, document.indexOf('"spanId": "00000000000000b2"')).split('\n').length - 2;
    expect(await errorOf({ 'o.json': document }, { ...byMetadata(), traces: 'o.json' })).toBe(
      `o.json:${line}: span "retrieve" (RETRIEVER): its documents have no document.id; its document.metadata has id, source, rank: set openinference.document_id: metadata.id`,
    );
    expect(await errorOf({ 'p.json': phoenix(false) }, { ...OI, traces: 'p.json' })).toMatch(
      /^p\.json:\d+: span "retrieve" \(RETRIEVER\): its documents have no document\.id; its document\.metadata has id, source, rank: set openinference\.document_id: metadata\.id$/,
    );

    // Many traces, their spans cut apart in chunks (threads, or this thread alone reading their chunks).
    const many = Array.from({ length: 30 }, (_, k) =>
      TRACES.map((t) => ({ ...t, ts: (t.ts as number) + k * 86400 })),
    ).flat();
    const manyLines = idsInMetadata(LANGCHAIN, many);
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'many.otlp.jsonl': manyLines,
      'many.jsonl': jsonl(many),
    });
    const config = (suite: object) => {
      const file = path.join(dir, `g${Math.random()}.yaml`);
      writeFileSync(file, YAML.stringify({ version: 1, offenders: 50, suites: { s: suite } }));
      return file;
    };
    const outcome = (suite: object) =>
      run({ config: config(suite) }).then(
        ({ report }) => JSON.stringify(scoredPart(JSON.parse(serializeReport(report)).suites.s)),
        (err: unknown) => (err as Error).message.replaceAll(dir + path.sep, ''),
      );
    const previous = process.env.GROUNDGATE_THREADS;
    const seen: string[][] = [[], [], []];
    try {
      for (const threads of ['1', '4']) {
        process.env.GROUNDGATE_THREADS = threads;
        seen[0]!.push(await outcome({ ...QA, traces: 'many.jsonl' }));
        seen[1]!.push(await outcome({ ...byMetadata('metadata.id'), traces: 'many.otlp.jsonl' }));
        seen[2]!.push(await outcome({ ...byMetadata(), traces: 'many.otlp.jsonl' }));
      }
    } finally {
      if (previous === undefined) delete process.env.GROUNDGATE_THREADS;
      else process.env.GROUNDGATE_THREADS = previous;
    }
    expect(JSON.parse(seen[0]![0]!)).toMatchObject({ counts: { trace_lines: 1500 } });
    expect(seen[1]).toEqual([seen[0]![0], seen[0]![0]]);
    expect(seen[2]).toEqual(
      Array(2).fill(
        'many.otlp.jsonl:1: span "retrieve" (RETRIEVER): its documents have no document.id; its document.metadata has id, source, rank: set openinference.document_id: metadata.id',
      ),
    );
  });

  it('the byte scanner reads every line as JSON.parse and the span reader do, for either document_id', () => {
    const kv = (key: string, value: object) => ({ key, value });
    const s = (value: unknown) => ({ stringValue: value });
    const line = (...attributes: object[]) =>
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: 't',
                    spanId: 's',
                    name: 'retrieve',
                    startTimeUnixNano: '1000000',
                    endTimeUnixNano: '2000000',
                    attributes: [kv('openinference.span.kind', s('RETRIEVER')), ...attributes],
                  },
                ],
              },
            ],
          },
        ],
      });
    const meta = (n: string, v: object) => kv(`retrieval.documents.${n}.document.metadata`, v);
    const id = (n: string, v: string) => kv(`retrieval.documents.${n}.document.id`, s(v));
    const content = (n: string) => kv(`retrieval.documents.${n}.document.content`, s('text'));
    const lines = [
      line(...idsInMetadataAttrs()),
      line(meta('0', s('{"id":"a"}')), meta('1', s('{"id":"b"}')), content('3')),
      line(id('0', 'a'), meta('0', s('{"id":"x"}')), content('2')),
      line(meta('0', s('{"id":"a"}')), meta('0', s('{"id":"b"}'))), // given twice
      line(meta('0', { kvlistValue: { values: [kv('id', s('a'))] } })), // left to JSON.parse
      line(meta('0', { intValue: '7' }), meta('1', s('not json'))),
      line(meta('01', s('{}')), content('01'), content('1234567890'), content('x')),
      line(kv('retrieval.documents.0.document.metadata.document.id', s('a')), content('0')),
    ];
    function idsInMetadataAttrs() {
      return [0, 1, 2].flatMap((n) => [
        content(String(n)),
        meta(String(n), s(JSON.stringify(LANGCHAIN(`d${n}`, n)))),
      ]);
    }
    let sure = 0;
    for (const documentId of ['document.id', 'metadata.id']) {
      const scan = otlpScanner(undefined, undefined, documentId);
      for (const text of lines) {
        const b = Buffer.from(text);
        const parsed = () => spanFacts(JSON.parse(text), 'f', 1, undefined, undefined, documentId);
        const fast = scan(b, 0, b.length, 1, 'f');
        if (fast) {
          sure++;
          expect([documentId, text, fast]).toEqual([documentId, text, parsed()]);
        } else expect(() => parsed()).not.toThrow(/undefined/);
      }
    }
    expect(sure).toBeGreaterThanOrEqual(10);
    // What the facts hold: the attribute ids are read from by N, the documents named, the first metadata.
    const facts = (text: string, documentId: string) =>
      otlpScanner(undefined, undefined, documentId)(
        Buffer.from(text),
        0,
        Buffer.byteLength(text),
        1,
        'f',
      )![0]!;
    expect(facts(lines[1]!, 'metadata.id')).toMatchObject({
      documents: ['{"id":"a"}', '{"id":"b"}'],
      documentsNamed: 4,
    });
    expect(facts(lines[2]!, 'document.id')).toMatchObject({
      documents: ['a'],
      documentsNamed: 3,
      firstMetadata: '{"id":"x"}',
    });

    // Seeded edits of the example's lines (keys, indexes, values): whatever the scanner accepts, it reads
    // as JSON.parse does; and it accepts most.
    const rnd = seeded(4444);
    const example = idsInMetadata(LANGCHAIN).trimEnd().split('\n').slice(0, 10);
    const junk = ['0', '1', '9', '.', 'x', '"', '\\', '{', '}', ',', ' ', 'é'];
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      let text = example[i % example.length]!;
      for (let j = 1 + Math.floor(rnd() * 3); j > 0; j--) {
        // Near a document's key, mostly: that is where the scanner decides.
        const near = text.indexOf('retrieval.documents.', Math.floor(rnd() * text.length));
        const at = near >= 0 && rnd() < 0.8 ? near + Math.floor(rnd() * 40) : Math.floor(rnd() * text.length);
        text =
          rnd() < 0.5
            ? text.slice(0, at) + text.slice(at + 1)
            : text.slice(0, at) + junk[Math.floor(rnd() * junk.length)]! + text.slice(at);
      }
      const documentId = i % 2 === 0 ? 'metadata.id' : 'document.id';
      const b = Buffer.from(text);
      const fast = otlpScanner(undefined, undefined, documentId)(b, 0, b.length, 1, 'f');
      if (!fast) continue;
      accepted++;
      expect([text, fast]).toEqual([
        text,
        spanFacts(JSON.parse(text), 'f', 1, undefined, undefined, documentId),
      ]);
    }
    expect(accepted).toBeGreaterThan(500);
  });
});

describe('openinference.document_id: every document has an id, or the span is an error', () => {
  const kv = (key: string, value: object) => ({ key, value });
  const root = {
    traceId: 't1',
    spanId: 'a',
    name: 'qa',
    startTimeUnixNano: '1767225600000000000',
    endTimeUnixNano: '1767225601500000000',
    attributes: [
      kv('metadata', { stringValue: `{"qid":"${GOLD[0]!.qid}"}` }),
      kv('output.value', { stringValue: '{"claim":"x","citations":[]}' }),
    ],
  };
  const retriever = (...attributes: object[]) => ({
    ...root,
    spanId: 'r',
    parentSpanId: 'a',
    name: 'retrieve',
    attributes: [kv('openinference.span.kind', { stringValue: 'RETRIEVER' }), ...attributes],
  });
  const doc = (n: number, what: string, v: string) =>
    kv(`retrieval.documents.${n}.document.${what}`, { stringValue: v });
  const ids = (documentId: string | undefined, ...attributes: object[]) => {
    const line = JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [root, retriever(...attributes)] }] }],
    });
    const spans = spanFacts(JSON.parse(line), 'o.jsonl', 1, undefined, undefined, documentId);
    const b = Buffer.from(line);
    const fast = otlpScanner(undefined, undefined, documentId)(b, 0, b.length, 1, 'o.jsonl');
    // The scanner reads every such line but those of a kvlistValue, which it leaves to JSON.parse.
    if (!line.includes('kvlistValue')) expect(fast).toEqual(spans);
    else expect(fast).toBeUndefined();
    try {
      return (assemble(spans, { qid: 'metadata.qid', ...(documentId && { documentId }) }).value as TraceLine)
        .retrieved_ids;
    } catch (err) {
      if (err instanceof InputError) return err.message;
      throw err;
    }
  };

  it('reads a string as it is and an integer as its digits; anything else is named', () => {
    expect(
      ids('metadata.id', doc(0, 'metadata', '{"id":"a"}'), doc(1, 'metadata', '{"id":7,"x":1}')),
    ).toEqual(['a', '7']);
    for (const [v, shown] of [
      ['1.5', '1.5'],
      ['true', 'true'],
      ['null', 'null'],
      ['9007199254740993', '9007199254740992'],
      ['{"k":"a"}', '{"k":"a"}'],
    ])
      expect(ids('metadata.id', doc(0, 'metadata', '{"id":"a"}'), doc(1, 'metadata', `{"id":${v}}`))).toBe(
        `o.jsonl:1: span "retrieve" (RETRIEVER): its document 1 has metadata.id ${shown}; expected a string, or an integer of at most 2^53 (read as its decimal digits)`,
      );
  });

  it('a document without an id where the config looks is an error, whichever attribute names it', () => {
    // Python LangChain leaves out empty metadata: content alone.
    expect(ids(undefined, doc(0, 'content', 'a'), doc(1, 'content', 'b'))).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its documents have no document.id; its first document has no document.metadata either; expected retrieval.documents.N.document.id, or openinference.document_id: metadata.<key> naming the key of document.metadata that holds each document’s id',
    );
    expect(ids(undefined, doc(0, 'metadata', 'text'))).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its documents have no document.id; its document.metadata is "text", not a JSON object; expected retrieval.documents.N.document.id, or openinference.document_id: metadata.<key> naming the key of document.metadata that holds each document’s id',
    );
    expect(ids(undefined, doc(0, 'metadata', '{}'))).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its documents have no document.id; its document.metadata has no keys; expected retrieval.documents.N.document.id, or openinference.document_id: metadata.<key> naming the key of document.metadata that holds each document’s id',
    );
    // LlamaIndex: a node id in document.id, the file in the metadata; the metadata's id-like key is offered.
    expect(
      ids('metadata.id', doc(0, 'id', 'c2f1…'), doc(0, 'metadata', '{"file_name":"keys.md","doc_id":"k1"}')),
    ).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its documents have no metadata.id; its document.metadata has file_name, doc_id: set openinference.document_id: metadata.doc_id; or leave openinference.document_id unset if they carry document.id',
    );
    expect(
      ids('metadata.file_name', doc(0, 'id', 'n0'), doc(0, 'metadata', '{"file_name":"keys.md"}')),
    ).toEqual(['keys.md']);
    // Metadata as an OTLP kvlistValue is read as the JSON text is.
    const kvlist = kv('retrieval.documents.0.document.metadata', {
      kvlistValue: { values: [kv('source', { kvlistValue: { values: [kv('id', { stringValue: 'k1' })] } })] },
    });
    expect(ids('metadata.source.id', kvlist)).toEqual(['k1']);
    // A document after the last with an id, one in between, one whose metadata lacks the key.
    expect(ids(undefined, doc(0, 'id', 'a'), doc(1, 'content', 'b'))).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its document 1 has no document.id, though the documents before it have; expected every document\'s id (see openinference.document_id)',
    );
    expect(ids('metadata.id', doc(0, 'metadata', '{"id":"a"}'), doc(2, 'metadata', '{"id":"c"}'))).toBe(
      'o.jsonl:1: retriever span "retrieve" has no retrieval.documents.1.document.metadata, but one numbered 2; expected documents numbered from 0 without a gap',
    );
    expect(ids('metadata.id', doc(0, 'metadata', '{"id":"a"}'), doc(1, 'metadata', '{"source":"b"}'))).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its document 1 has no metadata.id (its document.metadata has source); expected every document\'s id there (see openinference.document_id)',
    );
    expect(ids('metadata.id', doc(0, 'metadata', '{"id":"a"}'), doc(1, 'metadata', 'text'))).toBe(
      'o.jsonl:1: span "retrieve" (RETRIEVER): its document 1 has no metadata.id (its document.metadata is "text"); expected every document\'s id there (see openinference.document_id)',
    );
    // A retriever that found nothing has no documents, and no ids to miss.
    expect(ids(undefined)).toEqual([]);
    expect(ids('metadata.id')).toEqual([]);
  });

  it('a bad value is refused in gates.yaml at its line and column', async () => {
    for (const bad of ['foo', 'metadata', 'metadata.', 'metadata..id', 'document.metadata'])
      expect(
        await cli(gates({ ...OI, traces: 'o.jsonl', openinference: { document_id: bad } }, {}), ['check']),
      ).toEqual({
        status: 2,
        stderr:
          'groundgate: gates.yaml:11:20: suite "qa": openinference.document_id: expected document.id, or metadata.<key> naming a key of each document.metadata (nested keys dotted: metadata.source.id)',
      });
  });
});
