import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleOf } from '../src/init/detect.js';
import { readAsTool } from '../src/init/shapes/index.js';
import { main } from '../src/cli/main.js';
import { init } from './helpers/init.js';
import { copyOf, expectSameAsCanonical, SHAPES } from './helpers/shapes.js';

// `init` on data as the tools write it (#55, docs/init.md): each shape's project/ read by `init --yes` scores
// as its hand-converted canonical/ (test/fixtures/shapes/*/README.md says how each was made).

const sample = (shape: string, file: string) => sampleOf(path.join(SHAPES, shape, 'project', file))!;

/** The `fields:` lines init wrote for an input, as they stand in gates.yaml (without their comments). */
function writtenFields(dir: string, input: string): string[] {
  const yaml = readFileSync(path.join(dir, 'gates.yaml'), 'utf8').split('\n');
  const start = yaml.indexOf(`      ${input}:`);
  const out: string[] = [];
  for (const l of yaml.slice(start + 1)) {
    if (!l.startsWith('        ')) break;
    out.push(l.trim().replace(/ # .*$/, ''));
  }
  return out;
}

describe("LlamaIndex's retrieval dataset (EmbeddingQAFinetuneDataset.save_json)", () => {
  it('init --yes reads it as qrels with qrels_format: llamaindex, paired with the run over its qids, and scores as canonical', () => {
    const { dir, init } = expectSameAsCanonical('llamaindex-dataset');
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      "    qrels: eval/qa_dataset.json\n    run: runs/bm25.run\n    qrels_format: llamaindex # LlamaIndex's EmbeddingQAFinetuneDataset: each docid of relevant_docs a judgment of grade 1\n",
    );
    // By hand from the fixture's table: 8 queries, each one relevant doc; at rank 1 for 5, rank 2 for 2
    // (q04, q08), not retrieved for q05. recall@10 7/8; mrr (5 + 2/2) / 8; ndcg@10 (5 + 2/log2 3) / 8.
    const metrics = (
      JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
        suites: Record<string, { metrics: Record<string, { value: number }> }>;
      }
    ).suites.retrieval!.metrics;
    expect(metrics['recall@10']!.value).toBe(7 / 8);
    expect(metrics.mrr!.value).toBe(6 / 8);
    expect(metrics['ndcg@10']!.value).toBeCloseTo((5 + 2 / Math.log2(3)) / 8, 12);
    expect(init.stdout).toContain(
      '  eval/qa_dataset.json: relevance judgments (qrels): a LlamaIndex EmbeddingQAFinetuneDataset (queries, corpus, relevant_docs)\n',
    );
  });

  it('pairs by the qids of relevant_docs when the document is one line, and names the dataset when no run shares them', async () => {
    const dir = copyOf('llamaindex-dataset', 'project');
    const file = path.join(dir, 'eval', 'qa_dataset.json');
    // json.dump without indent: one line, which also parses as a JSON Lines record without a qid.
    writeFileSync(file, JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))));
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain('    qrels_format: llamaindex # ');

    const other = copyOf('llamaindex-dataset', 'project');
    writeFileSync(
      path.join(other, 'eval', 'qa_dataset.json'),
      JSON.stringify({ queries: { x: 'Other?' }, corpus: {}, relevant_docs: { x: ['n1'] } }),
    );
    const alone = await init(other, '--dry-run');
    expect(alone.err).toContain(
      'eval/qa_dataset.json (relevance judgments (qrels): a LlamaIndex EmbeddingQAFinetuneDataset (queries, corpus, relevant_docs)): no run shares its qids',
    );
  });

  it('a dataset too large to sample (over 4 MiB) is read when named with --suite ranking and its format', async () => {
    const dir = copyOf('llamaindex-dataset', 'project');
    const file = path.join(dir, 'eval', 'qa_dataset.json');
    const dataset = JSON.parse(readFileSync(file, 'utf8')) as { corpus: Record<string, string> };
    dataset.corpus.big = 'x'.repeat(4 * 1024 * 1024);
    writeFileSync(file, JSON.stringify(dataset, null, 4));
    const r = await init(
      dir,
      '--suite',
      'ranking',
      '--input',
      `qrels=${file}`,
      '--input',
      `run=${path.join(dir, 'runs', 'bm25.run')}`,
      '--input',
      'qrels_format=llamaindex',
      '--yes',
    );
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain('    qrels_format: llamaindex\n');
    // Scored: the 8 judged queries of the fixture, every one in the run.
    expect(r.out).toMatch(/ndcg@10/);
  });
});

