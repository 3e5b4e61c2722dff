// npm run fixtures:otel-shapes: writes test/fixtures/shapes/openinference-otlp/ (see its README.md).
//
// The shape's project/ is what a team tracing a LangChain RAG chain with OpenInference keeps: the gold set and
// the OTLP/JSON export, nothing else. Its export is the first RUNS lines of test/fixtures/openinference/
// langchain.otlp.jsonl (made with the real libraries by scripts/openinference-fixtures.mjs), its gold set the
// items of gold/qa.gold.jsonl those runs answer. canonical/ holds the same runs as runs/qa.trace.jsonl writes
// them (the runs the export was made from) beside the same gold set.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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

const out = path.join(REPO, 'test', 'fixtures', 'shapes', 'openinference-otlp');
const write = (file, text) => {
  mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
  writeFileSync(path.join(out, file), text);
};
rmSync(path.join(out, 'project'), { recursive: true, force: true });
rmSync(path.join(out, 'canonical'), { recursive: true, force: true });
write('project/gold/qa.gold.jsonl', gold.join('\n') + '\n');
write('project/traces/qa.otlp.jsonl', spans.join('\n') + '\n');
write('canonical/gold/qa.gold.jsonl', gold.join('\n') + '\n');
write('canonical/runs/qa.trace.jsonl', runs.join('\n') + '\n');
write(
  'canonical/gates.yaml',
  `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold/qa.gold.jsonl
    traces: runs/qa.trace.jsonl
    scu: true
    gates:
      coverage: '>= 0'
`,
);
