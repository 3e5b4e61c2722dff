// Seeded synthetic workloads for `npm run bench`. Nothing here is committed data: every file is written
// into a temporary folder from a fixed seed, so two machines benchmark the same bytes.
import { closeSync, mkdirSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

/** mulberry32, as test/helpers/random.ts: small, fast, the same stream everywhere. */
export function seeded(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  return { next, int, pick };
}

/** Buffered line writer: one write per ~1 MB, not per line. */
class LineWriter {
  constructor(file) {
    this.fd = openSync(file, 'w');
    this.parts = [];
    this.size = 0;
    this.bytes = 0;
  }
  line(text) {
    this.parts.push(text);
    this.size += text.length + 1;
    if (this.size > 1 << 20) this.flush();
  }
  flush() {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join('\n') + '\n');
    writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.parts = [];
    this.size = 0;
  }
  close() {
    this.flush();
    closeSync(this.fd);
    return this.bytes;
  }
}

const WORDS = (
  'the a of to and in is for on that with as by at from cache key value store node cluster replica ' +
  'snapshot compaction segment index shard token lease timeout retry backoff request response client ' +
  'server port config default limit size bytes memory disk write read flush sync async queue batch ' +
  'stream record offset epoch leader follower quorum vote election heartbeat interval window metric ' +
  'latency throughput error code warning log level debug trace span header body payload schema field ' +
  'version upgrade migration rollback backup restore encrypt decrypt certificate tls handshake cipher ' +
  'policy role user group permission scope audit event alert threshold budget quota rate burst bucket ' +
  'after before when while unless only every each most least must should may never always returns ' +
  'rejects accepts requires allows stores evicts expires renews refreshes validates parses serializes'
).split(' ');

// Claims avoid the modal words the default SCU rules read as contradictions; a few get one on purpose.
const CLAIM_WORDS = WORDS.filter((w) => !['may', 'never', 'must', 'only'].includes(w));

function sentence(rnd, minChars, maxChars, words = WORDS) {
  const target = rnd.int(minChars, maxChars);
  let s = '';
  while (s.length < target) s += (s ? ' ' : '') + rnd.pick(words);
  return s.charAt(0).toUpperCase() + s.slice(1, target).trimEnd() + '.';
}

// ---------------------------------------------------------------------------------------------------------
// grounded-qa: gold items and trace lines
// ---------------------------------------------------------------------------------------------------------

const CONSTRAINTS = [
  'Ferrymark rejects null keys.',
  'Clients must use TLS 1.2 or later.',
  'Tokens are never written to the log.',
  'Accounts are for only domain example.com.',
  'Snapshots must be taken before an upgrade.',
  'Leases never outlive the session.',
];
const REFUSAL = 'not in context';

/** The gates every grounded-qa workload is checked against, whatever its format. */
const GATES = [
  '    k: 5',
  '    scu: true',
  '    gates:',
  "      precision: '>= 0.80'",
  "      chr: '>= 0.75'",
  "      under_refusal: '<= 0.05'",
  "      over_refusal: '<= 0.10'",
  "      scu_violations: '== 0'",
  "      recall@5: '>= 0.85'",
];

/**
 * `items` gold items and `lines` trace lines. About 10% of the items are unanswerable, 20% carry constraints;
 * each trace line is a run of a random gold qid (so ~lines/items runs per qid, last run by `ts` wins, with
 * shards slightly out of order), 2% of lines have a qid gold does not know.
 */
