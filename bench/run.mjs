// `npm run bench`: times the bundled groundgate (dist/) against physical floors and peers on seeded
// synthetic workloads, all generated into a temporary folder and deleted afterwards.
//
//   npm run bundle && npm run bench                      every workload at BENCH_SCALE (default 1)
//   npm run bench -- --sizes 0.25,0.5,1                  the linearity table: each workload at each size
//                                                        (sizes are multiples of BENCH_SCALE)
//   npm run bench -- --only ranking,cold-start           some workloads only
//   npm run bench -- --only formats --vs /tmp/dist-old   new bundle against an older one (a copy of its dist/)
//
// Environment: BENCH_RUNS (timed runs per command, default 3; the median is printed), BENCH_PEER_RUNS
// (runs of a peer such as trec_eval, default 1: it takes minutes at 1×), BENCH_SCALE (default 1),
// BENCH_KEEP=1 (keep the generated files), TREC_EVAL=/path/to/trec_eval (the ranking peer),
// BENCH_NODE=/path/to/node (the Node.js that runs groundgate and the floors; default: the one running this,
// e.g. a Node 24 binary to time the Action as GitHub's runners start it, with `runs.using: node24`).
//
// Every command runs as a child process, groundgate and floors alike, so both pay process start. Each
// workload prints one JSON line on stdout; progress goes to stderr. Ratios are ours ÷ theirs: below 1 is
// faster. The cold-start lines also give the main thread's CPU time (median of BENCH_RUNS runs of their
// own; Node 23.9 and later, null before). See BENCHMARKS.md for the figures and the machine they came from.
//
// --vs DIR: the grounded-qa and formats workloads also run each command with DIR/cli/index.js, alternated run
// by run with this dist/'s (BENCH_RUNS pairs). Their lines add vs_old_wall and vs_old_rss (new ÷ old, of the
// medians); each run's report.json must be byte-identical to the old bundle's, else the bench names the
// workloads that differ and exits 1.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  generateAgentRetrieval,
  generateContext,
  generateFormats,
  generateGroundedQa,
  generateRanking,
} from './generate.mjs';
import { measure, median, rssMethod } from './measure.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FLOORS = path.join(REPO, 'bench', 'floors');
const NODE = process.env.BENCH_NODE || process.execPath;

const WORKLOADS = [
  'grounded-qa',
  'ranking',
  'context',
  'agent-retrieval',
  'formats',
  'merge',
  'cold-start',
  'dist-size',
];
/** Workloads whose input grows with the scale (the others are measured once, on fixed inputs). */
const SCALED = new Set(['grounded-qa', 'ranking', 'context', 'agent-retrieval', 'formats', 'merge']);

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string' },
    only: { type: 'string' },
    vs: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  const header = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport ')[0];
  process.stdout.write(header.replace(/^\/\/ ?/gm, '') + '\n');
  process.exit(0);
}

const positive = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) fail(`${name}=${process.env[name]}: expected a positive number`);
  return value;
};
const RUNS = Math.round(positive('BENCH_RUNS', 3));
const PEER_RUNS = Math.round(positive('BENCH_PEER_RUNS', 1));
const SCALE = positive('BENCH_SCALE', 1);
const KEEP = process.env.BENCH_KEEP === '1';
const TREC_EVAL = process.env.TREC_EVAL || undefined;
const nodeProbe = spawnSync(NODE, ['--version'], { encoding: 'utf8' });
if (nodeProbe.status !== 0)
  fail(`BENCH_NODE=${NODE}: does not run (${nodeProbe.error?.message ?? nodeProbe.stderr})`);
const NODE_VERSION = nodeProbe.stdout.trim();

const sizes = args.sizes ? args.sizes.split(',').map((s) => Number(s) * SCALE) : [SCALE];
if (sizes.some((s) => !(s > 0))) fail(`--sizes ${args.sizes}: expected positive numbers such as 0.25,0.5,1`);
const only = args.only ? args.only.split(',') : WORKLOADS;
for (const w of only)
  if (!WORKLOADS.includes(w)) fail(`--only ${w}: expected some of ${WORKLOADS.join(', ')}`);