describe('LlamaIndex Response lines', () => {
  it.each(['llamaindex-ts', 'llamaindex-py'])(
    '%s: init --yes reads the node metadata key that meets the gold ids, and scores as canonical',
    (shape) => {
      const { dir, init } = expectSameAsCanonical(shape);
      const sources = shape === 'llamaindex-ts' ? 'sourceNodes' : 'source_nodes';
      const claim = shape === 'llamaindex-ts' ? '/message/content' : '/response';
      expect(writtenFields(dir, 'traces')).toEqual([
        '/qid: /query_id',
        ...(shape === 'llamaindex-ts' ? ['/q: /query'] : []),
        `/answer_json/claim: ${claim}`,
        `/retrieved_ids: /${sources}/*/node/metadata/doc_id`,
        `/answer_json/citations: /${sources}/*/node/metadata/doc_id`,
      ]);
      // 8 distinct documents are cited by the 8 answerable items; the node UUIDs and file names meet none.
      expect(init.stdout).toContain(
        `${sources}[*].node.metadata.doc_id → retrieved_ids (meets 8 of 8 sampled gold ids; node.id_ meets 0)`,
      );
      expect(init.stdout).toContain(
        `eval/responses.jsonl: LlamaIndex Response: read as traces through fields:\n`,
      );
    },
  );

  it('says which spelling it read, and keeps the node id when that is what the gold set cites', () => {
    const read = readAsTool(sample('llamaindex-py', 'eval/responses.jsonl').records)!;
    expect(read.line).toBe('LlamaIndex Response: read as traces through fields:');
    const [traces] = read.inputs;
    expect(traces!.fields!.lines.map((l) => l.note)).toContain(
      'response → answer_json.claim (LlamaIndex Response (Python): the answer text)',
    );
    // The first record's first node is doc-retention's chunk: a gold set citing node ids keeps id_.
    const first = (
      sample('llamaindex-py', 'eval/responses.jsonl').records![0] as {
        source_nodes: { node: { id_: string } }[];
      }
    ).source_nodes[0]!.node.id_;
    const byNodeId = traces!.meet!(new Set([first, 'elsewhere']));
    expect(byNodeId.lines.find((l) => l.canonical === '/retrieved_ids')).toEqual({
      canonical: '/retrieved_ids',
      source: '/source_nodes/*/node/id_',
      note: 'source_nodes[*].node.id_ → retrieved_ids (meets 1 of 2 sampled gold ids)',
    });
  });

  it('without a query id beside the response, says what to add and takes nothing', () => {
    const s = sample('llamaindex-py', 'eval/responses.jsonl');
    const records = s.records!.map((r) => {
      const rest = { ...(r as Record<string, unknown>) };
      delete rest.query_id;
      return rest;
    });
    const read = readAsTool(records)!;
    expect(read.inputs).toEqual([]);
    expect(read.line).toBe(
      'LlamaIndex Response, not taken: no query id beside the LlamaIndex Response (Python): log yours on each line (id, question_id, query_id) to pair it with the gold set',
    );
  });
});

/** The claim rule's line init prints: 6 of 10 answers hold half their reference's tokens, none verbatim. */
const CONTRAST =
  '  qa: claims: normalized, min_token_recall 0.5: precision measured 0.6000 (6/10) under this rule, 0.0000 (0/10) under substring matching\n';