export function generateGroundedQa(dir, { items, lines, seed = 4242 }) {
  mkdirSync(dir, { recursive: true });
  const rnd = seeded(seed);
  const gold = [];
  const goldFile = path.join(dir, 'qa.gold.jsonl');
  const g = new LineWriter(goldFile);
  const docid = () => `d${rnd.int(0, 49999)}#${rnd.int(1, 12)}`;
  for (let i = 0; i < items; i++) {
    const qid = `Q${String(i).padStart(7, '0')}`;
    const answerable = rnd.next() >= 0.1;
    const fact = sentence(rnd, 40, 80);
    const at = rnd.int(0, fact.length - 25);
    const substr = answerable ? [fact.slice(at, at + rnd.int(10, 24)).trim()] : [];
    if (answerable && rnd.next() < 0.3) substr.push(`code FM-E${rnd.int(100, 999)}`);
    const citations = answerable ? Array.from({ length: rnd.int(1, 3) }, docid) : [];
    const constraints = rnd.next() < 0.2 ? [rnd.pick(CONSTRAINTS)] : undefined;
    if (constraints && rnd.next() < 0.3)
      constraints.push(rnd.pick(CONSTRAINTS.filter((c) => c !== constraints[0])));
    const item = {
      qid,
      question: sentence(rnd, 80, 120).replace(/\.$/, '?'),
      answerable,
      gold_claim_substr: substr,
      gold_citations: citations,
      ...(constraints ? { constraints } : {}),
      ...(rnd.next() < 0.15 ? { notes: sentence(rnd, 40, 90) } : {}),
    };
    g.line(JSON.stringify(item));
    gold.push({ qid, answerable, fact, substr, citations, constraints });
  }
  const goldBytes = g.close();

  const tracesFile = path.join(dir, 'qa.trace.jsonl');
  const t = new LineWriter(tracesFile);
  const base = 1767225600;
  for (let i = 0; i < lines; i++) {
    const unknown = rnd.next() < 0.02;
    const item = unknown ? undefined : gold[rnd.int(0, items - 1)];
    const qid = item ? item.qid : `X${String(rnd.int(0, 99999)).padStart(6, '0')}`;
    const retrieved = Array.from({ length: rnd.int(5, 10) }, docid);
    if (item && item.answerable && rnd.next() < 0.95) {
      // The gold citations retrieved, mostly in the top 5.
      for (const c of item.citations) {
        if (!retrieved.includes(c))
          retrieved[rnd.next() < 0.9 ? rnd.int(0, 4) : rnd.int(0, retrieved.length - 1)] = c;
      }
    }
    let claim;
    let citations = [];
    const refuse = item ? (item.answerable ? rnd.next() < 0.04 : rnd.next() < 0.96) : rnd.next() < 0.1;
    if (refuse) {
      claim = REFUSAL;
    } else {
      claim = sentence(rnd, 130, 310, CLAIM_WORDS);
      if (item && item.answerable && rnd.next() < 0.95) {
        const cut = rnd.int(0, claim.length - 1);
        claim = `${claim.slice(0, cut)} ${rnd.pick(item.substr)} ${claim.slice(cut)}`;
      }
      if (item?.constraints && rnd.next() < 0.03) claim += ' Retries may be skipped.';
      const cited =
        item && item.answerable && rnd.next() < 0.95 ? rnd.pick(item.citations) : rnd.pick(retrieved);
      citations = [retrieved.includes(cited) || rnd.next() < 0.9 ? cited : docid()];
      if (rnd.next() < 0.3) citations.push(rnd.pick(retrieved));
      citations = [...new Set(citations)];
    }
    const answer = { claim, citations };
    if (item?.constraints && !refuse && rnd.next() < 0.98) answer.constraints_echo = item.constraints;
    // Mostly increasing, a few seconds of jitter across shards: last-run-wins has real comparisons to make.
    const ts = base + Math.floor(i / 4) + rnd.int(0, 30);
    const trace = {
      ts,
      qid,
      retrieved_ids: retrieved,
      answer_json: answer,
      ok: true,
      latency_ms: rnd.int(300, 4000),
    };
    t.line(JSON.stringify(trace));
  }
  const traceBytes = t.close();

  writeFileSync(
    path.join(dir, 'gates.yaml'),
    [
      'version: 1',
      'suites:',
      '  qa:',
      '    kind: grounded-qa',
      '    gold: qa.gold.jsonl',
      '    traces: qa.trace.jsonl',
      ...GATES,
      '',
    ].join('\n'),
  );
  return { files: [goldFile, tracesFile], bytes: goldBytes + traceBytes, items: lines, gold: items };
}

// ---------------------------------------------------------------------------------------------------------
// ranking: TREC qrels and run
// ---------------------------------------------------------------------------------------------------------

/**
 * `queries` queries × `depth` documents. Every qrels query is in the run (trec_eval 10 aborts otherwise).
 * Judgments: 5–25 per query, grades 0–3, about 60% of them on retrieved docs, biased towards the top.
 * Scores descend with the rank, with a few ties.
 */