if (!existsSync(path.join(REPO, 'dist', 'cli', 'index.js')))
  fail('dist/cli/index.js not found: run npm run bundle first');
if (args.vs !== undefined && !existsSync(path.join(args.vs, 'cli', 'index.js')))
  fail(`--vs ${args.vs}: no cli/index.js in it; expected a copy of an older dist/`);

const root = mkdtempSync(path.join(os.tmpdir(), 'groundgate-bench-'));
// The bundles are copied first, so that a rebuild of dist/ during the run cannot mix two builds.
const DIST = path.join(root, 'dist');
cpSync(path.join(REPO, 'dist'), DIST, { recursive: true });
const CLI = path.join(DIST, 'cli', 'index.js');
// The older bundle of --vs, copied likewise.
const OLD_CLI = args.vs && path.join(root, 'dist-old', 'cli', 'index.js');
if (args.vs) cpSync(args.vs, path.dirname(path.dirname(OLD_CLI)), { recursive: true });
const ACTION = path.join(DIST, 'index.js');
const cleanup = () => {
  if (KEEP) log(`kept the generated files in ${root}`);
  else rmSync(root, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

function log(message) {
  process.stderr.write(`bench: ${message}\n`);
}

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

const round = (x, digits) => (x === null || x === undefined ? null : Number(x.toFixed(digits)));
const mb = (bytes) => round(bytes / (1024 * 1024), 1);

function emit(line) {
  process.stdout.write(JSON.stringify(line) + '\n');
}

// ---------------------------------------------------------------------------------------------------------

/**
 * Times `ours` against `floor`, `peer` and `old` (each {args, cwd, env} for a command, or undefined): RUNS
 * runs of ours, of the old bundle's twin and of the floor, interleaved so that a change in the machine's load
 * hits them alike, and PEER_RUNS of the peer. Returns the medians and the runs themselves (for output checks).
 */
async function race({ ours, floor, peer, old }) {
  const runs = { ours: [], floor: [], peer: [], old: [] };
  const one = async (spec, list, what) => {
    const r = await measure(spec.command ?? NODE, spec.args, { cwd: spec.cwd, env: spec.env });
    if (!(spec.ok ?? [0]).includes(r.code)) {
      const command = [spec.command ?? 'node', ...spec.args].join(' ');
      throw new Error(`${what} exited with ${r.code}: ${command}\n${r.stderr}${r.stdout.slice(-2000)}`);
    }
    list.push(r);
  };
  for (let i = 0; i < Math.max(RUNS, peer ? PEER_RUNS : 0); i++) {
    if (i < RUNS) await one(ours, runs.ours, 'groundgate');
    if (old && i < RUNS) await one(old, runs.old, 'the old bundle');
    if (floor && i < RUNS) await one(floor, runs.floor, 'the floor');
    if (peer && i < PEER_RUNS) await one(peer, runs.peer, 'the peer');
  }
  const wall = (list) => median(list.map((r) => r.wall_s));
  const rss = (list) => median(list.map((r) => r.rss_mb));
  return {
    runs,
    ours_s: wall(runs.ours),
    floor_s: floor ? wall(runs.floor) : null,
    peer_s: peer ? wall(runs.peer) : null,
    peak_rss_mb: rss(runs.ours),
    floor_rss_mb: floor ? rss(runs.floor) : null,
    peer_rss_mb: peer ? rss(runs.peer) : null,
    old_s: old ? wall(runs.old) : null,
    old_rss_mb: old ? rss(runs.old) : null,
  };
}

/** Workloads whose report.json differs from the old bundle's (--vs). */
const differFromOld = [];

/** `spec` run with the old bundle (--vs), its report written beside the new one's as NAME.old.json. */
function oldTwin(spec) {
  if (!OLD_CLI) return undefined;
  return {
    ...spec,
    args: spec.args.map((a, i) =>
      a === CLI ? OLD_CLI : spec.args[i - 1] === '--report' ? a.replace(/\.json$/, '.old.json') : a,
    ),
  };
}

/**
 * With --vs: the new bundle ÷ the old on the medians of a race with `old: oldTwin(spec)`, and whether the two
 * report.json files are byte-identical (a difference is logged, with its first differing line, and recorded).
 */
function vsOld(workload, spec, r) {
  if (!OLD_CLI) return {};
  const at = (args) => path.resolve(spec.cwd ?? '.', args[args.indexOf('--report') + 1]);
  const [ours, old] = [readFileSync(at(spec.args)), readFileSync(at(oldTwin(spec).args))];
  const identical = ours.equals(old);
  if (!identical) {
    differFromOld.push(workload);
    const [a, b] = [ours, old].map((bytes) => bytes.toString('utf8').split('\n'));
    const line = a.findIndex((l, i) => l !== b[i]);
    log(`${workload}: report.json differs from the old bundle's at line ${line + 1}:`);
    log(`  new: ${(a[line] ?? '(end of file)').slice(0, 300)}`);
    log(`  old: ${(b[line] ?? '(end of file)').slice(0, 300)}`);
  }
  return {
    old_s: round(r.old_s, 3),
    vs_old_wall: round(r.ours_s / r.old_s, 2),
    old_rss_mb: round(r.old_rss_mb, 1),
    vs_old_rss: round(r.peak_rss_mb / r.old_rss_mb, 2),
    report_identical_to_old: identical,
  };
}

/** The JSON line of a workload: the fields every workload has, then its own. */
function result(workload, r, fields) {
  const ratio = (a, b) => (a === null || b === null || b === 0 ? null : round(a / b, 2));
  return {
    workload,
    ours_s: round(r.ours_s, 3),
    floor_s: round(r.floor_s, 3),
    ratio_vs_floor: ratio(r.ours_s, r.floor_s),
    peer_s: round(r.peer_s, 3),
    ratio_vs_peer: ratio(r.ours_s, r.peer_s),
    peak_rss_mb: round(r.peak_rss_mb, 1),
    items: fields.items,
    ...fields,
    floor_rss_mb: round(r.floor_rss_mb, 1),
    peer_rss_mb: round(r.peer_rss_mb, 1),
    runs: RUNS,
    load_1m: round(os.loadavg()[0], 2),
  };
}

/** groundgate on a generated workload: the bundled CLI, report.json written as the Action always does. */
function groundgate(dir) {
  return {
    args: [CLI, 'check', '-c', path.join(dir, 'gates.yaml'), '--report', path.join(dir, 'report.json')],
    cwd: dir,
    // 1: a gate failed, which is a verdict, not an error.
    ok: [0, 1],
  };
}

const generated = new Map();
/** Generates a workload once per size and invocation; later runs reuse the files. */
function workload(name, scale, make) {
  const key = `${name}@${scale}`;
  if (!generated.has(key)) {
    const dir = path.join(root, `${name}-${scale}`);
    mkdirSync(dir, { recursive: true });
    const started = Date.now();
    const info = make(dir);
    log(
      `generated ${name} ×${scale}: ${mb(info.bytes)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    generated.set(key, { dir, ...info });
  }
  return generated.get(key);
}

// ---------------------------------------------------------------------------------------------------------

async function groundedQa(scale) {
  const w = workload('grounded-qa', scale, (dir) =>
    generateGroundedQa(dir, { items: Math.round(200_000 * scale), lines: Math.round(1_000_000 * scale) }),
  );
  const ours = groundgate(w.dir);
  const r = await race({
    ours,
    floor: { args: [path.join(FLOORS, 'jsonl.mjs'), ...w.files] },
    old: oldTwin(ours),
  });
  return result('grounded-qa', r, {
    items: w.items,
    gold_items: w.gold,
    scale,
    input_mb: mb(w.bytes),
    ...vsOld('grounded-qa', ours, r),
  });
}

/**
 * The grounded-qa workload at half the size (the yardstick) in the other formats groundgate reads:
 * JSON Lines of another shape with `fields:`, OTLP JSON with OpenInference spans, Parquet. Each is timed
 * against the canonical files in the same run, alternated run by run, and must score exactly as they do.
 */
async function formats(scale) {
  const half = scale / 2;
  const w = workload('formats', half, (dir) => {
    const qa = generateGroundedQa(dir, {
      items: Math.round(200_000 * half),
      lines: Math.round(1_000_000 * half),
    });
    return { ...qa, pending: generateFormats(dir) };
  });
  await w.pending;
  const lines = [];
  const canonical = groundgate(w.dir);
  // The JSON formats' files, for their parse floor (see floors/jsonl-threads.mjs); canonical's own first.
  const json = {
    canonical: ['qa.trace.jsonl', 'qa.gold.jsonl'],
    mapped: ['mapped.trace.jsonl', 'mapped.gold.jsonl'],
    listed: ['listed.trace.jsonl', 'mapped.gold.jsonl'],
    marked: ['marked.trace.jsonl', 'qa.gold.jsonl'],
    patterned: ['marked.trace.jsonl', 'qa.gold.jsonl'],
    openinference: ['otlp.trace.jsonl', 'qa.gold.jsonl'],
  };
  const floorOf = (files) => ({ args: [path.join(FLOORS, 'jsonl-threads.mjs'), ...files], cwd: w.dir });
  const parseFloor = (files) => race({ ours: floorOf(files), floor: canonical });
  const canonicalFloor = await parseFloor(json.canonical);
  if (OLD_CLI) {
    // The canonical files themselves, new bundle against old: the yardstick every format is held to.
    const r = await race({ ours: canonical, old: oldTwin(canonical) });
    lines.push({
      workload: 'formats/canonical',
      ours_s: round(r.ours_s, 3),
      peak_rss_mb: round(r.peak_rss_mb, 1),
      ...vsOld('formats/canonical', canonical, r),
      scale: half,
      runs: RUNS,
      load_1m: round(os.loadavg()[0], 2),
    });
  }
  for (const [format, config, limit, floorLimit, metricsMayDiffer] of [
    ['mapped', 'gates-mapped.yaml', 1.5],
    // Ids in lists of objects (`*`): its ratio to its parse floor within 1.15× the canonical run's (#44).
    ['listed', 'gates-listed.yaml', null, 1.15],
    // Citations as markers in the claim (citation_markers), held to the same (#44).
    ['marked', 'gates-marked.yaml', null, 1.15],
    // The same with refusal patterns: every claim through gates.yaml's patterns on RE2 (#54). With --vs an
    // older bundle, vs_old_wall is RE2 against the RegExp engine it used.
    ['patterned', 'gates-patterned.yaml', null, null],
    ['openinference', 'gates-openinference.yaml', 1.5],
    ['parquet', 'gates-parquet.yaml', 2],
    // Not the issue's yardstick: the layout most writers' users get (see generateFormats).
    ['parquet-one-group', 'gates-parquet-one-group.yaml', null],
    // The canonical files, claims matched normalized (#47): within 1.15× the canonical run. A claim the
    // substring rule misses may now match, so its metrics may differ (same_metrics says whether they do).
    ['normalized', 'gates-normalized.yaml', 1.15, undefined, 'may differ'],
  ]) {
    const report = path.join(w.dir, `report-${format}.json`);
    const ours = { args: [CLI, 'check', '-c', config, '--report', report], cwd: w.dir, ok: [0, 1] };
    // A row for a setting the old bundle does not know (claims: normalized) has no old twin to race.
    const r = await race({ ours, floor: canonical, old: metricsMayDiffer ? undefined : oldTwin(ours) });
    const metrics = (file) => JSON.stringify(JSON.parse(readFileSync(file, 'utf8')).suites.qa.metrics);
    const same = metrics(report) === metrics(path.join(w.dir, 'report.json'));
    if (!same && !metricsMayDiffer)
      throw new Error(`formats/${format}: the metrics differ from the canonical run's`);
    // JSON.parse of the format's files on as many threads, against the canonical run in the same turns: how
    // near each run is to its own floor (the canonical files' floor is raced once, above).
    const floor = json[format] ? await parseFloor(json[format]) : undefined;
    // The format's floor against the canonical files' floor in the same turns: with the paired run ratio, the
    // limit's quotient (ours ÷ its floor) ÷ (canonical ÷ its floor) from paired measurements only (a floor
    // raced once, at the start, drifted by a third between runs).
    const floors = floorLimit
      ? await race({ ours: floorOf(json[format]), floor: floorOf(json.canonical) })
      : undefined;
    lines.push({
      workload: `formats/${format}`,
      ours_s: round(r.ours_s, 3),
      canonical_s: round(r.floor_s, 3),
      ratio_vs_canonical: round(r.ours_s / r.floor_s, 2),
      limit,
      peak_rss_mb: round(r.peak_rss_mb, 1),
      canonical_rss_mb: round(r.floor_rss_mb, 1),
      ...(metricsMayDiffer ? {} : vsOld(`formats/${format}`, ours, r)),
      ...(floor && {
        parse_floor_s: round(floor.ours_s, 3),
        parse_floor_vs_canonical: round(floor.ours_s / floor.floor_s, 2),
        ours_vs_parse_floor: round(r.ours_s / floor.ours_s, 2),
        canonical_vs_parse_floor: round(canonicalFloor.floor_s / canonicalFloor.ours_s, 2),
        // Ours ÷ its floor, over the canonical run ÷ its floor: the limit a mapped shape is held to.
        ...(floors && {
          floor_vs_canonical_floor: round(floors.ours_s / floors.floor_s, 2),
          floor_ratio_vs_canonical: round(r.ours_s / r.floor_s / (floors.ours_s / floors.floor_s), 2),
          floor_ratio_limit: floorLimit,
        }),
      }),
      same_metrics: same,
      scale: half,
      runs: RUNS,
      load_1m: round(os.loadavg()[0], 2),
    });
  }
  return lines;
}

/**
 * A sharded run of the grounded-qa workload: its traces dealt to SHARDS shard files in blocks of lines (as
 * matrix jobs would write them, a qid's runs landing in several shards), a partial written for each, then
 * `merge` of all the partials timed against one `check` over the same shard files. The limit: the
 * merge under 10% of the single run. The two report.json files must be byte-identical.
 */
const SHARDS = 64;
async function merge(scale) {
  const w = workload('grounded-qa', scale, (dir) =>
    generateGroundedQa(dir, { items: Math.round(200_000 * scale), lines: Math.round(1_000_000 * scale) }),
  );
  const dir = path.join(w.dir, 'sharded');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'parts'), { recursive: true });
  // A folder of its own (the workspace, when it is no git repository, is the working directory).
  cpSync(path.join(w.dir, 'qa.gold.jsonl'), path.join(dir, 'qa.gold.jsonl'));
  const config = readFileSync(path.join(w.dir, 'gates.yaml'), 'utf8').replace(
    'traces: qa.trace.jsonl',
    'traces: runs/shard-*/trace.jsonl',
  );
  writeFileSync(path.join(dir, 'gates.yaml'), config);
  const text = readFileSync(path.join(w.dir, 'qa.trace.jsonl'));
  const ends = [];
  for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) ends.push(at + 1);
  const shard = (k) => `runs/shard-${String(k).padStart(2, '0')}/trace.jsonl`;
  for (let k = 0; k < SHARDS; k++) {
    const from = k === 0 ? 0 : ends[Math.floor((ends.length * k) / SHARDS) - 1];
    const to = ends[Math.floor((ends.length * (k + 1)) / SHARDS) - 1];
    mkdirSync(path.dirname(path.join(dir, shard(k))), { recursive: true });
    writeFileSync(path.join(dir, shard(k)), text.subarray(from, to));
  }
  log(`writing ${SHARDS} partials …`);
  const partials = [];
  for (let k = 0; k < SHARDS; k++) {
    const part = path.join('parts', `${String(k).padStart(2, '0')}.partial`);
    const r = await measure(NODE, [CLI, 'check', '--input', `qa.traces=${shard(k)}`, '--partial', part], {
      cwd: dir,
    });
    if (r.code !== 0) throw new Error(`check --partial exited with ${r.code}: ${r.stderr}`);
    partials.push({ wall_s: r.wall_s, bytes: statSync(path.join(dir, part)).size });
  }
  const r = await race({
    ours: { args: [CLI, 'merge', 'parts/*.partial', '--report', 'merged.json'], cwd: dir, ok: [0, 1] },
    floor: { args: [CLI, 'check', '--report', 'report.json'], cwd: dir, ok: [0, 1] },
  });
  const same = readFileSync(path.join(dir, 'merged.json')).equals(
    readFileSync(path.join(dir, 'report.json')),
  );
  if (!same) throw new Error('merge: report.json differs from the single run');
  return {
    workload: 'merge',
    shards: SHARDS,
    ours_s: round(r.ours_s, 3),
    single_s: round(r.floor_s, 3),
    ratio_vs_single: round(r.ours_s / r.floor_s, 3),
    limit: 0.1,
    peak_rss_mb: round(r.peak_rss_mb, 1),
    single_rss_mb: round(r.floor_rss_mb, 1),
    report_identical: same,
    partial_s_median: round(median(partials.map((p) => p.wall_s)), 3),
    partials_mb: mb(partials.reduce((a, p) => a + p.bytes, 0)),
    scale,
    runs: RUNS,
    load_1m: round(os.loadavg()[0], 2),
  };
}

