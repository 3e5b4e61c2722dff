import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { asTraceLine, traceShape, type TraceLine } from '../src/grounded-answer/contract.js';
import {
  mappedTraceScanner,
  scannedQid,
  scannedTs,
  scanTraceLine,
  traceFields,
} from '../src/grounded-answer/trace-scan.js';
import { BASELINE_FILE, formatBaseline } from '../src/baseline/committed.js';
import { compileFieldMap } from '../src/io/field-map.js';
import { entryFor } from '../src/history/history.js';
import { serializeReport } from '../src/report/schema.js';
import { writePartialRun } from '../src/partial/run.js';
import { run } from '../src/run.js';
import { forgeHeader, forgeSection } from './helpers/forge-partial.js';
import { otlpLines, phoenixArray } from './helpers/formats.js';
import { JUNK } from './helpers/junk.js';
import { runCli } from './helpers/process.js';
import { qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

/**
 * Property-based fuzzing of every loader a pull request can feed: gates.yaml, gold, traces, retrieval-event
 * documents, TREC qrels and runs, gold locks, history files, baseline reports and committed baselines. Each generated input is
 * a valid example with edits applied (bytes, lines, JSON values, YAML syntax), and the property is the
 * CLI's contract: exit 0, 1 or 2; on 2 one line naming what is wrong; never an internal error, a stack trace
 * or a hang. FUZZ_RUNS sets the inputs per loader: a sample in CI, 10,000 in the nightly run
 * (.github/workflows/fuzz.yml).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
// fast-check takes a 32-bit seed; a workflow run id is larger.
const SEED = Number(process.env.FUZZ_SEED ?? 20261125) % 2 ** 31;
const HANG_MS = 10_000;

/** Stands for a byte that is never UTF-8 (0xFF) until the file is written. */
const BAD_BYTE = '\ue000';

const EXTRA_JUNK = [
  '-1',
  '\n',
  '\t',
  '\u202e',
  '__proto__',
  'constructor',
  BAD_BYTE,
  '\ud800',
  '\u001b[2J',
  '\u0007',
];
const LOADER_JUNK = [...JUNK, ...EXTRA_JUNK];
const YAML_JUNK = [
  '&a ',
  '*a',
  '!!binary ',
  '<<: *a',
  '---',
  '%YAML 1.1',
  '? ',
  '|',
  '>',
  '#',
  '!',
  '@',
  '`',
];
const VALUES: unknown[] = [
  null,
  0,
  -1,
  0.5,
  1e308,
  -1e-300,
  '',
  'x',
  'not in context',
  '__proto__',
  'constructor',
  '\u0000',
  '\u202e',
  '../../etc/passwd',
  'y'.repeat(5000),
  [],
  [null],
  [''],
  [1],
  {},
  { __proto__: 1 },
  true,
  false,
];

type Edit =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'duplicate-line'; at: number }
  | { kind: 'swap-lines'; a: number; b: number }
  | { kind: 'value'; at: number; pick: number; value: unknown };

function editArb(junk: readonly string[]): fc.Arbitrary<Edit> {
  const at = fc.nat();
  return fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at, text: fc.constantFrom(...junk) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at,
      text: fc.string({ unit: 'binary', maxLength: 8 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), at, length: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at }),
    fc.record({ kind: fc.constant('duplicate-line' as const), at }),
    fc.record({ kind: fc.constant('swap-lines' as const), a: fc.nat(), b: fc.nat() }),
    fc.record({
      kind: fc.constant('value' as const),
      at,
      pick: fc.nat(),
      value: fc.oneof(fc.constantFrom(...VALUES), fc.jsonValue({ maxDepth: 2 })),
    }),
  );
}