describe('RAGAS and DeepEval: one file both gold and traces, ids from content', () => {
  it('ragas: init --yes reads to_jsonl samples by content ids with the normalized claim rule, and scores as canonical', () => {
    const { dir, init } = expectSameAsCanonical('ragas');
    expect(writtenFields(dir, 'gold')).toEqual([
      '/qid: { from: /user_input, content_id: true }',
      '/question: /user_input',
      '/answerable: { from: /reference_contexts, nonempty: true }',
      '/gold_claim_substr: /reference',
      '/gold_citations: { from: /reference_contexts, content_id: true }',
    ]);
    expect(writtenFields(dir, 'traces')).toEqual([
      '/qid: { from: /user_input, content_id: true }',
      '/q: /user_input',
      '/retrieved_ids: { from: /retrieved_contexts, content_id: true }',
      '/answer_json/claim: /response',
      '/answer_json/citations: { from: /retrieved_contexts, content_id: true }',
    ]);
    expect(init.stdout).toContain(CONTRAST);
    const gates = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(gates).toContain(
      "    claims: # proposed by groundgate init: the gold facts are whole reference answers (reference), which an answer rarely holds word for word, so substring matching cannot hold; the normalized rule finds at least 0.5 of a fact's tokens in order, none negated (groundgate's docs/metrics.md, Claims); match: semantic with a judge also weighs paraphrase; precision measured 0.6000 (6/10) under this rule, 0.0000 (0/10) under substring matching\n      match: normalized\n      min_token_recall: 0.5\n",
    );
    expect(gates).toContain('    gold: eval/ragas_dataset.jsonl\n    traces: eval/ragas_dataset.jsonl\n');
  });

  it('deepeval: init --yes reads camelCase test cases, completionTime as latency, and scores as canonical', () => {
    const { dir, init } = expectSameAsCanonical('deepeval');
    expect(writtenFields(dir, 'gold')).toEqual([
      '/qid: { from: /input, content_id: true }',
      '/question: /input',
      '/answerable: { from: /context, nonempty: true }',
      '/gold_claim_substr: /expectedOutput',
      '/gold_citations: { from: /context, content_id: true }',
    ]);
    expect(writtenFields(dir, 'traces')).toEqual([
      '/qid: { from: /input, content_id: true }',
      '/q: /input',
      '/retrieved_ids: { from: /retrievalContext, content_id: true }',
      '/answer_json/claim: /actualOutput',
      '/answer_json/citations: { from: /retrievalContext, content_id: true }',
      '/latency_ms: { from: /completionTime, scale: 1000 }',
    ]);
    expect(init.stdout).toContain(CONTRAST);
    expect(init.stdout).toContain(
      'tests/deepeval_cases.jsonl: DeepEval test case: read as gold and traces through fields:\n',
    );
  });

  const ragasRecords = () => sample('ragas', 'eval/ragas_dataset.jsonl').records as Record<string, unknown>[];
  const sources = (inputs: { fields: { lines: { canonical: string; source: unknown }[] } }[]) =>
    inputs.map((i) => Object.fromEntries(i.fields.lines.map((l) => [l.canonical, l.source])));

  it('RAGAS ids beside the texts are read as they are; a qid of its own is kept', () => {
    const records = ragasRecords().map((r, i) => ({
      ...r,
      id: `s${i}`,
      retrieved_context_ids: (r.retrieved_contexts as string[]).map((_, k) => `r${i}-${k}`),
      reference_context_ids: (r.reference_contexts as string[]).map((_, k) => `g${i}-${k}`),
    }));
    const [gold, traces] = sources(readAsTool(records)!.inputs);
    expect(gold).toMatchObject({
      '/qid': '/id',
      '/answerable': { from: '/reference_context_ids', nonempty: true },
      '/gold_citations': '/reference_context_ids',
    });
    expect(traces).toMatchObject({
      '/qid': '/id',
      '/retrieved_ids': '/retrieved_context_ids',
      '/answer_json/citations': '/retrieved_context_ids',
    });
  });

  it('RAGAS samples without reference_contexts on some items: says to write [] and reads the traces only', () => {
    const records = ragasRecords().map((r, i) => {
      const copy = { ...r };
      if (i >= 8) delete copy.reference_contexts;
      return copy;
    });
    const read = readAsTool(records)!;
    expect(read.inputs.map((i) => i.input)).toEqual(['traces']);
    expect(read.line).toBe(
      'RAGAS SingleTurnSample: read as traces through fields:; you choose: 2 of 10 sampled samples have no reference_contexts: write [] for a question the documents cannot answer',
    );
  });

  it('DeepEval in snake_case reads the same members; save_as jsonl contexts joined by "|" are said to be one text', () => {
    const snake = (sample('deepeval', 'tests/deepeval_cases.jsonl').records as Record<string, unknown>[]).map(
      (r) => ({
        input: r.input,
        actual_output: r.actualOutput,
        expected_output: r.expectedOutput,
        context: r.context,
        retrieval_context: r.retrievalContext,
      }),
    );
    const [gold, traces] = sources(readAsTool(snake)!.inputs);
    expect(gold).toMatchObject({ '/gold_claim_substr': '/expected_output' });
    expect(traces).toMatchObject({
      '/answer_json/claim': '/actual_output',
      '/retrieved_ids': { from: '/retrieval_context', content_id: true },
    });
    expect(traces).not.toHaveProperty('/latency_ms');
    const joined = snake.map((r) => ({
      ...r,
      retrieval_context: (r.retrieval_context as string[]).join('|'),
    }));
    expect(readAsTool(joined)!.line).toBe(
      'DeepEval test case: read as gold through fields:; you choose: retrieval_context is one text joined by "|" (EvaluationDataset.save_as jsonl or csv), which no mapping splits into its texts: not read; log each test case\'s model_dump() (lists) instead',
    );
  });
});