export function generateRanking(dir, { queries, depth = 100, seed = 1717 }) {
  mkdirSync(dir, { recursive: true });
  const rnd = seeded(seed);
  const qrelsFile = path.join(dir, 'bench.qrels');
  const runFile = path.join(dir, 'bench.run');
  const q = new LineWriter(qrelsFile);
  const r = new LineWriter(runFile);
  let runLines = 0;
  for (let i = 0; i < queries; i++) {
    const qid = String(100000 + i);
    // Distinct docids: a random start, increasing by random steps; ranked in a shuffled order.
    const docs = new Array(depth);
    let id = rnd.int(0, 9_000_000);
    for (let j = 0; j < depth; j++) {
      id += rnd.int(1, 97);
      docs[j] = `D${id}`;
    }
    for (let j = depth - 1; j > 0; j--) {
      const k = rnd.int(0, j);
      [docs[j], docs[k]] = [docs[k], docs[j]];
    }
    let score = 30 + rnd.next() * 10;
    for (let j = 0; j < depth; j++) {
      if (rnd.next() >= 0.05) score -= rnd.next() * 0.25;
      r.line(`${qid} Q0 ${docs[j]} ${j + 1} ${score.toFixed(4)} run`);
    }
    runLines += depth;
    const judged = new Set();
    const n = rnd.int(5, 25);
    while (judged.size < n) {
      if (rnd.next() < 0.6) judged.add(docs[Math.floor(depth * rnd.next() ** 2)]);
      else judged.add(`D${rnd.int(0, 99_999_999)}x`);
    }
    for (const docid of judged) {
      const x = rnd.next();
      q.line(`${qid} 0 ${docid} ${x < 0.45 ? 0 : x < 0.75 ? 1 : x < 0.92 ? 2 : 3}`);
    }
  }
  const qrelsBytes = q.close();
  const runBytes = r.close();
  writeFileSync(
    path.join(dir, 'gates.yaml'),
    [
      'version: 1',
      'suites:',
      '  ranking:',
      '    kind: ranking',
      '    qrels: bench.qrels',
      '    run: bench.run',
      '    k: 10',
      '    gates:',
      "      map: '>= 0.2'",
      "      P@5: '>= 0.2'",
      "      P@10: '>= 0.2'",
      "      recall@10: '>= 0.3'",
      "      ndcg@10: '>= 0.3'",
      "      mrr: '>= 0.4'",
      '',
    ].join('\n'),
  );
  return { files: [qrelsFile, runFile], bytes: qrelsBytes + runBytes, items: runLines, queries };
}

// ---------------------------------------------------------------------------------------------------------
// context: a generated repository, gold rows and extracted predictions
// ---------------------------------------------------------------------------------------------------------

function pythonFile(rnd, module) {
  const lines = [`"""${sentence(rnd, 30, 60)}"""`, 'import os', 'from typing import Optional', ''];
  const nClasses = rnd.int(2, 5);
  for (let c = 0; c < nClasses; c++) {
    lines.push('', `class ${module}Thing${c}:`, `    """${sentence(rnd, 20, 60)}"""`, '');
    const nMethods = rnd.int(3, 7);
    for (let m = 0; m < nMethods; m++) {
      lines.push(`    def method_${c}_${m}(self, key: str, value: Optional[bytes] = None) -> int:`);
      const body = rnd.int(4, 14);
      for (let b = 0; b < body; b++) {
        lines.push(
          b % 4 === 0
            ? `        if key == "${rnd.pick(WORDS)}":`
            : `        ${b % 4 === 1 ? '    ' : ''}self.count_${b} = len(key) + ${rnd.int(0, 999)}  # ${rnd.pick(WORDS)}`,
        );
      }
      lines.push(`        return ${rnd.int(0, 9)}`, '');
    }
  }
  const nFunctions = rnd.int(2, 6);
  for (let f = 0; f < nFunctions; f++) {
    lines.push('', `def helper_${f}(path: str) -> str:`);
    for (let b = 0; b < rnd.int(3, 10); b++)
      lines.push(`    path = os.path.join(path, "${rnd.pick(WORDS)}")`);
    lines.push('    return path', '');
  }
  return lines;
}