function apply(text: string, edit: Edit, wholeJson: boolean): string {
  const pos = (n: number) => n % (text.length + 1);
  switch (edit.kind) {
    case 'insert':
      return text.slice(0, pos(edit.at)) + edit.text + text.slice(pos(edit.at));
    case 'delete':
      return text.slice(0, pos(edit.at)) + text.slice(pos(edit.at) + edit.length);
    case 'truncate':
      return text.slice(0, pos(edit.at));
    case 'duplicate-line': {
      const lines = text.split('\n');
      const i = edit.at % lines.length;
      lines.splice(i, 0, lines[i]!);
      return lines.join('\n');
    }
    case 'swap-lines': {
      const lines = text.split('\n');
      const [a, b] = [edit.a % lines.length, edit.b % lines.length];
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      return lines.join('\n');
    }
    case 'value': {
      // A JSON value somewhere in the document (or in one line of JSON Lines) gets another value or type.
      const lines = wholeJson ? [text] : text.split('\n');
      const i = edit.at % lines.length;
      let doc: unknown;
      try {
        doc = JSON.parse(lines[i]!);
      } catch {
        return text;
      }
      const slots: [Record<string, unknown> | unknown[], string | number][] = [];
      const walk = (v: unknown) => {
        if (v === null || typeof v !== 'object') return;
        for (const [k, x] of Object.entries(v)) {
          slots.push([v as Record<string, unknown>, Array.isArray(v) ? Number(k) : k]);
          walk(x);
        }
      };
      walk(doc);
      if (slots.length === 0) return text;
      const [holder, key] = slots[edit.pick % slots.length]!;
      (holder as Record<string | number, unknown>)[key] = edit.value;
      lines[i] = JSON.stringify(doc, null, wholeJson ? 2 : undefined);
      return lines.join('\n');
    }
  }
}

