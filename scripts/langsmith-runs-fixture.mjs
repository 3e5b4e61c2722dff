// Writes test/fixtures/langsmith/runs.jsonl: LangSmith runs made by the langsmith package's own RunTree
// (0.12.0, installed with @langchain/core 1.4.0), offline (tracingEnabled: false: nothing is posted), one
// JSON line per run as RunTree.toJSON() gives it, children listed flat as a run export lists them (the
// nested child_runs left out). Two questions, each a root chain run naming its dataset example
// (reference_example_id) with a retriever run (RetrieverOutput documents) and an llm run. Ids and times
// are fixed, so the file is byte-identical on every run.
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { RunTree } from 'langsmith/run_trees';

const out = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'langsmith');
const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const id = (q, n) => `01a24f28-0000-7000-8000-00000000${q}00${n}`;
const lines = [];
for (const q of [1, 2]) {
  const at = (ms) => T0 + q * 60_000 + ms;
  const root = new RunTree({
    id: id(q, 0),
    name: 'RAG',
    run_type: 'chain',
    inputs: { question: `What does doc ${q} say?` },
    reference_example_id: `0190aaaa-0000-7000-8000-00000000000${q}`,
    start_time: at(0),
    tracingEnabled: false,
    project_name: 'rag-eval',
  });
  const retriever = root.createChild({
    id: id(q, 1),
    name: 'VectorStoreRetriever',
    run_type: 'retriever',
    inputs: { query: `What does doc ${q} say?` },
    start_time: at(5),
  });
  await retriever.end(
    {
      documents: [
        {
          page_content: `Doc ${q} says ${q * 7}.`,
          type: 'Document',
          metadata: { source: `doc-${q}.md`, doc_id: `doc-${q}` },
        },
        { page_content: 'Unrelated.', type: 'Document', metadata: { source: 'doc-9.md', doc_id: 'doc-9' } },
      ],
    },
    undefined,
    at(120),
  );
  const llm = root.createChild({
    id: id(q, 2),
    name: 'ChatOpenAI',
    run_type: 'llm',
    inputs: { messages: [[{ role: 'user', content: `What does doc ${q} say?` }]] },
    start_time: at(125),
  });
  await llm.end({ generations: [[{ text: `It says ${q * 7} [doc-${q}].` }]] }, undefined, at(900));
  await root.end({ answer: `It says ${q * 7} [doc-${q}].` }, undefined, at(910));
  for (const run of [root, retriever, llm]) {
    const flat = run.toJSON();
    delete flat.child_runs;
    lines.push(JSON.stringify(flat));
  }
}
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'runs.jsonl'), `${lines.join('\n')}\n`);
