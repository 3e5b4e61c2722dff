import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { init } from './helpers/init.js';
import { parseConfig } from '../src/config/load.js';
import { scopeAt } from '../src/io/confine.js';
import { sampleOf } from '../src/init/detect.js';
import { proposeSpans, sampledTraces } from '../src/init/span-proposal.js';
import { run } from '../src/run.js';
import { copyOf, expectSameAsCanonical } from './helpers/shapes.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

// `groundgate init` on traces exported as OpenTelemetry spans (#55, point 1): the format, the qid source and
// the document id key proposed, each chosen by which candidate meets the gold set's ids.

async function metricsOf(dir: string) {
  const file = path.join(dir, 'gates.yaml');
  const scope = scopeAt(dir, 'the repository');
  const outcome = await run({
    config: file,
    loaded: parseConfig(readFileSync(file, 'utf8'), file, scope),
    scope,
  });
  return outcome.report.suites.qa!.metrics;
}

type Value = string | number;
const attribute = (key: string, v: Value) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) },
});
const nanos = (ms: number) => `${ms}000000`;

/**
 * One OTLP/JSON export line of a LlamaIndex-like trace, as openinference-instrumentation-llama-index writes it:
 * the root's input.value is the question (no qid anywhere), the retriever's documents carry the node's UUID
 * in document.id and the team's id in document.metadata.doc_id.
 */
function llamaTrace(n: number, question: string, docs: readonly string[], answer: string): string {
  const traceId = n.toString(16).padStart(32, '0');
  const span = (
    id: number,
    parent: number | undefined,
    attrs: [string, Value][],
    start: number,
    end: number,
  ) => ({
    traceId,
    spanId: (n * 16 + id).toString(16).padStart(16, '0'),
    ...(parent === undefined ? {} : { parentSpanId: (n * 16 + parent).toString(16).padStart(16, '0') }),
    name: String(attrs[0]![1]),
    kind: 1,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes: attrs.map(([k, v]) => attribute(k, v)),
  });
  const t0 = 1_767_000_000_000 + n * 10_000;
  const documents = docs.flatMap((d, i): [string, Value][] => [
    [
      `retrieval.documents.${i}.document.id`,
      `6513270e-0000-4000-8000-${String(n * 10 + i).padStart(12, '0')}`,
    ],
    [`retrieval.documents.${i}.document.metadata`, JSON.stringify({ file_name: `${d}.md`, doc_id: d })],
    [`retrieval.documents.${i}.document.content`, `text of ${d}`],
  ]);
  const spans = [
    span(
      1,
      undefined,
      [
        ['openinference.span.kind', 'CHAIN'],
        ['input.value', question],
        ['output.value', answer],
      ],
      t0,
      t0 + 900,
    ),
    span(
      2,
      1,
      [['openinference.span.kind', 'RETRIEVER'], ['input.value', question], ...documents],
      t0 + 10,
      t0 + 210,
    ),
    span(
      3,
      1,
      [
        ['openinference.span.kind', 'LLM'],
        ['output.value', answer],
      ],
      t0 + 220,
      t0 + 880,
    ),
  ];
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'x' }, spans }] }],
  });
}

/** Three questions citing doc-1, doc-2, doc-3; their traces retrieve doc-1 first, doc-2 second, neither of q3's. */
function llamaRepo() {
  const gold = [1, 2, 3].map((i) => ({
    qid: `q${i}`,
    question: `What is fact ${i}?`,
    answerable: true,
    gold_claim_substr: [`fact ${i} is ${i * 7}`],
    gold_citations: [`doc-${i}`],
  }));
  const retrieved = [
    ['doc-1', 'doc-9'],
    ['doc-5', 'doc-2'],
    ['doc-7', 'doc-8'],
  ];
  const traces = [1, 2, 3].map((i) =>
    llamaTrace(i, `What is fact ${i}?`, retrieved[i - 1]!, `Fact ${i} is ${i * 7}.`),
  );
  return tmpTree({ 'gold/gold.jsonl': jsonl(gold), 'traces/spans.otlp.jsonl': traces.join('\n') + '\n' });
}

