// npm run fixtures:shapes [-- <out dir>]: writes test/fixtures/shapes/<shape>/ (see test/fixtures/README.md and
// each folder's README.md) for the shapes of data init recognises as tools write them (#55, docs/init.md).
//
// One small help desk: 8 documents, 10 questions (2 that the documents cannot answer), and what a RAG
// pipeline retrieved and answered for each. Each shape writes these same items as its tool writes them into
// project/, and the same items in groundgate's canonical shapes into canonical/, converted here by hand from
// the table below (never through groundgate), so that `check` on both must score alike.
//
//   llamaindex-ts  @llamaindex/core's own EngineResponse and TextNode classes, JSON.stringify'd (the
//                  package as installed, version in package.json), one response a line beside the query id
//   llamaindex-py  Python llama-index-core's Response {response, source_nodes: NodeWithScore.dict(), metadata}
//                  as a team logs it, by the schema in llama_index/core/base/response/schema.py and schema.py
//
//   ragas          RAGAS EvaluationDataset.to_jsonl: one SingleTurnSample a line, None fields dropped, by the
//                  schema in explodinggradients/ragas src/ragas/dataset_schema.py (RAGAS is Python only)
//   deepeval       DeepEval LLMTestCase.model_dump(by_alias=True, exclude_none=True), one a line (camelCase),
//                  by confident-ai/deepeval deepeval/test_case/llm_test_case.py (DeepEval is Python only)
//   llamaindex-dataset  Python llama-index-core's EmbeddingQAFinetuneDataset.save_json (RetrieverEvaluator's
//                  gold set), by llama_index/core/llama_dataset/legacy/embedding.py, beside a TREC run
//
// The node ids are UUID-shaped but seeded (sha256 of the chunk), so the files are the same bytes on every run.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EngineResponse, TextNode } from '@llamaindex/core/schema';

const REPO = path.resolve(import.meta.dirname, '..');
const OUT = path.resolve(process.argv[2] ?? path.join(REPO, 'test', 'fixtures', 'shapes'));

/** The documents: the team's doc id, its file, its one chunk of text. */
const DOCS = {
  'doc-retention': ['retention.md', 'Logs are retained for 30 days, then deleted.'],
  'doc-limits': ['limits.md', 'Each export is limited to 2 GB per file.'],
  'doc-sso': ['sso.md', 'Single sign-on supports SAML 2.0 and OIDC.'],
  'doc-regions': ['regions.md', 'Customer data is stored in eu-west-1 or us-east-1.'],
  'doc-billing': ['billing.md', 'Invoices are issued on the first day of each month.'],
  'doc-api': ['api.md', 'The public API allows 100 requests per minute per token.'],
  'doc-backup': ['backup.md', 'Backups run every 6 hours and are kept for 14 days.'],
  'doc-audit': ['audit.md', 'Audit events can be exported as JSON Lines.'],
};

/**
 * The questions: id, text, the gold fact (a substring a right answer holds; none when unanswerable), the
 * gold documents, what the retriever returned (best first, with scores), and the answer.
 */
const ITEMS = [
  [
    'q01',
    'How long are logs retained?',
    '30 days',
    ['doc-retention'],
    ['doc-retention', 'doc-backup', 'doc-audit'],
    'Logs are kept for 30 days before deletion.',
  ],
  [
    'q02',
    'How large can an export be?',
    '2 GB',
    ['doc-limits'],
    ['doc-limits', 'doc-audit', 'doc-api'],
    'An export can be at most 2 GB per file.',
  ],
  [
    'q03',
    'Which SSO protocols are supported?',
    'SAML 2.0 and OIDC',
    ['doc-sso'],
    ['doc-sso', 'doc-api', 'doc-regions'],
    'SSO works with SAML 2.0 and OIDC.',
  ],
  [
    'q04',
    'Where is customer data stored?',
    'eu-west-1',
    ['doc-regions'],
    ['doc-backup', 'doc-regions', 'doc-retention'],
    'Customer data stays in eu-west-1 or us-east-1.',
  ],
  [
    'q05',
    'When are invoices issued?',
    'first day of each month',
    ['doc-billing'],
    ['doc-api', 'doc-audit', 'doc-sso'],
    'Invoices are sent at the end of each quarter.',
  ],
  [
    'q06',
    'What is the API rate limit?',
    '100 requests per minute',
    ['doc-api'],
    ['doc-api', 'doc-limits', 'doc-billing'],
    'The API allows 100 requests per minute per token.',
  ],
  [
    'q07',
    'How often do backups run?',
    'every 6 hours',
    ['doc-backup'],
    ['doc-backup', 'doc-retention', 'doc-regions'],
    'Backups run every 6 hours.',
  ],
  [
    'q08',
    'In which format can audit events be exported?',
    'JSON Lines',
    ['doc-audit'],
    ['doc-limits', 'doc-audit', 'doc-api'],
    'They can be exported as CSV.',
  ],
  [
    'q09',
    'Who is the CEO of the company?',
    null,
    [],
    ['doc-billing', 'doc-sso', 'doc-api'],
    'The answer is not in context.',
  ],
  [
    'q10',
    'Does the product run on Windows 95?',
    null,
    [],
    ['doc-regions', 'doc-limits', 'doc-backup'],
    'Paris has 30 days of logs on Windows 95.',
  ],
].map(([qid, question, fact, gold, retrieved, answer]) => ({ qid, question, fact, gold, retrieved, answer }));