interface Target {
  name: string;
  /** Files of the harness folder; `fuzzed` is among them and is replaced by each input. */
  files: Record<string, string>;
  fuzzed: string;
  args: string[];
  wholeJson?: boolean;
  junk?: readonly string[];
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: readonly string[], cwd: string): Promise<Outcome> {
  const out: Outcome = { code: -1, stdout: '', stderr: '' };
  const io = {
    stdout: (t: string) => void (out.stdout += t),
    stderr: (t: string) => void (out.stderr += t),
    isTty: false,
    env: { NO_COLOR: '1' },
  };
  const previous = process.cwd();
  process.chdir(cwd);
  let timer: NodeJS.Timeout | undefined;
  try {
    out.code = await Promise.race([
      main(args, io),
      new Promise<number>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms: a hang`)), HANG_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    process.chdir(previous);
  }
  return out;
}

/** The CLI's contract for any input. */
function expectClean(o: Outcome, input: string): void {
  const context = `input:\n${input.slice(0, 2000)}\nstderr:\n${o.stderr}`;
  expect([0, 1, 2], context).toContain(o.code);
  expect(o.stderr, context).not.toContain('internal error');
  expect(o.stderr, context).not.toMatch(/\n\s+at /);
  for (const line of o.stderr.split('\n').filter(Boolean)) expect(line, context).toMatch(/^groundgate: /);
  // No control character of the input reaches the terminal or the runner's log (see printLine).
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  expect(o.stderr, context).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  if (o.code === 2) {
    const lines = o.stderr.split('\n').filter(Boolean);
    const errors = lines.filter((l) => !l.startsWith('groundgate: warning: '));
    expect(errors, context).toHaveLength(1);
  }
}

function write(dir: string, name: string, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  // BAD_BYTE is U+E000: EE 80 80 in UTF-8, written as the lone byte FF.
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0xee && bytes[i + 1] === 0x80 && bytes[i + 2] === 0x80) {
      out.push(0xff);
      i += 2;
    } else out.push(bytes[i]!);
  }
  writeFileSync(path.join(dir, name), Buffer.from(out));
}

const read = (p: string) => readFileSync(path.join(REPO, p), 'utf8');
const qaGates = qaOnlyGates()
  .replace('gold/qa.gold.jsonl', 'gold.jsonl')
  .replace('runs/qa.trace.jsonl', 'traces.jsonl')
  .replace('gold/qa.gold.lock.json', 'gold.lock.json');
const qaFiles = {
  'gates.yaml': qaGates,
  'gold.jsonl': read('gold/qa.gold.jsonl'),
  'traces.jsonl': read('runs/qa.trace.jsonl'),
  'gold.lock.json': read('gold/qa.gold.lock.json'),
};

/** The example's traces with ids in lists of objects, times in epoch ms, latencies in seconds, a status. */
function listedTraces(text: string): string {
  const lines = text.split('\n').filter(Boolean);
  return lines
    .map((l) => {
      const { retrieved_ids, answer_json, ts, latency_ms, ...t } = JSON.parse(l) as TraceLine;
      const { citations, ...answer } = answer_json;
      return JSON.stringify({
        ...t,
        created_ms: (ts as number) * 1000,
        latency_s: latency_ms! / 1000,
        status: 'done',
        contexts: retrieved_ids.map((doc_id) => ({ doc_id })),
        answer_json: { ...answer, sources: citations.map((id) => ({ id })) },
      });
    })
    .join('\n');
}

async function targets(): Promise<Target[]> {
  const eventsDir =
    'examples/agent-retrieval/runs/staging/fix_sonnet_20260301_090000/retrieval_events/baseline-local-direct';
  const events = readdirSync(path.join(REPO, eventsDir)).sort().slice(0, 3);
  const report = (await run({ config: path.join(REPO, 'gates.yaml'), suites: ['qa'] })).report;
  const entry = JSON.stringify(entryFor(report, 'abc1234', '2026-11-01T00:00:00.000Z'));
  const rankingGates =
    'version: 1\nsuites:\n  r:\n    kind: ranking\n    qrels: q.qrels\n    run: r.run\n    k: 10\n    gates:\n      ndcg@10: ">= 0.5"\n      mrr: ">= 0.5"\n';
  return [
    {
      name: 'gates.yaml',
      files: qaFiles,
      fuzzed: 'gates.yaml',
      args: [],
      junk: [...LOADER_JUNK, ...YAML_JUNK],
    },
    { name: 'gold (grounded-qa)', files: qaFiles, fuzzed: 'gold.jsonl', args: [] },
    { name: 'traces (grounded-qa)', files: qaFiles, fuzzed: 'traces.jsonl', args: [] },
    {
      // Read through `*` and transforms: JSON.parse and the map, never the byte scanner.
      name: 'traces mapped with * and transforms (grounded-qa)',
      files: {
        'gates.yaml': [
          'version: 1',
          'suites:',
          '  qa:',
          '    kind: grounded-qa',
          '    gold: gold.jsonl',
          '    traces: traces.jsonl',
          '    fields:',
          '      traces:',
          '        /retrieved_ids: /contexts/*/doc_id',
          '        /answer_json/citations: /answer_json/sources/*/id',
          '        /ts: { from: /created_ms, unit: ms }',
          '        /latency_ms: { from: /latency_s, scale: 1000 }',
          '        /ok: { from: /status, equals: done }',
          '    gates:',
          '      precision: ">= 0.5"',
          '',
        ].join('\n'),
        'gold.jsonl': qaFiles['gold.jsonl'],
        'traces.jsonl': listedTraces(qaFiles['traces.jsonl']),
      },
      fuzzed: 'traces.jsonl',
      args: [],
    },
    {
      name: 'retrieval-event documents',
      files: {
        'gates.yaml':
          'version: 1\nsuites:\n  ar:\n    kind: agent-retrieval\n    events: ev/*.json\n    k: [5]\n    gates:\n      file_recall: ">= 0.5"\n',
        ...Object.fromEntries(events.map((f) => [`ev/${f}`, read(`${eventsDir}/${f}`)])),
      },
      fuzzed: `ev/${events[0]}`,
      args: [],
      wholeJson: true,
    },
    {
      name: 'TREC qrels',
      files: {
        'gates.yaml': rankingGates,
        'q.qrels': read('examples/ranking/ferrymark.qrels'),
        'r.run': read('examples/ranking/bm25.run'),
      },
      fuzzed: 'q.qrels',
      args: [],
    },
    {
      name: 'TREC run',
      files: {
        'gates.yaml': rankingGates,
        'q.qrels': read('examples/ranking/ferrymark.qrels'),
        'r.run': read('examples/ranking/bm25.run'),
      },
      fuzzed: 'r.run',
      args: [],
    },
    {
      name: 'gold lock',
      // Release sign-off needs the committed baseline of the gold set as well.
      files: { ...qaFiles, [BASELINE_FILE]: formatBaseline(report, null) },
      fuzzed: 'gold.lock.json',
      args: ['--release'],
      wholeJson: true,
    },
    {
      name: 'history',
      files: { ...qaFiles, 'history.jsonl': `${entry}\n${entry.replace('abc1234', 'def5678')}\n` },
      fuzzed: 'history.jsonl',
      args: ['--history', 'history.jsonl', '--format', 'markdown'],
    },
    {
      // A pull request may carry it: check compares with it unasked.
      name: 'committed baseline',
      files: { ...qaFiles, [BASELINE_FILE]: formatBaseline(report, null) },
      fuzzed: BASELINE_FILE,
      args: [],
    },
    {
      name: 'baseline report',
      files: { ...qaFiles, 'base.json': serializeReport(report) },
      fuzzed: 'base.json',
      args: ['--baseline', 'base.json', '--format', 'markdown'],
      wholeJson: true,
    },
  ];
}

describe(`loader fuzzing with fast-check (${RUNS} inputs per loader; FUZZ_RUNS sets it)`, async () => {
  for (const target of await targets()) {
    it(
      `${target.name}: exit 0, 1 or 2 with a one-line message; never a stack trace or a hang`,
      async () => {
        const dir = tmpTree(target.files);
        const seed = target.files[target.fuzzed]!;
        const codes = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(
            fc.array(editArb(target.junk ?? LOADER_JUNK), { minLength: 1, maxLength: 4 }),
            async (edits) => {
              const input = edits.reduce((text, e) => apply(text, e, target.wholeJson ?? false), seed);
              write(dir, target.fuzzed, input);
              const o = await cli(target.args, dir);
              expectClean(o, input);
              codes.set(o.code, (codes.get(o.code) ?? 0) + 1);
            },
          ),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        // The edits reach past the first check: some inputs still load, and some are refused.
        expect(codes.get(2) ?? 0).toBeGreaterThan(0);
        expect((codes.get(0) ?? 0) + (codes.get(1) ?? 0)).toBeGreaterThan(0);
      },
      600_000 + RUNS * 200,
    );
  }

  it('the bundled CLI keeps the same contract on a sample of the same inputs (dist/cli/index.js)', async () => {
    for (const target of await targets()) {
      const dir = tmpTree(target.files);
      const seed = target.files[target.fuzzed]!;
      const samples = fc.sample(
        fc.array(editArb(target.junk ?? LOADER_JUNK), { minLength: 1, maxLength: 4 }),
        {
          numRuns: 4,
          seed: SEED,
        },
      );
      for (const edits of samples) {
        const input = edits.reduce((text, e) => apply(text, e, target.wholeJson ?? false), seed);
        write(dir, target.fuzzed, input);
        const r = runCli(target.args, dir);
        expectClean({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, input);
      }
    }
  }, 120_000);
});

// Partials (groundgate merge): a partial may come from a fork's job. Raw damage (bits, bytes, a cut) must be
// refused naming the partial, or merge into the report of the partial as written; a forger's edits (the
// header's text or a section's bytes, with every sha256 made to match) keep the CLI's contract.

interface PartialTarget {
  name: string;
  suite: string;
  key: string;
  /** Files of the harness folder, the config among them. */
  files: Record<string, string>;
  /** Each shard's files of `key`: path → content. */
  shards: Record<string, string>[];
  /** Folders copied into the harness folder: path there → path in the repository. */
  folders?: Record<string, string>;
}

const MINI_EVAL = 'test/fixtures/contextbench/mini-eval';

function partialTargets(): PartialTarget[] {
  const lines = (p: string) => read(p).split('\n').filter(Boolean);
  const deal = (all: string[], shardOf: (line: string, i: number) => number) =>
    [0, 1].map((k) =>
      all
        .filter((l, i) => shardOf(l, i) === k)
        .map((l) => `${l}\n`)
        .join(''),
    );
  const gates = (suite: string, block: string) => `version: 1\nsuites:\n  ${suite}:\n${block}`;
  const qa = deal(lines('runs/qa.trace.jsonl'), (_, i) => i % 2);
  const run = deal(lines('examples/ranking/bm25.run'), (l) => Number(/\d+/.exec(l)![0]) % 2);
  const stability = deal(lines('examples/stability/runs.jsonl'), (_, i) => i % 2);
  const pairs = deal(lines('examples/consistency/pairs.jsonl'), (_, i) => i % 2);
  const [header, ...rows] = lines('examples/latency/latency.csv');
  const csv = deal(rows, (_, i) => i % 2).map((t) => `${header}\n${t}`);
  const eventsDir =
    'examples/agent-retrieval/runs/staging/fix_sonnet_20260301_090000/retrieval_events/baseline-local-direct';
  const events = readdirSync(path.join(REPO, eventsDir)).sort().slice(0, 3);
  return [
    {
      name: 'grounded-qa',
      suite: 'qa',
      key: 'traces',
      files: {
        ...qaFiles,
        'gates.yaml': qaGates.replace('traces: traces.jsonl', 'traces: in/*/traces.jsonl'),
      },
      shards: qa.map((t) => ({ 'traces.jsonl': t })),
    },
    {
      name: 'ranking',
      suite: 'r',
      key: 'run',
      files: {
        'gates.yaml': gates(
          'r',
          '    kind: ranking\n    qrels: q.qrels\n    run: in/*/r.run\n    k: 10\n    gates:\n      ndcg@10: ">= 0.5"\n',
        ),
        'q.qrels': read('examples/ranking/ferrymark.qrels'),
      },
      shards: run.map((t) => ({ 'r.run': t })),
    },
    {
      name: 'stability',
      suite: 's',
      key: 'runs',
      files: {
        'gates.yaml': gates(
          's',
          "    kind: stability\n    gold: gold.jsonl\n    runs: in/*/runs.jsonl\n    min_runs: 2\n    gates:\n      unstable_questions: '== 0'\n",
        ),
        'gold.jsonl': read('examples/stability/gold.jsonl'),
      },
      shards: stability.map((t) => ({ 'runs.jsonl': t })),
    },
    {
      name: 'consistency',
      suite: 'c',
      key: 'pairs',
      files: {
        'gates.yaml': gates(
          'c',
          "    kind: consistency\n    pairs: in/*/pairs.jsonl\n    gates:\n      agreement: '>= 0.9'\n",
        ),
      },
      shards: pairs.map((t) => ({ 'pairs.jsonl': t })),
    },
    {
      name: 'latency',
      suite: 'l',
      key: 'csv',
      files: {
        'gates.yaml': gates(
          'l',
          "    kind: latency\n    csv: in/*/l.csv\n    gates:\n      p95_ms: '<= 2000'\n",
        ),
      },
      shards: csv.map((t) => ({ 'l.csv': t })),
    },
    {
      name: 'context',
      suite: 'cx',
      key: 'predictions',
      files: {
        'gates.yaml': gates(
          'cx',
          "    kind: context\n    gold: gold.jsonl\n    predictions: in/*/p.jsonl\n    repos: repo\n    repos_layout: shared\n    gates:\n      line.f1: '>= 0.7'\n",
        ),
        'gold.jsonl': read(`${MINI_EVAL}/gold.jsonl`),
      },
      folders: { repo: `${MINI_EVAL}/repo` },
      shards: deal(lines(`${MINI_EVAL}/pred.jsonl`), (_, i) => i % 2).map((t) => ({ 'p.jsonl': t })),
    },
    {
      name: 'agent-retrieval',
      suite: 'ar',
      key: 'events',
      files: {
        'gates.yaml': gates(
          'ar',
          '    kind: agent-retrieval\n    events: in/*/*.json\n    k: [5]\n    gates:\n      file_recall: ">= 0.5"\n',
        ),
      },
      shards: [
        { [events[0]!]: read(`${eventsDir}/${events[0]}`) },
        Object.fromEntries(events.slice(1).map((f) => [f, read(`${eventsDir}/${f}`)])),
      ],
    },
  ];
}

type ByteEdit =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'set'; at: number; value: number }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'truncate'; at: number };

const byteEditArb: fc.Arbitrary<ByteEdit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }) },
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.nat(255) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function applyBytes(bytes: Buffer, edit: ByteEdit): Buffer {
  const at = edit.at % (bytes.length + (edit.kind === 'insert' || edit.kind === 'truncate' ? 1 : 0) || 1);
  switch (edit.kind) {
    case 'flip': {
      const out = Buffer.from(bytes);
      if (out.length) out[at] = out[at]! ^ (1 << edit.bit);
      return out;
    }
    case 'set': {
      const out = Buffer.from(bytes);
      if (out.length) out[at] = edit.value;
      return out;
    }
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + edit.length)]);
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), edit.bytes, bytes.subarray(at)]);
    case 'truncate':
      return bytes.subarray(0, at);
  }
}

type PartialEdit =
  | { kind: 'raw'; edits: ByteEdit[] }
  | { kind: 'header'; edits: Edit[] }
  | { kind: 'section'; pick: number; edits: Edit[]; bytes: ByteEdit[] };

const partialEditArb: fc.Arbitrary<PartialEdit> = fc.oneof(
  fc.record({
    kind: fc.constant('raw' as const),
    edits: fc.array(byteEditArb, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('header' as const),
    edits: fc.array(editArb(LOADER_JUNK), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('section' as const),
    pick: fc.nat(),
    edits: fc.array(editArb(LOADER_JUNK), { minLength: 1, maxLength: 3 }),
    bytes: fc.array(byteEditArb, { minLength: 1, maxLength: 3 }),
  }),
);

/** Writes partial `file` (a copy of `good`) changed by `edit`; true if a forger's, its sha256s made to match. */
function writeEdited(file: string, good: Buffer, suite: string, edit: PartialEdit): boolean {
  if (edit.kind === 'raw') {
    writeFileSync(file, edit.edits.reduce(applyBytes, good));
    return false;
  }
  writeFileSync(file, good);
  if (edit.kind === 'header') {
    forgeHeader(
      file,
      () => undefined,
      (json) => edit.edits.reduce((text, e) => apply(text, e, true), json),
    );
    return true;
  }
  const sections = JSON.parse(good.subarray(0, good.indexOf(10)).toString()).suites[suite].sections;
  const keys = Object.keys(sections);
  const key = keys[edit.pick % keys.length]!;
  forgeSection(file, suite, key, (bytes) => {
    // JSON sections get the loaders' edits, typed columns bytes.
    const text = bytes.toString('utf8');
    if (/^[[{]/.test(text) && Buffer.from(text, 'utf8').equals(bytes))
      return Buffer.from(
        edit.edits.reduce((t, e) => apply(t, e, true), text),
        'utf8',
      );
    return edit.bytes.reduce(applyBytes, bytes);
  });
  return true;
}

describe(`partial fuzzing with fast-check (${RUNS} inputs per kind; FUZZ_RUNS sets it)`, () => {
  for (const target of partialTargets())
    it(
      `${target.name}: damage is refused naming the partial or merges alike; forgery keeps the contract`,
      async () => {
        const dir = tmpTree(target.files);
        for (const [to, from] of Object.entries(target.folders ?? {}))
          cpSync(path.join(REPO, from), path.join(dir, to), { recursive: true });
        const config = path.join(dir, 'gates.yaml');
        for (const [k, files] of target.shards.entries()) {
          mkdirSync(path.join(dir, `in/shard-${k}`), { recursive: true });
          for (const [name, text] of Object.entries(files)) write(dir, `in/shard-${k}/${name}`, text);
          await writePartialRun(path.join(dir, `parts/${k}.partial`), {
            config,
            inputs: [{ suite: target.suite, key: target.key, path: path.join(dir, `in/shard-${k}/*`) }],
          });
        }
        const args = ['merge', 'parts/0.partial', 'parts/1.partial', '--report', 'report.json'];
        const report = path.join(dir, 'report.json');
        const merged = async () => {
          rmSync(report, { force: true });
          const o = await cli(args, dir);
          return { ...o, report: existsSync(report) ? readFileSync(report) : undefined };
        };
        const clean = await merged();
        expect(clean.stderr).toBe('');
        const good = readFileSync(path.join(dir, 'parts/0.partial'));
        const codes = new Map<string, number>();
        await fc.assert(
          fc.asyncProperty(partialEditArb, async (edit) => {
            const forged = writeEdited(path.join(dir, 'parts/0.partial'), good, target.suite, edit);
            const o = await merged();
            const input = JSON.stringify(edit, (_, v: unknown) => (v instanceof Uint8Array ? [...v] : v));
            expectClean(o, input);
            if (!forged && o.code === 2) expect(o.stderr, input).toMatch(/parts\/0\.partial/);
            if (!forged && o.code !== 2) expect(o.report?.equals(clean.report!), input).toBe(true);
            const outcome = `${edit.kind} ${o.code}`;
            codes.set(outcome, (codes.get(outcome) ?? 0) + 1);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        // Forgeries reach past the sha256s: some merge, some are refused by the values' own checks.
        expect(codes.get('raw 2') ?? 0).toBeGreaterThan(0);
        expect((codes.get('section 0') ?? 0) + (codes.get('section 1') ?? 0)).toBeGreaterThan(0);
        expect(codes.get('section 2') ?? 0).toBeGreaterThan(0);
      },
      600_000 + RUNS * 200,
    );
});

describe(`OpenInference fuzzing with fast-check (${RUNS} inputs per reader; FUZZ_RUNS sets it)`, () => {
  const traces = read('runs/qa.trace.jsonl')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TraceLine);
  const questions = new Map(
    read('gold/qa.gold.jsonl')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { qid: string; question: string })
      .map((g) => [g.qid, g.question]),
  );
  const question = (t: TraceLine) => questions.get(t.qid) ?? t.qid;
  const gates = (traces: string, qid: string) =>
    `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: ${traces}\n    format: openinference\n    openinference:\n      qid: ${qid}\n    scu: true\n    gates:\n      precision: ">= 0.5"\n`;
  // What a span's members hold where the readers are strict: int64s, nanoseconds, ISO times, indexes, parents.
  const junk = [
    ...LOADER_JUNK,
    '9007199254740993',
    '"9223372036854775808"',
    '2025-12-31T08:00:00',
    'March 7',
    '1e300',
    '00000000000000000000',
    '.100000.',
    '"intValue":"abc"',
    '"parentSpanId":"00000000000000b2",',
  ];
  const otlpTargets: (Target & { threads?: boolean })[] = [
    {
      name: 'OTLP lines (the byte scanner), on 1 and 4 threads',
      files: {
        'gates.yaml': gates('o.jsonl', 'input.value'),
        'gold.jsonl': read('gold/qa.gold.jsonl'),
        'o.jsonl': otlpLines(traces, question),
      },
      fuzzed: 'o.jsonl',
      args: ['--report', 'r.json'],
      junk,
      threads: true,
    },
    {
      name: 'an OTLP .json document (JSON.parse)',
      files: {
        'gates.yaml': gates('o.json', 'metadata.qid'),
        'gold.jsonl': read('gold/qa.gold.jsonl'),
        'o.json': JSON.stringify(
          JSON.parse(`[${otlpLines(traces, question).trimEnd().split('\n').join(',')}]`)[0],
          null,
          2,
        ),
      },
      fuzzed: 'o.json',
      args: [],
      wholeJson: true,
      junk,
    },
    {
      name: 'Phoenix spans (a .json array)',
      files: {
        'gates.yaml': gates('o.json', 'input.value'),
        'gold.jsonl': read('gold/qa.gold.jsonl'),
        'o.json': phoenixArray(traces, question),
      },
      fuzzed: 'o.json',
      args: [],
      wholeJson: true,
      junk,
    },
  ];

  /** The CLI's outcome and report, on `threads` threads (GROUNDGATE_THREADS cuts even a small input). */
  async function onThreads(target: Target, dir: string, threads: string) {
    const previous = process.env.GROUNDGATE_THREADS;
    process.env.GROUNDGATE_THREADS = threads;
    try {
      rmSync(path.join(dir, 'r.json'), { force: true });
      const o = await cli(target.args, dir);
      const report = existsSync(path.join(dir, 'r.json'))
        ? readFileSync(path.join(dir, 'r.json'), 'utf8')
        : '';
      return { ...o, report };
    } finally {
      if (previous === undefined) delete process.env.GROUNDGATE_THREADS;
      else process.env.GROUNDGATE_THREADS = previous;
    }
  }

  for (const target of otlpTargets)
    it(
      `${target.name}: exit 0, 1 or 2 with a one-line message${target.threads ? ', the same on every thread count' : ''}; never a stack trace or a hang`,
      async () => {
        const dir = tmpTree(target.files);
        const seed = target.files[target.fuzzed]!;
        const codes = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(fc.array(editArb(target.junk!), { minLength: 1, maxLength: 4 }), async (edits) => {
            const input = edits.reduce((text, e) => apply(text, e, target.wholeJson ?? false), seed);
            write(dir, target.fuzzed, input);
            const one = await onThreads(target, dir, '1');
            expectClean(one, input);
            if (target.threads) expect(await onThreads(target, dir, '4'), input.slice(0, 2000)).toEqual(one);
            codes.set(one.code, (codes.get(one.code) ?? 0) + 1);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        expect(codes.get(2) ?? 0).toBeGreaterThan(0);
        expect((codes.get(0) ?? 0) + (codes.get(1) ?? 0)).toBeGreaterThan(0);
      },
      600_000 + RUNS * 400,
    );
});

describe(`traces read through "*" (${RUNS * 10} lines; FUZZ_RUNS sets it)`, () => {
  it('the scan accepts a line on its bytes only when JSON.parse, the map and the contract do: same qid and ts', () => {
    const fields = {
      '/retrieved_ids': '/contexts/*/doc_id',
      '/answer_json/citations': '/answer_json/sources/*/id',
    };
    const scanner = mappedTraceScanner(fields, { every: true });
    const map = compileFieldMap(fields, traceShape)!;
    const found = traceFields();
    const lines = listedTraces(qaFiles['traces.jsonl']).split('\n');
    let onBytes = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(editArb(LOADER_JUNK), { minLength: 1, maxLength: 3 }), (pick, edits) => {
        const line = edits.reduce((text, e) => apply(text, e, true), lines[pick % lines.length]!);
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          parsed = undefined;
        }
        const t = parsed === undefined ? undefined : asTraceLine(map.apply(parsed));
        const b = Buffer.from(line);
        if (!scanTraceLine(b, 0, b.length, found, scanner)) {
          if (!t) refused++;
          return;
        }
        onBytes++;
        expect(t, line).toBeDefined();
        expect([scannedQid(b, found), scannedTs(b, found) ?? null], line).toEqual([t!.qid, t!.ts ?? null]);
      }),
      { numRuns: RUNS * 10, seed: SEED },
    );
    // The edits reach both sides: lines read on their bytes, and lines refused.
    expect(onBytes).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
