// Cross-checks groundgate's ranking measures against a trec_eval binary, value by value, on seeded random
// qrels and runs: graded judgments (0-3, a few negative), score ties, non-ASCII docids, runs shorter than
// 10, qrels-only and run-only queries, and queries whose lines come back after their block ended.
//
//   npm run compile && TREC_EVAL=/path/to/trec_eval node scripts/trec-eval-compare.mjs [--queries N] [--seed S]
//   ... node scripts/trec-eval-compare.mjs --fixture DIR   (writes a small case and trec_eval's -q output)
//
// groundgate is imported from lib/, which `npm run compile` (tsc only) compiles from src/. trec_eval is never
// downloaded or built here: without TREC_EVAL the script says so and exits 0. Each groundgate value is
// printed as trec_eval prints (printf "%6.4f", glibc rounding) and compared as text. Exit status: 0 when
// every value matches, 1 on any difference, 2 when trec_eval cannot be run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const binary = process.env.TREC_EVAL;
if (!binary) {
  console.log('skipped: set TREC_EVAL=/path/to/trec_eval');
  process.exit(0);
}

let groundgate;
try {
  groundgate = {
    ...(await import('../lib/suites/ranking/evaluate.js')),
    ...(await import('../lib/suites/ranking/metrics.js')),
    ...(await import('../lib/metrics/ir.js')),
  };
} catch (err) {
  console.error(`cannot load groundgate from lib/ (run npm run compile first): ${err.message}`);
  process.exit(2);
}

const { values: args } = parseArgs({
  options: {
    queries: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '20260617' },
    fixture: { type: 'string' },
  },
});

/** mulberry32, as src/metrics/seeded.ts (a script runs without the TypeScript build): the same data on every machine. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Byte order and code-unit order disagree on these (é is 2 bytes, the emoji a surrogate pair in UTF-16).
const ODD_DOCIDS = ['dé', 'd😀', 'd\uffe0', 'D', 'd-10', 'd10', 'd9'];
const TIED_SCORES = [0, 1, 2, 2.5, 3, -1];

/**
 * qrels and a run for `n` judged queries. About 15% of them have no run lines (qrels-only), some runs are
 * shorter than 10, half the queries draw scores from a handful of values so that ties are common, and 5% of
 * the run's queries are split in two blocks far apart.
 */
function generate(n, seed) {
  const rnd = seeded(seed);
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const grades = [0, 0, 0, 1, 1, 2, 3, -1];
  const qids = [];
  for (let i = 0; qids.length < n; i++) {
    const qid = rnd() < 0.8 ? String(100 + i) : `q${i}`;
    qids.push(qid);
  }
  const pool = Array.from({ length: 60 }, (_, i) => `d${i}`);
  // Often enough that two of them tie near the top of a ranking.
  const docid = () => (rnd() < 0.25 ? pick(ODD_DOCIDS) : pick(pool));
  const qrels = [];
  const blocks = [];
  for (const qid of qids) {
    const judged = new Map();
    const count = int(1, 25);
    while (judged.size < count) judged.set(docid(), pick(grades));
    // trec_eval dies when the first query it reads has only negative grades; keep one judged ≥ 0.
    if ([...judged.values()].every((g) => g < 0)) judged.set(docid(), 0);
    for (const [docid, rel] of judged) qrels.push({ qid, docid, rel });
    if (rnd() < 0.15) continue;

    const length = rnd() < 0.3 ? int(1, 9) : int(10, 40);
    const docs = new Set();
    while (docs.size < length) docs.add(rnd() < 0.7 ? docid() : `u${int(0, 19)}`);
    const tied = rnd() < 0.5;
    const lines = [...docs].map((docid) => ({
      qid,
      docid,
      score: tied ? pick(TIED_SCORES) : Math.round((rnd() * 40 - 20) * 1000) / 1000,
    }));
    if (rnd() < 0.05 && lines.length > 1) {
      const cut = int(1, lines.length - 1);
      blocks.push(lines.slice(0, cut), lines.slice(cut));
    } else {
      blocks.push(lines);
    }
  }
  for (let i = 0; i < Math.ceil(n / 50); i++) {
    blocks.push([{ qid: `runonly${i}`, docid: 'd1', score: 1 }]);
  }
  for (let i = blocks.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [blocks[i], blocks[j]] = [blocks[j], blocks[i]];
  }
  return { qrels, run: blocks.flat() };
}

const trecQrels = (qrels) => qrels.map((j) => `${j.qid} 0 ${j.docid} ${j.rel}\n`).join('');
const trecRun = (run) => run.map((r, i) => `${r.qid} Q0 ${r.docid} ${i + 1} ${r.score} gg\n`).join('');
const jsonl = (rows) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

/** `-m` arguments for groundgate metric names: trec_eval wants one `-m` per measure with all its cutoffs. */
function measureArgs(requests) {
  const byName = new Map();
  for (const r of requests) {
    const base = r.measure.trecName.replace('_{k}', '');
    if (!byName.has(base)) byName.set(base, []);
    if (r.measure.trecName.includes('{k}')) byName.get(base).push(r.k);
  }
  return [...byName].flatMap(([base, ks]) => ['-m', ks.length ? `${base}.${ks.join(',')}` : base]);
}

const trecName = (r) => r.measure.trecName.replace('{k}', String(r.k));

function runTrecEval(flags, requests, qrelsFile, runFile, cwd = undefined) {
  const argv = ['-q', ...flags, ...measureArgs(requests), '-m', 'num_q', qrelsFile, runFile];
  const r = spawnSync(binary, argv, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error || r.status !== 0) {
    console.error(`${binary} ${argv.join(' ')} failed: ${r.error?.message ?? `exit ${r.status}`}`);
    console.error(r.stderr.trim());
    process.exit(2);
  }
  return { argv, stdout: r.stdout };
}