/** A UUID-shaped id from a seed, as a vector store's node ids look: the same on every run. */
function uuidOf(seed) {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const score = (rank) => Number((0.9 - rank * 0.12).toFixed(2));
const jsonl = (rows) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function write(shape, files) {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(OUT, shape, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/** The gold set in groundgate's own shape: substring facts and the gold documents' ids. */
const canonicalGold = () =>
  jsonl(
    ITEMS.map((i) => ({
      qid: i.qid,
      question: i.question,
      answerable: i.fact !== null,
      gold_claim_substr: i.fact === null ? [] : [i.fact],
      gold_citations: i.gold,
    })),
  );

/** Traces in groundgate's own shape: the retrieved documents are also what the answer was made from. */
const canonicalTraces = (ids = (i) => i.retrieved) =>
  jsonl(
    ITEMS.map((i) => ({
      qid: i.qid,
      q: i.question,
      retrieved_ids: ids(i),
      answer_json: { claim: i.answer, citations: ids(i) },
    })),
  );

/** Trivial gates: the comparison is of every metric and count, not of a verdict. */
const canonicalGates = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    gates:
      coverage: ">= 0"
`;

// --- LlamaIndex -------------------------------------------------------------------------------------------

/** The chunk of a document as the index made it: its node id is the index's, the team's id in metadata. */
const nodeOf = (doc) => {
  const [file, text] = DOCS[doc];
  return new TextNode({
    id_: uuidOf(`node:${doc}`),
    text,
    metadata: { doc_id: doc, file_name: file },
  });
};

function llamaindexTs() {
  const lines = ITEMS.map((i) => {
    const response = EngineResponse.fromResponse(
      i.answer,
      false,
      i.retrieved.map((doc, rank) => ({ node: nodeOf(doc), score: score(rank) })),
    );
    // As a TypeScript app logs it: its own query id and text beside the response, stringified.
    return JSON.stringify({ query_id: i.qid, query: i.question, ...JSON.parse(JSON.stringify(response)) });
  });
  write('llamaindex-ts', {
    'project/eval/gold.jsonl': canonicalGold(),
    'project/eval/responses.jsonl': lines.join('\n') + '\n',
    'canonical/gold.jsonl': canonicalGold(),
    'canonical/traces.jsonl': canonicalTraces(),
    'canonical/gates.yaml': canonicalGates,
  });
}

/** NodeWithScore.dict() of llama-index-core: every field of a TextNode, and each model's class_name. */
function pyNode(doc, rank) {
  const [file, text] = DOCS[doc];
  return {
    node: {
      id_: uuidOf(`node:${doc}`),
      embedding: null,
      metadata: { doc_id: doc, file_name: file },
      excluded_embed_metadata_keys: [],
      excluded_llm_metadata_keys: [],
      relationships: {},
      text,
      mimetype: 'text/plain',
      start_char_idx: 0,
      end_char_idx: text.length,
      text_template: '{metadata_str}\n\n{content}',
      metadata_template: '{key}: {value}',
      metadata_seperator: '\n',
      class_name: 'TextNode',
    },
    score: score(rank),
    class_name: 'NodeWithScore',
  };
}

function llamaindexPy() {
  const lines = ITEMS.map((i) => {
    const nodes = i.retrieved.map(pyNode);
    // Response.metadata: each source node's metadata by its node id (what the query engine fills in).
    const metadata = Object.fromEntries(nodes.map((n) => [n.node.id_, n.node.metadata]));
    return { query_id: i.qid, response: i.answer, source_nodes: nodes, metadata };
  });
  write('llamaindex-py', {
    'project/eval/gold.jsonl': canonicalGold(),
    'project/eval/responses.jsonl': jsonl(lines),
    'canonical/gold.jsonl': canonicalGold(),
    'canonical/traces.jsonl': canonicalTraces(),
    'canonical/gates.yaml': canonicalGates,
  });
}

// --- RAGAS and DeepEval: plain texts, ids by content ------------------------------------------------------

/** The id content_id gives a text (docs/formats.md): sha256 of NFC, white space runs as one space, trimmed. */
const textId = (text) =>
  createHash('sha256').update(text.normalize('NFC').replace(/\s+/gu, ' ').trim(), 'utf8').digest('hex');
const textOf = (doc) => DOCS[doc][1];
/** The reference answer a dataset keeps: the gold document's sentence, or the words for no answer. */
const referenceOf = (i) => (i.fact === null ? 'The documents do not answer this.' : textOf(i.gold[0]));

/** The canonical form of a dataset with no ids: each question and text made its content id by hand. */
function canonicalByContent() {
  const gold = ITEMS.map((i) => ({
    qid: textId(i.question),
    question: i.question,
    answerable: i.fact !== null,
    gold_claim_substr: [referenceOf(i)],
    gold_citations: i.gold.map((d) => textId(textOf(d))),
  }));
  const traces = (latency) =>
    ITEMS.map((i, n) => ({
      qid: textId(i.question),
      q: i.question,
      retrieved_ids: i.retrieved.map((d) => textId(textOf(d))),
      answer_json: {
        claim: i.answer,
        citations: i.retrieved.map((d) => textId(textOf(d))),
      },
      ...(latency ? { latency_ms: latency(n) } : {}),
    }));
  return { gold: jsonl(gold), traces };
}

/** The claim rule init proposes for whole reference answers, stated in canonical/ as a user would write it. */
const claimsGates = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    claims:
      match: normalized
      min_token_recall: 0.5
    gates:
      coverage: ">= 0"
`;

function ragas() {
  const samples = ITEMS.map((i) => ({
    user_input: i.question,
    retrieved_contexts: i.retrieved.map(textOf),
    reference_contexts: i.gold.map(textOf),
    response: i.answer,
    reference: referenceOf(i),
  }));
  const c = canonicalByContent();
  write('ragas', {
    'project/eval/ragas_dataset.jsonl': jsonl(samples),
    'canonical/gold.jsonl': c.gold,
    'canonical/traces.jsonl': jsonl(c.traces()),
    'canonical/gates.yaml': claimsGates,
  });
}

/** Seconds each answer took, as DeepEval's completion_time holds them. */
const seconds = (n) => Number((0.8 + n * 0.15).toFixed(2));

function deepeval() {
  const cases = ITEMS.map((i, n) => ({
    input: i.question,
    actualOutput: i.answer,
    expectedOutput: referenceOf(i),
    context: i.gold.map(textOf),
    retrievalContext: i.retrieved.map(textOf),
    completionTime: seconds(n),
  }));
  const c = canonicalByContent();
  write('deepeval', {
    'project/tests/deepeval_cases.jsonl': jsonl(cases),
    'canonical/gold.jsonl': c.gold,
    // By hand: 0.8 s is 800 ms, 0.95 s 950 ms, …
    'canonical/traces.jsonl': jsonl(c.traces((n) => Math.round(seconds(n) * 1000))),
    'canonical/gates.yaml': claimsGates,
  });
}

// --- LlamaIndex's retrieval dataset -------------------------------------------------------------------------

/**
 * EmbeddingQAFinetuneDataset.save_json: json.dump(model_dump(), indent=4) of {queries, corpus, relevant_docs,
 * mode} (llama-index-core/llama_index/core/llama_dataset/legacy/embedding.py), qids and doc ids UUIDs as
 * generate_question_context_pairs makes them (uuid4 and node ids), with the answerable questions; beside it
 * a TREC run of a BM25 retriever over the same nodes. Canonical: the same judgments as TREC qrels.
 */
function llamaindexDataset() {
  const node = (doc) => uuidOf(`dataset-node:${doc}`);
  const items = ITEMS.filter((i) => i.gold.length).map((i) => ({
    ...i,
    id: uuidOf(`dataset-query:${i.qid}`),
  }));
  const dataset = {
    queries: Object.fromEntries(items.map((i) => [i.id, i.question])),
    corpus: Object.fromEntries(Object.entries(DOCS).map(([doc, [, text]]) => [node(doc), text])),
    relevant_docs: Object.fromEntries(items.map((i) => [i.id, i.gold.map(node)])),
    mode: 'text',
  };
  const run = items
    .flatMap((i) => i.retrieved.map((doc, r) => `${i.id} Q0 ${node(doc)} ${r + 1} ${score(r)} bm25`))
    .join('\n');
  const qrels = items.flatMap((i) => i.gold.map((doc) => `${i.id} 0 ${node(doc)} 1`)).join('\n');
  write('llamaindex-dataset', {
    'project/eval/qa_dataset.json': JSON.stringify(dataset, null, 4),
    'project/runs/bm25.run': `${run}\n`,
    'canonical/qrels.txt': `${qrels}\n`,
    'canonical/runs/bm25.run': `${run}\n`,
    'canonical/gates.yaml': `version: 1
suites:
  retrieval:
    kind: ranking
    qrels: qrels.txt
    run: runs/bm25.run
    gates:
      ndcg@10: ">= 0"
      recall@10: ">= 0"
      mrr: ">= 0"
`,
  });
}

// What the script writes, anew; each folder's README.md is written by hand and kept.
for (const shape of ['llamaindex-ts', 'llamaindex-py', 'ragas', 'deepeval', 'llamaindex-dataset'])
  for (const part of ['project', 'canonical'])
    rmSync(path.join(OUT, shape, part), { recursive: true, force: true });
llamaindexTs();
llamaindexPy();
ragas();
deepeval();
llamaindexDataset();