const TREC_MEASURES = [
  '-m',
  'map',
  '-m',
  'P.5,10',
  '-m',
  'recall.10',
  '-m',
  'ndcg_cut.10',
  '-m',
  'recip_rank',
];
/** trec_eval's printed name → groundgate's metric name. */
const TREC_NAMES = {
  map: 'map',
  P_5: 'P@5',
  P_10: 'P@10',
  recall_10: 'recall@10',
  ndcg_cut_10: 'ndcg@10',
  recip_rank: 'mrr',
};

/**
 * `x` as C's printf("%.4f") prints it, as src/metrics/ir/printf.ts: toFixed(4), except that an exact tie at
 * the fifth decimal (an odd multiple of 1/32) rounds half to even as glibc does.
 */
function printf4(x) {
  const t = x * 32;
  if (Number.isInteger(t) && t % 2 === 1) {
    const [whole, fraction] = x.toFixed(5).split('.');
    if (Number(fraction[3]) % 2 === 0) return `${whole}.${fraction.slice(0, 4)}`;
  }
  return x.toFixed(4);
}

async function ranking(scale) {
  const w = workload('ranking', scale, (dir) =>
    generateRanking(dir, { queries: Math.round(100_000 * scale) }),
  );
  const [qrels, run] = w.files;
  const peer = TREC_EVAL && { command: TREC_EVAL, args: [...TREC_MEASURES, qrels, run] };
  if (!TREC_EVAL)
    log('ranking: no peer: set TREC_EVAL=/path/to/trec_eval to time trec_eval on the same files');
  const r = await race({
    ours: groundgate(w.dir),
    floor: { args: [path.join(FLOORS, 'lines.mjs'), qrels, run] },
    peer,
  });
  const fields = { items: w.items, queries: w.queries, scale, input_mb: mb(w.bytes) };
  if (peer) {
    const report = JSON.parse(readFileSync(path.join(w.dir, 'report.json'), 'utf8'));
    const metrics = report.suites.ranking.metrics;
    const mismatches = [];
    let compared = 0;
    for (const line of r.runs.peer[0].stdout.split('\n')) {
      const [name, qid, value] = line.trim().split(/\s+/);
      if (qid !== 'all' || !(name in TREC_NAMES)) continue;
      compared++;
      const ours = metrics[TREC_NAMES[name]]?.value;
      const printed = typeof ours === 'number' ? printf4(ours) : String(ours);
      if (printed !== value) mismatches.push(`${name}: trec_eval ${value}, groundgate ${printed}`);
    }
    if (compared !== Object.keys(TREC_NAMES).length)
      mismatches.push(`trec_eval printed ${compared} of 6 measures`);
    for (const m of mismatches) log(`ranking: MISMATCH ${m}`);
    Object.assign(fields, {
      speedup_vs_peer: r.peer_s && round(r.peer_s / r.ours_s, 1),
      values_identical: mismatches.length === 0,
      values_compared: compared,
    });
  }
  return result('ranking', r, fields);
}