/** trec_eval's lines as `name\tqid` → printed value. */
function parseTrecEval(stdout) {
  const values = new Map();
  for (const line of stdout.split('\n')) {
    if (!line) continue;
    const [name, qid, value] = line.split('\t');
    values.set(`${name.trim()}\t${qid}`, value);
  }
  return values;
}

async function compare(label, { flags, names, level, complete, qrelsFile, runFile, ours }) {
  const requests = names.map((name) => groundgate.measureRequest(name, 10));
  const expected = parseTrecEval(runTrecEval(flags, requests, qrelsFile, runFile).stdout);
  const started = performance.now();
  const result = await groundgate.evaluateRanking({
    qrels: [ours?.qrels ?? qrelsFile],
    run: [ours?.run ?? runFile],
    relevanceLevel: level,
    complete,
    measures: requests,
    offender: { index: 0, k: 10 },
  });
  const elapsed = performance.now() - started;

  const actual = new Map();
  for (const q of result.queries) {
    requests.forEach((r, i) => actual.set(`${trecName(r)}\t${q.qid}`, groundgate.printf4(q.values[i])));
  }
  requests.forEach((r, i) => actual.set(`${trecName(r)}\tall`, groundgate.printf4(result.means[i])));
  actual.set('num_q\tall', String(result.queries.length));

  const differences = [];
  for (const [key, value] of expected) {
    if (actual.get(key) !== value)
      differences.push(`${key}: trec_eval ${value}, groundgate ${actual.get(key)}`);
  }
  // trec_eval 9.0.8 does not print the queries -c scores 0; everything else it must have printed.
  const zeroed = new Set(result.zeroed);
  for (const key of actual.keys()) {
    if (!expected.has(key) && !zeroed.has(key.split('\t')[1]))
      differences.push(`${key}: not printed by trec_eval`);
  }
  console.log(
    `trec_eval parity (${label}): ${result.queries.length} queries × ${requests.length} measures, ${differences.length} differences (groundgate ${elapsed.toFixed(0)} ms)`,
  );
  for (const d of differences.slice(0, 10)) console.log(`  ${d}`);
  return { differences: differences.length, values: expected.size };
}

const SIX = ['map', 'P@5', 'P@10', 'recall@10', 'ndcg@10', 'mrr'];
const ALL = [
  'map',
  'map@10',
  'P@5',
  'P@10',
  'recall@5',
  'recall@10',
  'success@1',
  'success@5',
  'success@10',
  'ndcg@5',
  'ndcg@10',
  'ndcg',
  'mrr',
  'r-prec',
];

const version = spawnSync(binary, ['-v'], { encoding: 'utf8' });
if (version.error) {
  console.error(`cannot run ${binary}: ${version.error.message}`);
  process.exit(2);
}

if (args.fixture) {
  const dir = args.fixture;
  const { qrels, run } = generate(50, Number(args.seed));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'small.qrels'), trecQrels(qrels));
  writeFileSync(path.join(dir, 'small.run'), trecRun(run));
  const requests = ALL.map((name) => groundgate.measureRequest(name, 10));
  const { argv, stdout } = runTrecEval(['-c'], requests, 'small.qrels', 'small.run', dir);
  writeFileSync(path.join(dir, 'expected.trec_eval.txt'), stdout);
  console.log(`wrote ${dir}: trec_eval ${argv.join(' ')}`);
  process.exit(0);
}

const started = performance.now();
const n = Number(args.queries);
const { qrels, run } = generate(n, Number(args.seed));
const dir = mkdtempSync(path.join(tmpdir(), 'groundgate-trec-'));
const file = (name, text) => {
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
const inRun = new Set(run.map((r) => r.qid));
const files = {
  qrels: file('all.qrels', trecQrels(qrels)),
  covered: file('covered.qrels', trecQrels(qrels.filter((j) => inRun.has(j.qid)))),
  run: file('all.run', trecRun(run)),
  qrelsJsonl: file('all.qrels.jsonl', jsonl(qrels)),
  runJsonl: file('all.run.jsonl', jsonl(run)),
};
console.log(`${binary}: ${version.stderr.trim() || version.stdout.trim()}`);
console.log(
  `${n} qrels queries (${n - [...new Set(qrels.map((j) => j.qid))].filter((q) => inRun.has(q)).length} not in the run), ${qrels.length} judgments, ${run.length} run lines`,
);

const base = { qrelsFile: files.qrels, runFile: files.run, level: 1, complete: true };
const outcomes = [
  await compare('-q -c', { ...base, flags: ['-c'], names: SIX }),
  await compare('-q, every qrels query in the run', {
    ...base,
    qrelsFile: files.covered,
    complete: false,
    flags: [],
    names: SIX,
  }),
  await compare('-q -c -l 2, all measures', { ...base, level: 2, flags: ['-c', '-l', '2'], names: ALL }),
  await compare('-q -c, groundgate reading JSONL', {
    ...base,
    flags: ['-c'],
    names: SIX,
    ours: { qrels: files.qrelsJsonl, run: files.runJsonl },
  }),
];
rmSync(dir, { recursive: true });

const differences = outcomes.reduce((sum, o) => sum + o.differences, 0);
const values = outcomes.reduce((sum, o) => sum + o.values, 0);
console.log(
  `${outcomes.length} cases, ${values} printed values compared, ${differences} differences in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(differences === 0 ? 0 : 1);