function typescriptFile(rnd, module) {
  const lines = [`// ${sentence(rnd, 30, 60)}`, `import { readFileSync } from 'node:fs';`, ''];
  const nInterfaces = rnd.int(1, 3);
  for (let i = 0; i < nInterfaces; i++) {
    lines.push(`export interface ${module}Options${i} {`);
    for (let f = 0; f < rnd.int(2, 6); f++) lines.push(`  ${rnd.pick(WORDS)}${f}?: number;`);
    lines.push('}', '');
  }
  const nClasses = rnd.int(1, 3);
  for (let c = 0; c < nClasses; c++) {
    lines.push(`export class ${module}Service${c} {`, '  private count = 0;', '');
    for (let m = 0; m < rnd.int(3, 7); m++) {
      lines.push(`  method${m}(key: string, retries = ${rnd.int(1, 5)}): number {`);
      for (let b = 0; b < rnd.int(3, 12); b++) {
        lines.push(
          b % 3 === 0
            ? `    for (let i = 0; i < retries; i++) this.count += key.length;`
            : `    this.count += ${rnd.int(0, 999)}; // ${rnd.pick(WORDS)}`,
        );
      }
      lines.push('    return this.count;', '  }', '');
    }
    lines.push('}', '');
  }
  for (let f = 0; f < rnd.int(1, 4); f++) {
    lines.push(`export function load${f}(file: string): string {`);
    lines.push(`  return readFileSync(file, 'utf8').trim();`, '}', '');
  }
  return lines;
}

/**
 * A repository of `files` source files (3 Python to 1 TypeScript), `instances` gold rows on it (init and
 * add regions on 1–3 files, the reference patch) and one extracted prediction per instance: 3–8 steps of
 * files and line spans, a final context and a model patch. Scored with `repos_layout: shared`.
 */
export function generateContext(dir, { instances, files = 400, seed = 5151 }) {
  const rnd = seeded(seed);
  const repo = path.join(dir, 'repo');
  const sources = [];
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const pkg = `pkg${i % 20}`;
    const ts = i % 4 === 3;
    const rel = ts ? `web/${pkg}/module${i}.ts` : `${pkg}/module${i}.py`;
    const lines = ts ? typescriptFile(rnd, `M${i}`) : pythonFile(rnd, `M${i}`);
    mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    const text = lines.join('\n') + '\n';
    writeFileSync(path.join(repo, rel), text);
    bytes += Buffer.byteLength(text);
    sources.push({ rel, lines });
  }

  const region = (src) => {
    const start = rnd.int(1, Math.max(1, src.lines.length - 20));
    return { file: src.rel, start_line: start, end_line: Math.min(src.lines.length, start + rnd.int(2, 18)) };
  };
  const patchFor = (src, line) =>
    [
      `diff --git a/${src.rel} b/${src.rel}`,
      `--- a/${src.rel}`,
      `+++ b/${src.rel}`,
      `@@ -${line},3 +${line},3 @@`,
      ` ${src.lines[line - 1] ?? ''}`,
      `-${src.lines[line] ?? ''}`,
      `+${(src.lines[line] ?? '').replace(/\d+/, '7')}`,
      ` ${src.lines[line + 1] ?? ''}`,
      '',
    ].join('\n');

  const g = new LineWriter(path.join(dir, 'context.gold.jsonl'));
  const p = new LineWriter(path.join(dir, 'context.predictions.jsonl'));
  for (let i = 0; i < instances; i++) {
    const id = `bench__repo-${String(i).padStart(5, '0')}`;
    const touched = Array.from({ length: rnd.int(1, 3) }, () => rnd.pick(sources));
    const init = [region(touched[0])];
    const add = touched.slice(1).map(region);
    if (rnd.next() < 0.3) add.push(region(touched[0]));
    const editLine = init[0].start_line;
    const patch = patchFor(touched[0], editLine);
    g.line(
      JSON.stringify({
        inst_id: id,
        original_inst_id: id,
        repo_url: 'https://github.com/bench/repo',
        commit: '0'.repeat(40),
        init_ctx: init,
        add_ctx: add,
        patch,
      }),
    );

    // Steps: mostly the gold files (near the gold regions, or whole), some other files; the final context
    // keeps most gold files with a span around their region, and now and then an extra file.
    const goldRegions = [...init, ...add];
    const near = (r) => {
      const src = sources.find((x) => x.rel === r.file);
      const start = Math.max(1, r.start_line - rnd.int(0, 8));
      return { file: r.file, start, end: Math.min(src.lines.length, r.end_line + rnd.int(0, 8)) };
    };
    const steps = [];
    const nSteps = rnd.int(3, 8);
    for (let s = 0; s < nSteps; s++) {
      const x = rnd.next();
      let span;
      if (x < 0.5) span = near(rnd.pick(goldRegions));
      else if (x < 0.7) {
        const src = rnd.pick(touched);
        span = { file: src.rel, start: 1, end: src.lines.length };
      } else {
        const r = region(rnd.pick(sources));
        span = { file: r.file, start: r.start_line, end: r.end_line };
      }
      steps.push({
        files: [span.file],
        spans: { [span.file]: [{ type: 'line', start: span.start, end: span.end }] },
      });
    }
    const finalSpans = goldRegions.filter(() => rnd.next() < 0.85).map(near);
    if (rnd.next() < 0.3) {
      const r = region(rnd.pick(sources));
      finalSpans.push({ file: r.file, start: r.start_line, end: r.end_line });
    }
    const predSpans = {};
    for (const sp of finalSpans)
      (predSpans[sp.file] ??= []).push({ type: 'line', start: sp.start, end: sp.end });
    const finalFiles = Object.keys(predSpans);
    const x = rnd.next();
    const modelPatch = x < 0.7 ? patch : x < 0.8 ? '' : patchFor(rnd.pick(touched), rnd.int(2, 20));
    p.line(
      JSON.stringify({
        instance_id: id,
        traj_data: { pred_steps: steps, pred_files: finalFiles, pred_spans: predSpans },
        model_patch: modelPatch,
      }),
    );
  }
  bytes += g.close() + p.close();
  writeFileSync(
    path.join(dir, 'gates.yaml'),
    [
      'version: 1',
      'suites:',
      '  context:',
      '    kind: context',
      '    gold: context.gold.jsonl',
      '    predictions: context.predictions.jsonl',
      '    repos: repo',
      '    repos_layout: shared',
      '    gates:',
      "      line.f1: '>= 0.5'",
      "      span.coverage: '>= 0.5'",
      "      symbol.coverage: '>= 0.5'",
      "      editloc.precision: '>= 0.5'",
      "      auc.file: '>= 0.5'",
      "      redundancy.line: '<= 0.5'",
      '',
    ].join('\n'),
  );
  return {
    files: [path.join(dir, 'context.gold.jsonl'), path.join(dir, 'context.predictions.jsonl')],
    repo,
    repoFiles: files,
    bytes,
    items: instances,
  };
}