describe("init without --yes, and --dry-run, on a tool's file", () => {
  it('plain: prints the whole proposal, claims rule included, and exits 2 writing nothing', async () => {
    const dir = copyOf('ragas', 'project');
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.out).toContain('proposed for the suite qa of gates.yaml:\n');
    expect(r.out).toContain('        /answerable: { from: /reference_contexts, nonempty: true }');
    expect(r.out).toContain(
      '    claims: # proposed by groundgate init: the gold facts are whole reference answers (reference)',
    );
    expect(r.out).toContain('      min_token_recall: 0.5\n');
    expect(r.err).toContain(
      'the suite qa can read its data only through the fields: mapping above; --yes writes it',
    );
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
  });

  it('--dry-run: prints the gates it would write, the measured contrast beside the rule, and writes nothing', async () => {
    const dir = copyOf('deepeval', 'project');
    const r = await init(dir, '--dry-run');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain('--- gates.yaml (dry run: not written)\n');
    expect(r.out).toContain(
      '; precision measured 0.6000 (6/10) under this rule, 0.0000 (0/10) under substring matching\n      match: normalized\n',
    );
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
  });

  it('JSON documents a tool wrote that groundgate does not read are named, with what to do', async () => {
    const dir = copyOf('llamaindex-py', 'project');
    writeFileSync(
      path.join(dir, 'eval', 'goldens.json'),
      JSON.stringify([{ input: 'How long?', expected_output: '30 days', context: ['Logs…'] }], null, 4),
    );
    const r = await init(dir, '--yes');
    expect(r.status).toBe(0);
    // In-process, the working folder is the repository: the doc is named as it is there (src/docs.ts docRef).
    expect(r.out).toContain(
      '  eval/goldens.json: DeepEval EvaluationDataset.save_as("json") (a list of goldens), not taken: groundgate reads one record a line: save_as("jsonl") joins contexts with "|", so write each golden\'s model_dump() a line (docs/init.md)\n',
    );
  });

  it("--suite grounded-qa naming a tool's file for both inputs: the same mappings and claim rule", async () => {
    const dir = copyOf('ragas', 'project');
    const file = path.join(dir, 'eval', 'ragas_dataset.jsonl');
    const r = await init(dir, '--suite', 'grounded-qa', '--gold', file, '--traces', file, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(writtenFields(dir, 'gold')).toContain(
      '/gold_citations: { from: /reference_contexts, content_id: true }',
    );
    expect(writtenFields(dir, 'traces')).toContain(
      '/retrieved_ids: { from: /retrieved_contexts, content_id: true }',
    );
    expect(r.out).toContain(CONTRAST);
  });

  it("--release locks the team's own file through the proposed mapping, and verify accepts it", async () => {
    const dir = copyOf('ragas', 'project');
    const r = await init(dir, '--yes', '--release');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const lock = JSON.parse(readFileSync(path.join(dir, 'eval', 'ragas_dataset.lock.json'), 'utf8')) as {
      items: number;
    };
    expect(lock.items).toBe(10);
    let err = '';
    const verified = await main(['verify', '-c', path.join(dir, 'gates.yaml')], {
      stdout: () => {},
      stderr: (t) => (err += t),
      isTty: false,
      env: {},
    });
    expect(err).toBe('');
    expect(verified).toBe(0);
  });
});