describe('init on OpenInference spans', () => {
  it('proposes format: openinference, the qid source and the document id key that meet the gold ids', () => {
    const { init, dir } = expectSameAsCanonical('openinference-otlp');
    expect(init.stdout).toContain(
      'traces/qa.otlp.jsonl: grounded-answer traces (OpenTelemetry spans): 2 sampled traces of OTLP spans, 10 retrieved documents: read with format: openinference',
    );
    const gates = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    // LangChain's instrumentor writes no document.id: the ids are in document.metadata.id.
    expect(gates).toContain(
      [
        "    format: openinference # proposed by groundgate init: OTLP spans under the OpenInference conventions (groundgate's docs/formats.md)",
        '    openinference:',
        `      qid: "metadata.qid" # the root span's metadata.qid is a gold qid in 2 of 2 sampled traces (input.value 2)`,
        '      document_id: "metadata.id" # metadata.id meets 3 of the gold set\'s 8 cited ids in 10 sampled documents (no document.id)',
      ].join('\n'),
    );
  });

  it('proposes format: otel for spans of the GenAI conventions, their qids matched by question', () => {
    const { dir } = expectSameAsCanonical('genai-otlp');
    const gates = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(gates).toContain(
      [
        "    format: otel # proposed by groundgate init: OTLP spans under the OpenTelemetry GenAI conventions (groundgate's docs/formats.md)",
        '    openinference:',
        `      qid: "input.value" # the root span's input.value is a gold question in 12 of 12 sampled traces`,
        '      document_id: "document.id" # document.id meets 8 of the gold set\'s 8 cited ids in 60 sampled documents (metadata.id 8)',
      ].join('\n'),
    );
  });

  it('without --yes and no terminal, stops at the proposal (exit 2)', async () => {
    const dir = copyOf('openinference-otlp', 'project');
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.out).toContain('    format: openinference # proposed by groundgate init');
    expect(r.err).toContain(
      'the suite qa can read its data only through the format: openinference or fields: mapping above; --yes writes it into gates.yaml',
    );
  });

  it('matches questions when no attribute holds a gold qid, and reads ids from the metadata key that meets the gold citations', async () => {
    const dir = llamaRepo();
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const gates = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(gates).toContain(
      `      qid: "input.value" # the root span's input.value is a gold question in 3 of 3 sampled traces\n`,
    );
    expect(gates).toContain(
      '      document_id: "metadata.doc_id" # metadata.doc_id meets 2 of the gold set\'s 3 cited ids in 6 sampled documents (document.id 0)',
    );
    // q1 retrieves doc-1, q2 doc-2, q3 neither of its own: recall@5 2 of 3, as the ids say, not 0 of 3.
    const metrics = await metricsOf(dir);
    expect(metrics['recall@5']).toMatchObject({ numerator: 2, denominator: 3 });
  });
});

describe('init on a Phoenix span export (a .json array, attributes nested)', () => {
  it('proposes format: openinference and the metadata key that meets the gold citations', async () => {
    const spans = [1, 2, 3].flatMap((i) => {
      const at = (ms: number) => new Date(1_767_000_000_000 + i * 10_000 + ms).toISOString();
      const context = (span: number) => ({ trace_id: `t${i}`, span_id: `s${i}-${span}` });
      return [
        {
          name: 'query',
          context: context(1),
          parent_id: null,
          span_kind: 'CHAIN',
          start_time: at(0),
          end_time: at(900),
          attributes: {
            openinference: { span: { kind: 'CHAIN' } },
            input: { value: `What is fact ${i}?` },
            output: { value: `Fact ${i} is ${i * 7}.` },
          },
        },
        {
          name: 'retrieve',
          context: context(2),
          parent_id: `s${i}-1`,
          span_kind: 'RETRIEVER',
          start_time: at(10),
          end_time: at(200),
          attributes: {
            openinference: { span: { kind: 'RETRIEVER' } },
            retrieval: {
              documents: [{ document: { id: `node-${i}`, metadata: { doc_id: `doc-${i}` } } }],
            },
          },
        },
      ];
    });
    const gold = [1, 2, 3].map((i) => ({
      qid: `q${i}`,
      question: `What is fact ${i}?`,
      answerable: true,
      gold_claim_substr: [`fact ${i} is ${i * 7}`],
      gold_citations: [`doc-${i}`],
    }));
    const dir = tmpTree({ 'gold.jsonl': jsonl(gold), 'phoenix/spans.json': JSON.stringify(spans, null, 2) });
    const r = await init(dir, '--yes');
    expect([r.status, r.err]).toEqual([0, '']);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      [
        '    format: openinference # proposed by groundgate init: OTLP spans under the OpenInference conventions (docs/formats.md)',
        '    openinference:',
        `      qid: "input.value" # the root span's input.value is a gold question in 3 of 3 sampled traces`,
        `      document_id: "metadata.doc_id" # metadata.doc_id meets 3 of the gold set's 3 cited ids in 3 sampled documents (document.id 0)`,
      ].join('\n'),
    );
    expect((await metricsOf(dir))['recall@5']).toMatchObject({ numerator: 3, denominator: 3 });
  });
});