// ---------------------------------------------------------------------------------------------------------
// agent-retrieval: retrieval-event documents (schema 1.0)
// ---------------------------------------------------------------------------------------------------------

const TOOLS = [
  ['Read', 'file_read', false],
  ['Grep', 'file_search', false],
  ['Glob', 'file_search', false],
  ['Edit', 'file_write', false],
  ['Bash', 'other', false],
  ['mcp__sourcegraph__sg_keyword_search', 'code_search', true],
  ['mcp__sourcegraph__sg_read_file', 'file_read', true],
  ['mcp__sourcegraph__sg_find_references', 'symbol_navigation', true],
  ['mcp__sourcegraph__sg_nls_search', 'deep_search', true],
];

/**
 * `documents` event documents: tasks × two configs (local baseline and MCP), 4–40 events each, ground truth
 * on 1–6 files (chunks on a third of the tasks), 5% without ground truth and 2% degraded without events.
 */
export function generateAgentRetrieval(dir, { documents, seed = 9090 }) {
  const rnd = seeded(seed);
  const run = 'bench_20260301_090000';
  const configs = ['baseline-local-direct', 'mcp-remote-direct'];
  const tasks = Math.ceil(documents / configs.length);
  const repoFiles = Array.from(
    { length: 3000 },
    (_, i) => `${rnd.pick(['store', 'api', 'cmd', 'internal', 'pkg'])}/${rnd.pick(WORDS)}_${i}.go`,
  );
  let bytes = 0;
  let written = 0;
  for (const config of configs) mkdirSync(path.join(dir, 'events', config), { recursive: true });
  const truths = Array.from({ length: tasks }, () => {
    const files = [...new Set(Array.from({ length: rnd.int(1, 6) }, () => rnd.pick(repoFiles)))];
    return {
      files,
      chunks:
        rnd.next() < 0.33
          ? files.map((file) => {
              const start = rnd.int(1, 300);
              return { file, line_start: start, line_end: start + rnd.int(0, 40), annotation: 'logic-error' };
            })
          : undefined,
      none: rnd.next() < 0.05,
    };
  });
  for (let t = 0; t < tasks && written < documents; t++) {
    for (const config of configs) {
      if (written >= documents) break;
      const task = `bench-task-${String(t).padStart(5, '0')}`;
      const truth = truths[t];
      const degraded = rnd.next() < 0.02;
      const gt = truth.none ? [] : truth.files;
      const events = [];
      let tokens = 0;
      const nEvents = degraded ? 0 : rnd.int(4, 40);
      for (let s = 0; s < nEvents; s++) {
        const [tool, category, mcp] = config.startsWith('mcp')
          ? rnd.pick(TOOLS)
          : rnd.pick(TOOLS.filter((x) => !x[2]));
        const targets = [
          ...new Set(
            Array.from({ length: category === 'code_search' ? rnd.int(1, 5) : 1 }, () =>
              gt.length && rnd.next() < 0.35 ? rnd.pick(gt) : rnd.pick(repoFiles),
            ),
          ),
        ];
        const matched = targets.filter((f) => gt.includes(f));
        tokens += rnd.int(500, 20000);
        events.push({
          step_index: s,
          timestamp: null,
          tool_name: tool,
          tool_category: category,
          is_mcp: mcp,
          arguments:
            category === 'file_read'
              ? { path: targets[0] }
              : { query: `${rnd.pick(WORDS)} ${rnd.pick(WORDS)}` },
          target_files: targets,
          hits_ground_truth: matched.length > 0,
          matched_ground_truth_files: matched,
          is_subagent: false,
          cumulative_tokens: tokens,
          elapsed_seconds: null,
        });
      }
      const doc = {
        schema_version: '1.0',
        generated_at: '2026-03-01T12:00:00Z',
        provenance: {
          run_id: run,
          batch_timestamp: null,
          task_name: task,
          trial_name: `${task}__${config}`,
          config_name: config,
          benchmark: 'csb_sdlc_fix',
          model: 'claude-sonnet-4-5-20250929',
        },
        coverage: {
          has_trajectory: !degraded,
          has_transcript: true,
          has_ground_truth: gt.length > 0,
          has_chunk_ground_truth: Boolean(truth.chunks) && gt.length > 0,
          trace_source: degraded ? null : 'trajectory',
          degraded_reason: degraded ? 'no_events' : null,
          ground_truth_source: gt.length > 0 ? 'ground_truth_json' : null,
          ground_truth_confidence: gt.length > 0 ? 'high' : null,
        },
        ground_truth: { files: gt, ...(truth.chunks && gt.length ? { chunks: truth.chunks } : {}) },
        events,
      };
      const text = JSON.stringify(doc, null, 2);
      writeFileSync(path.join(dir, 'events', config, `${task}.retrieval_events.json`), text);
      bytes += Buffer.byteLength(text);
      written++;
    }
  }
  writeFileSync(
    path.join(dir, 'gates.yaml'),
    [
      'version: 1',
      'suites:',
      '  agent-retrieval:',
      '    kind: agent-retrieval',
      "    events: 'events/**/*.retrieval_events.json'",
      '    k: [5, 10]',
      '    compare: { baseline: baseline-local-direct, candidate: mcp-remote-direct }',
      '    gates:',
      "      file_recall: '>= 0.5'",
      "      mrr: '>= 0.5'",
      "      ndcg@10: '>= 0.5'",
      '',
    ].join('\n'),
  );
  return { dir: path.join(dir, 'events'), bytes, items: written };
}