async function context(scale) {
  // The repository grows with the instances: its files are input too (each is parsed once).
  const w = workload('context', scale, (dir) =>
    generateContext(dir, {
      instances: Math.round(5000 * scale),
      files: Math.max(20, Math.round(400 * scale)),
    }),
  );
  const r = await race({
    ours: groundgate(w.dir),
    floor: { args: [path.join(FLOORS, 'context.mjs'), ...w.files, w.repo] },
  });
  return result('context', r, { items: w.items, repo_files: w.repoFiles, scale, input_mb: mb(w.bytes) });
}

/**
 * Whether the bundled CLI has a suite kind: a config naming it must fail on its inputs, not on the kind.
 * (The agent-retrieval suite was written alongside this benchmark; the workload runs once it is bundled.)
 */
function bundledKind(kind, key) {
  const dir = path.join(root, `probe-${kind}`);
  mkdirSync(dir, { recursive: true });
  const gates = path.join(dir, 'gates.yaml');
  const yaml = `version: 1\nsuites:\n  probe:\n    kind: ${kind}\n    ${key}: none/*.json\n`;
  writeFileSync(gates, yaml);
  const r = spawnSync(NODE, [CLI, 'check', '-c', gates], { cwd: dir, encoding: 'utf8' });
  return !/unknown kind/.test(r.stderr);
}