describe('init --dry-run on spans', () => {
  it('prints the gates with the proposal and writes nothing', async () => {
    const dir = llamaRepo();
    const r = await init(dir, '--dry-run');
    expect([r.status, r.err]).toEqual([0, '']);
    expect(r.out).toContain('--- gates.yaml (dry run: not written)');
    expect(r.out).toContain('    format: openinference # proposed by groundgate init');
    expect(r.out).toContain('      document_id: "metadata.doc_id" #');
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
  });
});

describe('init --suite with spans given as traces', () => {
  it('proposes the format and keys as detection does', async () => {
    const dir = llamaRepo();
    const r = await init(
      dir,
      '--suite',
      'grounded-qa',
      '--gold',
      path.join(dir, 'gold/gold.jsonl'),
      '--traces',
      path.join(dir, 'traces/spans.otlp.jsonl'),
      '--yes',
    );
    expect([r.status, r.err]).toEqual([0, '']);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      '    format: openinference # proposed by groundgate init',
    );
    expect((await metricsOf(dir))['recall@5']).toMatchObject({ numerator: 2, denominator: 3 });
  });
});

describe('init on the LlamaIndex node-UUID export (data written for the ids-meet check, not for init)', () => {
  it('proposes the metadata key that holds the gold ids, not the node UUIDs in document.id', async () => {
    const dir = tmpTree({
      'gold/qa.gold.jsonl': readFileSync(path.join(REPO, 'gold/qa.gold.jsonl'), 'utf8'),
      'traces/llama-index.otlp.jsonl': readFileSync(
        path.join(REPO, 'test/fixtures/openinference/llama-index.otlp.jsonl'),
        'utf8',
      ),
    });
    const r = await init(dir, '--yes');
    expect([r.status, r.err]).toEqual([0, '']);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      [
        '    openinference:',
        `      qid: "metadata.qid" # the root span's metadata.qid is a gold qid in 7 of 7 sampled traces (input.value 7)`,
        '      document_id: "metadata.doc_id" # metadata.doc_id meets 10 of the gold set\'s 14 cited ids in 35 sampled documents (document.id 0)',
      ].join('\n'),
    );
  });
});

describe('proposeSpans', () => {
  it('falls back to document.id, and says so, when no key meets a gold citation', () => {
    const dir = llamaRepo();
    const file = path.join(dir, 'traces/spans.otlp.jsonl');
    const traces = sampledTraces(file, sampleOf(file)!.records)!;
    const gold = [{ qid: 'q1', question: 'What is fact 1?', gold_citations: ['elsewhere'] }];
    const { proposal, records } = proposeSpans(gold, traces);
    expect(proposal.documentId).toBe('document.id');
    expect(proposal.documentNote).toBe(
      'no key of the 6 sampled documents meets a gold citation (document.id, metadata.doc_id, metadata.file_name): check which key holds your ids',
    );
    expect(proposal.qid).toBe('input.value');
    // The sampled traces read through the proposal, the question matched back to its qid.
    expect(records[0]).toMatchObject({
      qid: 'q1',
      retrieved_ids: ['6513270e-0000-4000-8000-000000000010', '6513270e-0000-4000-8000-000000000011'],
    });
  });
});