// ---------------------------------------------------------------------------------------------------------
// grounded-qa in other formats: the same gold and traces mapped with fields:, as OpenInference spans, Parquet
// ---------------------------------------------------------------------------------------------------------

/** The lines of a JSON Lines file, parsed, a megabyte at a time. */
function* jsonLines(file) {
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(1 << 20);
  let rest = '';
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + buf.toString('utf8', 0, n);
      const lines = text.split('\n');
      rest = lines.pop();
      for (const l of lines) if (l) yield JSON.parse(l);
    }
    if (rest) yield JSON.parse(rest);
  } finally {
    closeSync(fd);
  }
}

/**
 * From the grounded-qa workload in `dir` (generateGroundedQa): the traces and gold in nested shapes with a
 * `fields:` mapping (gates-mapped.yaml; the traces' ids also as lists of objects read with `*`,
 * gates-listed.yaml; the canonical traces with their citations as markers in the claim, gates-marked.yaml,
 * and refusal patterns too, gates-patterned.yaml), the traces as OTLP JSON with OpenInference spans, one
 * export a trace (gates-openinference.yaml), and both as Parquet (gates-parquet.yaml; the traces also in one
 * row group, gates-parquet-one-group.yaml). Each scores as gates.yaml. Beside them, the canonical files with claims
 * matched normalized (gates-normalized.yaml, `claims: {match: normalized}`): the normalized rule's cost.
 */