async function agentRetrieval(scale) {
  if (!bundledKind('agent-retrieval', 'events')) {
    log('agent-retrieval: skipped: suite not available (dist/cli/index.js has no agent-retrieval kind)');
    return { workload: 'agent-retrieval', skipped: 'suite not available', scale };
  }
  const w = workload('agent-retrieval', scale, (dir) =>
    generateAgentRetrieval(dir, { documents: Math.round(10_000 * scale) }),
  );
  const r = await race({
    ours: groundgate(path.dirname(w.dir)),
    floor: { args: [path.join(FLOORS, 'json-files.mjs'), w.dir] },
  });
  return result('agent-retrieval', r, { items: w.items, scale, input_mb: mb(w.bytes) });
}

/**
 * The Action, process start to exit, on this repository's example data (gates.yaml, every suite), with
 * no GitHub API (comment: never). The floor is a bare `node -e 0`. The CLI is timed the same way.
 */
async function coldStart() {
  const dir = path.join(root, 'cold-start');
  mkdirSync(dir, { recursive: true });
  const suites = readFileSync(path.join(REPO, 'gates.yaml'), 'utf8').match(/^ {2}[\w.-]+:\s*$/gm).length;
  const env = {
    PATH: process.env.PATH,
    GITHUB_WORKSPACE: REPO,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_REPOSITORY: 'owner/groundgate',
    GITHUB_OUTPUT: path.join(dir, 'output.txt'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'),
    INPUT_CONFIG: 'gates.yaml',
    INPUT_COMMENT: 'never',
    INPUT_REPORT: path.join(dir, 'report.json'),
  };
  // The runner creates both files before a step runs; the Action appends to them.
  writeFileSync(env.GITHUB_OUTPUT, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY, '');
  const floor = { args: ['-e', '0'] };
  const lines = [];
  const cpu = async (spec) => round(await mainThreadCpu(spec, path.join(dir, 'thread-cpu.txt')), 3);
  if (existsSync(ACTION)) {
    const action = { args: [ACTION], cwd: REPO, env };
    const r = await race({ ours: action, floor });
    lines.push(
      result('cold_start_action', r, {
        items: suites,
        main_thread_cpu_s: await cpu(action),
        floor_main_thread_cpu_s: await cpu(floor),
      }),
    );
  } else {
    log('cold start: dist/index.js not found (npm run bundle builds it)');
  }
  const cli = { args: [CLI, '--report', path.join(dir, 'cli-report.json')], cwd: REPO };
  lines.push(
    result('cold_start_cli', await race({ ours: cli, floor }), {
      items: suites,
      main_thread_cpu_s: await cpu(cli),
      floor_main_thread_cpu_s: await cpu(floor),
    }),
  );
  return lines;
}

/**
 * The median CPU time of the main thread over RUNS more runs of `spec` (bench/thread-cpu.mjs), in runs of
 * their own so that the hook costs the timed runs nothing; null on a Node without process.threadCpuUsage.
 */
async function mainThreadCpu(spec, file) {
  rmSync(file, { force: true });
  const env = { ...(spec.env ?? process.env), GROUNDGATE_BENCH_THREAD_CPU: file };
  for (let i = 0; i < RUNS; i++)
    await measure(NODE, ['--import', path.join(REPO, 'bench', 'thread-cpu.mjs'), ...spec.args], {
      cwd: spec.cwd,
      env,
    });
  const seconds = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map(Number) : [];
  return seconds.length === RUNS ? median(seconds) : null;
}

function distSize() {
  const sizes = { js: 0, wasm: 0, map: 0, other: 0 };
  const dist = DIST;
  for (const rel of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dist, rel);
    if (!statSync(file).isFile()) continue;
    const ext = path.extname(file).slice(1);
    sizes[ext in sizes ? ext : 'other'] += statSync(file).size;
  }
  return {
    workload: 'dist_size',
    js_mb: mb(sizes.js),
    wasm_mb: mb(sizes.wasm),
    map_mb: mb(sizes.map),
    other_mb: mb(sizes.other),
  };
}

// ---------------------------------------------------------------------------------------------------------

function machine() {
  const cpu = /model name\s*:\s*(.+)/.exec(
    existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '',
  );
  return {
    workload: 'machine',
    date: new Date().toISOString(),
    nproc: os.availableParallelism(),
    cpu: cpu ? cpu[1].trim() : os.cpus()[0]?.model,
    mem_gb: round(os.totalmem() / 1024 ** 3, 1),
    node: NODE_VERSION,
    load_1m: round(os.loadavg()[0], 2),
    rss_method: rssMethod(),
    runs: RUNS,
    peer_runs: PEER_RUNS,
    sizes,
    ...(args.vs && { vs: path.resolve(args.vs) }),
  };
}

const BENCHES = {
  'grounded-qa': groundedQa,
  ranking,
  context,
  'agent-retrieval': agentRetrieval,
  formats,
  merge,
};

try {
  emit(machine());
  const rows = new Map();
  for (const size of sizes) {
    for (const name of only.filter((w) => SCALED.has(w))) {
      log(`${name} ×${size} …`);
      const out = await BENCHES[name](size);
      // formats gives a line per format, merge one of its own: they stay out of the linearity table.
      if (Array.isArray(out) || name === 'merge') {
        for (const line of [out].flat()) emit(line);
        continue;
      }
      emit(out);
      if (!out.skipped) rows.set(name, [...(rows.get(name) ?? []), out]);
    }
  }
  if (sizes.length > 1) {
    // Seconds per 1× of input at each size: flat when the cost is linear (process start aside).
    for (const [name, lines] of rows) {
      emit({
        workload: `linearity/${name}`,
        sizes: lines.map((l) => l.scale),
        ours_s: lines.map((l) => l.ours_s),
        ours_s_per_1x: lines.map((l) => round(l.ours_s / l.scale, 3)),
        floor_s_per_1x: lines.map((l) => round(l.floor_s / l.scale, 3)),
        peak_rss_mb: lines.map((l) => l.peak_rss_mb),
        ...(lines[0].peer_s !== null
          ? { peer_s_per_1x: lines.map((l) => round(l.peer_s / l.scale, 3)) }
          : {}),
      });
    }
  }
  if (only.includes('cold-start')) {
    log('cold start …');
    for (const line of await coldStart()) emit(line);
  }
  if (only.includes('dist-size')) emit(distSize());
  if (differFromOld.length > 0) {
    log(`--vs: report.json differs from the old bundle's in ${differFromOld.join(', ')}`);
    process.exitCode = 1;
  }
} catch (err) {
  log(err.stack ?? String(err));
  process.exitCode = 1;
} finally {
  cleanup();
}