export async function generateFormats(dir) {
  const goldFile = path.join(dir, 'qa.gold.jsonl');
  const traceFile = path.join(dir, 'qa.trace.jsonl');
  const mg = new LineWriter(path.join(dir, 'mapped.gold.jsonl'));
  const gold = { qid: [], question: [], answerable: [], substr: [], citations: [], constraints: [] };
  for (const g of jsonLines(goldFile)) {
    mg.line(
      JSON.stringify({
        item: { key: g.qid, text: g.question },
        label: { ok: g.answerable, must: g.gold_claim_substr, cite: g.gold_citations, rules: g.constraints },
      }),
    );
    gold.qid.push(g.qid);
    gold.question.push(g.question);
    gold.answerable.push(g.answerable);
    gold.substr.push(g.gold_claim_substr);
    gold.citations.push(g.gold_citations);
    gold.constraints.push(g.constraints ?? null);
  }
  let bytes = mg.close();
  const mt = new LineWriter(path.join(dir, 'mapped.trace.jsonl'));
  const lt = new LineWriter(path.join(dir, 'listed.trace.jsonl'));
  const kt = new LineWriter(path.join(dir, 'marked.trace.jsonl'));
  const ot = new LineWriter(path.join(dir, 'otlp.trace.jsonl'));
  const traces = { ts: [], qid: [], retrieved: [], answer: [], latency: [] };
  const attr = (key, v) => ({
    key,
    value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) },
  });
  const ns = (ms) => `${ms}000000`;
  let n = 0;
  for (const t of jsonLines(traceFile)) {
    mt.line(
      JSON.stringify({
        request: { id: t.qid, at: t.ts },
        output: {
          text: t.answer_json.claim,
          sources: t.answer_json.citations,
          echo: t.answer_json.constraints_echo,
        },
        retrieval: { ids: t.retrieved_ids },
        timing: { ms: t.latency_ms },
      }),
    );
    // Retrieved chunks and sources as lists of objects, as most pipelines log them (read with `*`).
    lt.line(
      JSON.stringify({
        request: { id: t.qid, at: t.ts },
        contexts: t.retrieved_ids.map((id, k) => ({ doc_id: id, score: 1 - k / 16 })),
        output: {
          text: t.answer_json.claim,
          sources: t.answer_json.citations.map((id) => ({ id })),
          echo: t.answer_json.constraints_echo,
        },
        timing: { ms: t.latency_ms },
      }),
    );
    // The canonical shape with the citations written into the claim as markers (citation_markers).
    const { citations, ...answer } = t.answer_json;
    const marks = citations.map((id) => ` [${id}]`).join('');
    kt.line(JSON.stringify({ ...t, answer_json: { ...answer, claim: answer.claim + marks } }));
    const traceId = (++n).toString(16).padStart(32, '0');
    const start = t.ts * 1000;
    const end = start + t.latency_ms;
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
          attr('input.value', t.qid),
          attr('output.value', JSON.stringify(t.answer_json)),
          attr('output.mime_type', 'application/json'),
          attr('metadata', JSON.stringify({ qid: t.qid })),
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
          ...t.retrieved_ids.map((id, k) => attr(`retrieval.documents.${k}.document.id`, id)),
        ],
      },
    ];
    ot.line(JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }));
    traces.ts.push(BigInt(t.ts));
    traces.qid.push(t.qid);
    traces.retrieved.push(t.retrieved_ids);
    traces.answer.push(t.answer_json);
    traces.latency.push(t.latency_ms);
  }
  bytes += mt.close();
  const listedBytes = lt.close();
  kt.close();
  const otlpBytes = ot.close();
  const { parquetWriteFile } = await import('hyparquet-writer');
  parquetWriteFile({
    filename: path.join(dir, 'qa.gold.parquet'),
    columnData: [
      { name: 'qid', data: gold.qid, type: 'STRING' },
      { name: 'question', data: gold.question, type: 'STRING' },
      { name: 'answerable', data: gold.answerable, type: 'BOOLEAN' },
      { name: 'gold_claim_substr', data: gold.substr },
      { name: 'gold_citations', data: gold.citations },
      { name: 'constraints', data: gold.constraints },
    ],
  });
  const traceColumns = [
    { name: 'ts', data: traces.ts, type: 'INT64' },
    { name: 'qid', data: traces.qid, type: 'STRING' },
    { name: 'retrieved_ids', data: traces.retrieved },
    { name: 'answer_json', data: traces.answer },
    { name: 'latency_ms', data: traces.latency, type: 'INT32' },
  ];
  parquetWriteFile({ filename: path.join(dir, 'qa.trace.parquet'), columnData: traceColumns });
  // As pyarrow (pandas' to_parquet) lays a file out: row groups of up to 1,048,576 rows, one at this size.
  parquetWriteFile({
    filename: path.join(dir, 'qa.trace.one-group.parquet'),
    columnData: traceColumns,
    rowGroupSize: 1_048_576,
  });
  const suite = (lines) =>
    ['version: 1', 'suites:', '  qa:', '    kind: grounded-qa', ...lines, ...GATES, ''].join('\n');
  // The nested shapes' mapping; the listed traces read their ids and citations through `*`.
  const mapped = (traces, ids, citations) => [
    '    gold: mapped.gold.jsonl',
    `    traces: ${traces}`,
    '    fields:',
    '      traces:',
    '        /qid: /request/id',
    '        /ts: /request/at',
    '        /answer_json/claim: /output/text',
    `        /answer_json/citations: ${citations}`,
    '        /answer_json/constraints_echo: /output/echo',
    `        /retrieved_ids: ${ids}`,
    '        /latency_ms: /timing/ms',
    '      gold:',
    '        /qid: /item/key',
    '        /question: /item/text',
    '        /answerable: /label/ok',
    '        /gold_claim_substr: /label/must',
    '        /gold_citations: /label/cite',
    '        /constraints: /label/rules',
  ];
  writeFileSync(
    path.join(dir, 'gates-mapped.yaml'),
    suite(mapped('mapped.trace.jsonl', '/retrieval/ids', '/output/sources')),
  );
  writeFileSync(
    path.join(dir, 'gates-listed.yaml'),
    suite(mapped('listed.trace.jsonl', '/contexts/*/doc_id', '/output/sources/*/id')),
  );
  const marked = [
    '    gold: qa.gold.jsonl',
    '    traces: marked.trace.jsonl',
    '    citation_markers:',
    "      pattern: '\\[([^\\]\\s]+)\\]'",
    '      refers_to: id',
  ];
  writeFileSync(path.join(dir, 'gates-marked.yaml'), suite(marked));
  // The marked traces with refusal patterns too: every claim runs through the gates.yaml patterns (RE2).
  writeFileSync(
    path.join(dir, 'gates-patterned.yaml'),
    suite([
      ...marked,
      '    refusal:',
      "      patterns: ['^i (do not|don''t) know', '\\bno (relevant )?information\\b']",
    ]),
  );
  writeFileSync(
    path.join(dir, 'gates-openinference.yaml'),
    suite([
      '    gold: qa.gold.jsonl',
      '    traces: otlp.trace.jsonl',
      '    format: openinference',
      '    openinference: { qid: metadata.qid }',
    ]),
  );
  writeFileSync(
    path.join(dir, 'gates-parquet.yaml'),
    suite(['    gold: qa.gold.parquet', '    traces: qa.trace.parquet']),
  );
  writeFileSync(
    path.join(dir, 'gates-normalized.yaml'),
    suite(['    gold: qa.gold.jsonl', '    traces: qa.trace.jsonl', '    claims: { match: normalized }']),
  );
  writeFileSync(
    path.join(dir, 'gates-parquet-one-group.yaml'),
    suite(['    gold: qa.gold.parquet', '    traces: qa.trace.one-group.parquet']),
  );
  return { mappedBytes: bytes, listedBytes, otlpBytes };
}
