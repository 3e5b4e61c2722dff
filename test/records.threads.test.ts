import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { otlpScanner } from '../src/grounded-answer/spans/otlp-scan.js';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { InputError } from '../src/errors.js';
import type { GoldItem } from '../src/grounded-answer/contract.js';
import type { JudgedTrace } from '../src/grounded-answer/trace-scan.js';
import type { RunsLoad } from '../src/grounded-answer/pipeline/judged-runs.js';
import { judgeRecords, loadGold } from '../src/grounded-answer/load.js';
import { otlpSource } from '../src/grounded-answer/sources/otlp/otlp-source.js';
import { parquetSource } from '../src/grounded-answer/sources/parquet/parquet-source.js';
import { startReading } from '../src/grounded-answer/pipeline/pipeline.js';
import type { ScoreOptions } from '../src/grounded-answer/score.js';
import { runCli } from './helpers/process.js';
import { seeded } from './helpers/random.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { parquetGold, parquetTraces } from './helpers/formats.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// Traces read as records, on threads: OpenInference traces in OTLP lines, each thread assembling the traces
// of its chunks and the main thread again those whose spans are in several chunks (or files); Parquet rows,
// each thread decoding windows of rows. Checked against the one-pass reader (judgeRecords) in process, on
// random inputs, and on the bundle (dist/qa-worker) as users run it: the same report whatever the threads,
// and the same first error.

/** Lines read back by their offsets (see forEachSpan), counted: reading them again must not grow with traces. */
const readBack = vi.hoisted(() => ({ lines: 0 }));
vi.mock('../src/io/read-at.js', async (original) => {
  const real = await original<typeof import('../src/io/read-at.js')>();
  return {
    ...real,
    forEachSpan: (...args: Parameters<typeof real.forEachSpan>) => {
      readBack.lines += args[1].length;
      return real.forEachSpan(...args);
    },
  };
});

const rnd = seeded(4711);
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const gold = Array.from({ length: 120 }, (_, i) => ({
  qid: `Q${i}`,
  question: `question ${i}?`,
  answerable: i % 7 !== 0,
  gold_claim_substr: i % 7 !== 0 ? [`fact number ${i}`] : [],
  gold_citations: i % 7 !== 0 ? [`d${i}`] : [],
}));

interface Run {
  qid: string;
  ts: number;
  ids: string[];
  claim: string;
  citations: string[];
}
const run = (): Run => {
  const i = int(0, 130); // past 119: qids not in gold
  return {
    qid: `Q${i}`,
    ts: 1_767_225_600 + int(1, 4), // few distinct times: ties, decided by the order of traces
    ids: [`d${int(0, 130)}`, `d${i}`, `d${int(0, 130)}`],
    claim: rnd() < 0.1 ? 'not in context' : `It is fact number ${rnd() < 0.7 ? i : i + 1}.`,
    citations: rnd() < 0.8 ? [`d${i}`] : ['d-none'],
  };
};

const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
const ns = (s: number, plusMs = 0) => `${BigInt(s) * 1_000_000_000n + BigInt(plusMs) * 1_000_000n}`;

/**
 * A trace's spans: the root CHAIN (qid in metadata, the answer as its output: JSON, or with `text` the claim
 * alone) first, then a RETRIEVER (with `short`, its documents after the first left out) and an LLM.
 */
function spansOf(r: Run, n: number, options: Variant = {}) {
  const traceId = n.toString(16).padStart(32, '0');
  const span = (id: string, parent: string | undefined, kind: string, at: number, attributes: object[]) => ({
    traceId,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name: kind.toLowerCase(),
    startTimeUnixNano: ns(r.ts, at),
    endTimeUnixNano: ns(r.ts, at + 100 + n),
    attributes: [attr('openinference.span.kind', kind), ...attributes],
  });
  return [
    span('a1', undefined, 'CHAIN', 0, [
      attr('input.value', `question about ${r.qid}`),
      attr(
        'output.value',
        options.text ? r.claim : JSON.stringify({ claim: r.claim, citations: r.citations }),
      ),
      attr('metadata', JSON.stringify(options.qid === false ? {} : { qid: r.qid })),
    ]),
    span(
      'b2',
      'a1',
      'RETRIEVER',
      1,
      r.ids.flatMap((id, k) =>
        options.short && k >= 1 ? [] : [attr(`retrieval.documents.${k}.document.id`, id)],
      ),
    ),
    span('c3', 'a1', 'LLM', 2, [attr('output.value', 'ignored: the root has an output')]),
  ];
}

const exportLine = (spans: object[]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] });

/**
 * The spans of `runs` as export lines in two files: each trace's root in run order (the order of traces
 * is that of their first span), the other spans later, some many lines later or in the other file, some
 * lines holding spans of several traces, and blank lines here and there.
 */
interface Variant {
  qid?: boolean;
  text?: boolean;
  short?: boolean;
}

function layout(runs: readonly Run[], broken: Map<number, Variant> = new Map()): [string, string] {
  const slots: object[][] = runs.map(() => []);
  runs.forEach((r, n) => {
    const [root, ...rest] = spansOf(r, n + 1, broken.get(n));
    slots[n]!.push(root!);
    for (const s of rest) {
      const later = rnd() < 0.7 ? n : Math.min(runs.length - 1, n + int(0, rnd() < 0.2 ? runs.length : 30));
      slots[later]!.push(s);
    }
  });
  const lines = slots.map((spans) => (spans.length ? exportLine(spans) : '') + (rnd() < 0.03 ? '\n' : ''));
  const cut = Math.floor(lines.length / 2);
  return [lines.slice(0, cut).join('\n') + '\n', lines.slice(cut).join('\n') + '\n'];
}

const OPTIONS: ScoreOptions = {
  refusalToken: 'not in context',
  scuRules: null,
  cutoffs: [1, 3],
  traces: { format: 'openinference', qid: 'metadata.qid' },
};

/**
 * What a RunsLoad says about every gold row, to compare two of them whole. (Where a run is kept, its chunk
 * and offset, means another thing to each reader: the winners and their places are compared instead.)
 */
async function summary(load: RunsLoad, rows: number, positions = true) {
  const t = load.table;
  const columns = [t.present, t.ts, t.flags, t.recall, t.upper, t.rule, t.line];
  const all = Array.from({ length: rows }, (_, row) => row);
  const records = await load.records?.(all);
  return {
    lines: load.lines,
    superseded: load.superseded,
    unknown: [...load.unknown],
    table: (positions ? [...columns, t.file, t.ordinal] : columns).map((a) => [...a]),
    rows: all.map((row) => [load.ref(row), judged(records?.get(row)), load.labels(row)]),
  };
}

/** What judging and the offenders read of a run held in memory (all a reader need keep of it). */
function judged(t: JudgedTrace | undefined) {
  if (!t) return t;
  const { claim, citations, constraints_echo } = t.answer_json;
  return { retrieved_ids: t.retrieved_ids, answer_json: { claim, citations, constraints_echo } };
}

/** The one-pass reader's outcome and the threaded one's (`start`), on the same files: a load or an error. */
async function both(
  files: string[],
  start: (items: GoldItem[]) => Promise<RunsLoad>,
  options: ScoreOptions = OPTIONS,
  positions = true,
) {
  const { items } = await loadGold([goldFile]);
  const settle = (p: Promise<RunsLoad>) =>
    p.then(
      async (load) => ({ load: await summary(load, items.length, positions) }),
      (err: unknown) => {
        if (!(err instanceof InputError)) throw err;
        return { error: err.message };
      },
    );
  const onePass = await settle(judgeRecords(files, items, options));
  // Without a worker bundle (run from sources) this thread reads every chunk: 8 a thread, as many as 24.
  vi.stubEnv('GROUNDGATE_THREADS', '3');
  try {
    return { onePass, chunked: await settle(start(items)) };
  } finally {
    vi.unstubAllEnvs();
  }
}

const otlp = (files: string[]) => (items: GoldItem[]) =>
  startReading(otlpSource, files, OPTIONS).finish(items);

const dir = tmpTree({ 'gold.jsonl': jsonl(gold) });
const goldFile = path.join(dir, 'gold.jsonl');

describe('OpenInference traces read chunk by chunk', () => {
  it('judge every random layout of the spans as the one-pass reader does', async () => {
    for (let round = 0; round < 12; round++) {
      const [a, b] = layout(Array.from({ length: int(1, 400) }, run));
      const files = [path.join(dir, `a${round}.jsonl`), path.join(dir, `b${round}.jsonl`)];
      writeFileSync(files[0]!, a);
      writeFileSync(files[1]!, b);
      const { onePass, chunked } = await both(files, otlp(files));
      expect(onePass).toHaveProperty('load');
      expect(chunked).toEqual(onePass);
    }
  });

  it('read the winners back from their places as the one-pass reader does: a BOM, text answers, short document lists, lines past the first MB', async () => {
    const runs = Array.from({ length: 3000 }, run);
    const variants = new Map(runs.map((_, n) => [n, { text: rnd() < 0.3, short: rnd() < 0.2 }]));
    const [a, b] = layout(runs, variants);
    const files = [path.join(dir, 'pa.jsonl'), path.join(dir, 'pb.jsonl')];
    writeFileSync(files[0]!, '\ufeff' + a);
    writeFileSync(files[1]!, b);
    expect(Buffer.byteLength(a)).toBeGreaterThan(1024 * 1024);
    const { onePass, chunked } = await both(files, otlp(files));
    expect(onePass).toHaveProperty('load');
    expect(chunked).toEqual(onePass);
  });

  it('name the same first error: a trace without its qid, its root in another file than its first span', async () => {
    const runs = Array.from({ length: 200 }, run);
    const [a, b] = layout(runs, new Map([[150, { qid: false }]]));
    // The trace's first span, moved to the first file, comes before its root in the second.
    const lines = b.split('\n');
    const at = lines.findIndex((l) => l.includes(`"traceId":"${(151).toString(16).padStart(32, '0')}"`));
    const files = [path.join(dir, 'qa.jsonl'), path.join(dir, 'qb.jsonl')];
    writeFileSync(
      files[0]!,
      a +
        exportLine([
          { ...spansOf(runs[150]!, 151)[2], spanId: 'c9', traceId: (151).toString(16).padStart(32, '0') },
        ]) +
        '\n',
    );
    writeFileSync(files[1]!, b);
    const { onePass, chunked } = await both(files, otlp(files));
    expect(onePass).toEqual({
      error: `${files[1]}:${at + 1}: trace "${(151).toString(16).padStart(32, '0')}": its root span "chain" has no metadata.qid; expected the question id (see openinference.qid)`,
    });
    expect(chunked).toEqual(onePass);
  });

  it('put an error reading spans before any error assembling a trace, wherever each is', async () => {
    const runs = Array.from({ length: 100 }, run);
    const [a, b] = layout(runs, new Map([[3, { qid: false }]]));
    const files = [path.join(dir, 'ra.jsonl'), path.join(dir, 'rb.jsonl')];
    writeFileSync(files[0]!, a);
    writeFileSync(files[1]!, b + '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]}\n');
    const { onePass, chunked } = await both(files, otlp(files));
    expect(onePass).toEqual({
      error: `${files[1]}:${b.split('\n').length}: span "x" has no traceId; expected OTLP "traceId" or Phoenix "context.trace_id"`,
    });
    expect(chunked).toEqual(onePass);
  });
});

describe('OpenInference traces on several threads (dist)', () => {
  const runs = Array.from({ length: 3000 }, run);
  const [a, b] = layout(runs);
  const gates = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*.jsonl
    format: openinference
    openinference: { qid: metadata.qid }
    gates:
      precision: '>= 0.5'
`;
  const canonical = jsonl(
    runs.map((r) => ({
      qid: r.qid,
      ts: r.ts,
      retrieved_ids: r.ids,
      answer_json: { claim: r.claim, citations: r.citations },
    })),
  );
  const tree = tmpTree({
    'gates.yaml': gates,
    'canonical.yaml': gates.replace(/traces: .*\n.*\n.*\n/, 'traces: canonical.jsonl\n'),
    'gold.jsonl': jsonl(gold),
    'traces/a.jsonl': a,
    'traces/b.jsonl': b,
    'canonical.jsonl': canonical,
  });

  it('writes the same report on 1, 2, 3 and 7 threads, with the metrics of the same runs as JSON Lines', () => {
    const check = (config: string, threads: string, report: string) =>
      runCli(['check', '-c', config, '--report', report, '--offenders', '40'], tree, {
        GROUNDGATE_THREADS: threads,
      });
    const one = check('gates.yaml', '1', 'one.json');
    expect([one.status, one.stderr]).toEqual([1, '']);
    const read = (f: string) => readFileSync(path.join(tree, f), 'utf8');
    for (const threads of ['2', '3', '7']) {
      const many = check('gates.yaml', threads, `many-${threads}.json`);
      expect(many.stdout).toBe(one.stdout);
      expect(read(`many-${threads}.json`)).toBe(read('one.json'));
    }
    expect(check('canonical.yaml', '1', 'canonical.json').status).toBe(1);
    const suite = (f: string) =>
      (JSON.parse(read(f)) as { suites: { qa: { metrics: unknown; counts: unknown } } }).suites.qa;
    expect(suite('one.json').metrics).toEqual(suite('canonical.json').metrics);
    expect(suite('one.json').counts).toEqual(suite('canonical.json').counts);
    expect(suite('one.json').counts).toMatchObject({ trace_lines: 3000, gold: 120 });
  }, 60_000);
});

/** Runs as canonical trace lines, some without ts (ties and absent times are decided by order). */
const lines = (runs: readonly Run[]) =>
  runs.map((r) => ({
    qid: r.qid,
    ...(rnd() < 0.1 ? {} : { ts: r.ts }),
    retrieved_ids: r.ids,
    answer_json: { claim: r.claim, citations: r.citations },
  }));

describe('Parquet traces read window by window', () => {
  const options: ScoreOptions = { ...OPTIONS, traces: { format: 'jsonl', qid: 'input.value' } };
  const parquet = (files: string[]) => (items: GoldItem[]) =>
    startReading(parquetSource, files, options).finish(items);

  it('judge random runs in two files as the one-pass reader does', async () => {
    for (let round = 0; round < 8; round++) {
      const files = [path.join(dir, `p${round}a.parquet`), path.join(dir, `p${round}b.parquet`)];
      writeFileSync(files[0]!, parquetTraces(lines(Array.from({ length: int(0, 300) }, run))));
      writeFileSync(files[1]!, parquetTraces(lines(Array.from({ length: int(1, 300) }, run))));
      const { onePass, chunked } = await both(files, parquet(files), options, false);
      expect(onePass).toHaveProperty('load');
      expect(chunked).toEqual(onePass);
    }
  });

  it('name the first bad row in file order, whichever window holds a later one', async () => {
    const rows = lines(Array.from({ length: 400 }, run));
    const bad = rows.map((r, i) =>
      i === 250
        ? { ...r, retrieved_ids: null, answer_json: { claim: 7 } }
        : i === 390
          ? { ...r, qid: '' }
          : r,
    );
    const files = [path.join(dir, 'bad.parquet')];
    writeFileSync(files[0]!, parquetTraces(bad as never));
    const { onePass, chunked } = await both(files, parquet(files), options, false);
    expect(onePass).toEqual({ error: expect.stringMatching(new RegExp(`^${files[0]} row 251: `)) });
    expect(chunked).toEqual(onePass);
  });
});

describe('Parquet traces on several threads (dist)', () => {
  const runs = Array.from({ length: 3000 }, run);
  const rows = lines(runs);
  const gates = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*.parquet
    gates:
      precision: '>= 0.5'
`;
  const tree = tmpTree({
    'gates.yaml': gates,
    'canonical.yaml': gates.replace('traces/*.parquet', 'canonical.jsonl'),
    'gold.jsonl': jsonl(gold),
    'canonical.jsonl': jsonl(rows),
  });
  mkdirSync(path.join(tree, 'traces'));
  writeFileSync(path.join(tree, 'traces', 'a.parquet'), parquetTraces(rows.slice(0, 1700)));
  writeFileSync(path.join(tree, 'traces', 'b.parquet'), parquetTraces(rows.slice(1700)));

  it('writes the same report on 1, 2, 3 and 7 threads, with the metrics of the same rows as JSON Lines', () => {
    const check = (config: string, threads: string, report: string) =>
      runCli(['check', '-c', config, '--report', report, '--offenders', '40'], tree, {
        GROUNDGATE_THREADS: threads,
      });
    const canonical = check('canonical.yaml', '1', 'canonical.json');
    const one = check('gates.yaml', '1', 'one.json');
    expect([one.status, one.stderr]).toEqual([canonical.status, '']);
    const read = (f: string) => readFileSync(path.join(tree, f), 'utf8');
    for (const threads of ['2', '3', '7']) {
      const many = check('gates.yaml', threads, `many-${threads}.json`);
      expect(many.stdout).toBe(one.stdout);
      expect(read(`many-${threads}.json`)).toBe(read('one.json'));
    }
    const suite = (f: string) =>
      (JSON.parse(read(f)) as { suites: { qa: { metrics: unknown; counts: unknown } } }).suites.qa;
    expect(suite('one.json').metrics).toEqual(suite('canonical.json').metrics);
    expect(suite('one.json').counts).toEqual(suite('canonical.json').counts);
    expect(suite('one.json').counts).toMatchObject({ trace_lines: 3000, gold: 120 });
  }, 60_000);

  // Helpers check the JSON columns on their bytes and parse only the winners; one thread parses every row.
  // Answers the bytes check refuses but the contract takes (a null in a member the contract does not name;
  // nesting past its depth) go the long way, and a row of the wrong type fails with the same first error.
  const odd = rows.map((r, i) => {
    const answer: Record<string, unknown> = { ...r.answer_json };
    if (i % 5 === 0) answer.note = null;
    if (i % 7 === 0) answer.claim = `${answer.claim as string} "quoted" \\ é 漢字 😀 \u2028 end`;
    if (i % 11 === 0) answer.extra = { deep: [null, 1.5, 'x'], Claim: 'not the claim' };
    if (i % 13 === 0) answer.nested = JSON.parse('['.repeat(70) + ']'.repeat(70)) as unknown;
    return { ...r, answer_json: answer };
  });
  const oddTree = (rows: readonly object[]) => {
    const t = tmpTree({ 'gates.yaml': gates, 'gold.jsonl': jsonl(gold) });
    mkdirSync(path.join(t, 'traces'));
    writeFileSync(path.join(t, 'traces', 'a.parquet'), parquetTraces(rows.slice(0, 1700) as never));
    writeFileSync(path.join(t, 'traces', 'b.parquet'), parquetTraces(rows.slice(1700) as never));
    return t;
  };
  const onThreads = (t: string, threads: string) => {
    const r = runCli(['check', '--report', `r${threads}.json`, '--offenders', '40'], t, {
      GROUNDGATE_THREADS: threads,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('answers the bytes check refuses, and rows of the wrong type, read on threads as on one', () => {
    const t = oddTree(odd);
    const one = onThreads(t, '1');
    expect(one.stderr).toBe('');
    expect(onThreads(t, '3')).toEqual(one);
    expect(readFileSync(path.join(t, 'r3.json'), 'utf8')).toBe(readFileSync(path.join(t, 'r1.json'), 'utf8'));
    for (const [at, bad, error] of [
      [2500, { citations: [1] }, /b\.parquet row 801: field "answer_json\.citations\[0\]"/],
      [2600, { claim: 7 }, /b\.parquet row 901: field "answer_json\.claim"/],
    ] as const) {
      const broken = odd.map((r, i) =>
        i === at
          ? { ...r, answer_json: { ...r.answer_json, ...bad } }
          : i === at + 50
            ? { ...r, qid: '' }
            : r,
      );
      const bt = oddTree(broken);
      const first = onThreads(bt, '1');
      expect([first.status, first.stderr]).toEqual([2, expect.stringMatching(error)]);
      expect(onThreads(bt, '3')).toEqual(first);
    }
    // A JSON column whose value is JSON's null (as DuckDB or pyarrow may write it; hyparquet-writer writes a
    // Parquet null, so the bytes are put in by hand): the row leaves the member out, on threads as on one.
    const nullJson = (at: number, column: 'reason' | 'answer_json') => {
      const file = Buffer.from(
        parquetWriteBuffer({
          codec: 'UNCOMPRESSED',
          columnData: [
            { name: 'qid', data: rows.map((r) => r.qid), type: 'STRING' },
            { name: 'retrieved_ids', data: rows.map((r) => r.retrieved_ids) },
            {
              name: 'answer_json',
              data: rows.map((r, i) => (column === 'answer_json' && i === at ? 'ZZZZZZ' : r.answer_json)),
              type: 'JSON',
            },
            { name: 'reason', data: rows.map((_, i) => (i === at ? 'ZZZZZZ' : 'why')), type: 'JSON' },
          ],
          rowGroupSize: 16,
        }),
      );
      const marker = Buffer.from('"ZZZZZZ"');
      for (let k = file.indexOf(marker); k >= 0; k = file.indexOf(marker, k + 1))
        Buffer.from('null    ').copy(file, k);
      const t = tmpTree({ 'gates.yaml': gates, 'gold.jsonl': jsonl(gold) });
      mkdirSync(path.join(t, 'traces'));
      writeFileSync(path.join(t, 'traces', 'a.parquet'), file);
      return t;
    };
    const reasonNull = nullJson(7, 'reason');
    const oneNull = onThreads(reasonNull, '1');
    expect([oneNull.status, oneNull.stderr]).toEqual([0, '']);
    expect(onThreads(reasonNull, '3')).toEqual(oneNull);
    expect(readFileSync(path.join(reasonNull, 'r3.json'), 'utf8')).toBe(
      readFileSync(path.join(reasonNull, 'r1.json'), 'utf8'),
    );
    const answerNull = nullJson(2900, 'answer_json');
    const missing = onThreads(answerNull, '1');
    expect([missing.status, missing.stderr]).toEqual([
      2,
      expect.stringMatching(/a\.parquet row 2901: missing field "answer_json"/),
    ]);
    expect(onThreads(answerNull, '3')).toEqual(missing);
    const noQid = oddTree(odd.map((r, i) => (i === 2000 ? { ...r, qid: '' } : r)));
    const first = onThreads(noQid, '1');
    expect([first.status, first.stderr]).toEqual([
      2,
      expect.stringMatching(/b\.parquet row 301: field "qid"/),
    ]);
    expect(onThreads(noQid, '3')).toEqual(first);
  }, 60_000);
});

describe('what a review found (each failed before its fix)', () => {
  it('reads a line shared by many traces cut by chunks once, not once a trace', async () => {
    // Three export lines of 1.2 MB (each its own chunk): line k holds span k of each of 600 traces.
    const runs = Array.from({ length: 600 }, run);
    const pad = attr('llm.prompt', 'x'.repeat(2_000));
    const spans = runs.map((r, n) =>
      spansOf(r, n + 1).map((x) => ({ ...x, attributes: [...x.attributes, pad] })),
    );
    const file = path.join(dir, 'batched.jsonl');
    writeFileSync(file, [0, 1, 2].map((k) => exportLine(spans.map((t) => t[k]!))).join('\n') + '\n');
    const { items } = await loadGold([goldFile]);
    vi.stubEnv('GROUNDGATE_THREADS', '');
    try {
      readBack.lines = 0;
      const load = await otlp([file])(items);
      expect(readBack.lines).toBeLessThanOrEqual(6); // the three lines, for the cut traces and the winners
      expect(await summary(load, items.length)).toEqual(
        await summary(await judgeRecords([file], items, OPTIONS), items.length),
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('names a bad row of the first Parquet file before a second file that is not Parquet', async () => {
    const options: ScoreOptions = { ...OPTIONS, traces: { format: 'jsonl', qid: 'input.value' } };
    const files = [path.join(dir, 'first.parquet'), path.join(dir, 'second.parquet')];
    const rows = lines(Array.from({ length: 5 }, run));
    writeFileSync(files[0]!, parquetTraces([rows[0]!, { ...rows[1]!, qid: '' }] as never));
    writeFileSync(files[1]!, 'not a parquet file at all, just text');
    const { onePass, chunked } = await both(
      files,
      (items) => startReading(parquetSource, files, options).finish(items),
      options,
      false,
    );
    expect(onePass).toEqual({ error: expect.stringMatching(/first\.parquet row 2: field "qid"/) });
    expect(chunked).toEqual(onePass);
  });

  it('the OTLP scanner gives the facts JSON.parse does, or leaves the line to it', () => {
    const line = (extra: object, attributes: object[]) =>
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: 't',
                    spanId: 's',
                    startTimeUnixNano: '1000000',
                    endTimeUnixNano: '2000000',
                    attributes,
                    ...extra,
                  },
                ],
              },
            ],
          },
        ],
      });
    const doc = (n: string, id: string) => ({
      key: `retrieval.documents.${n}.document.id`,
      value: { stringValue: id },
    });
    for (const [text, qidAttribute] of [
      [line({ parent_id: 'p' }, []), undefined], // Phoenix's name for the parent
      [line({ span_kind: 'RETRIEVER' }, [doc('0', 'x')]), undefined], // and for the kind
      [line({}, [{ key: 'session.id', value: { intValue: true } }]), 'session.id'], // Number(true) is 1
      [line({}, [doc('0', 'x'), doc('00', 'y'), doc('0', 'z')]), undefined], // one document, two keys
    ] as const) {
      const b = Buffer.from(text);
      const fast = otlpScanner(qidAttribute)(b, 0, b.length, 1, 'f');
      if (fast) expect(fast).toEqual(spanFacts(JSON.parse(text), 'f', 1, qidAttribute));
    }
  });
});

describe('a Parquet file whose decoding never ends (dist)', () => {
  // hyparquet 1.33 loops without end on a run-length header of zero width: in this file (fixed rows, two
  // columns, groups of 16) the byte at offset 8 flipped makes one. Gold and traces may come from a fork.
  const rows = Array.from({ length: 40 }, (_, i) => ({ qid: `Q${i % 10}`, ids: [`d${i}`, `d${i + 1}`] }));
  const file = Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: 'qid', data: rows.map((r) => r.qid), type: 'STRING' },
        { name: 'retrieved_ids', data: rows.map((r) => r.ids) },
      ],
      rowGroupSize: 16,
    }),
  );
  file[8] = file[8]! ^ 0xff;
  const tree = tmpTree({
    'gold.jsonl': jsonl(gold),
    'traces.jsonl': jsonl(lines(Array.from({ length: 5 }, run))),
    'traces.yaml':
      'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: loops.parquet\n',
    'gold.yaml':
      'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: loops.parquet\n    traces: traces.jsonl\n',
  });
  writeFileSync(path.join(tree, 'loops.parquet'), file);

  it('is stopped after GROUNDGATE_DECODE_SECONDS: one line naming the rows, exit 2, as gold or traces, on one thread or several', () => {
    for (const [config, threads] of [
      ['traces.yaml', ''],
      ['traces.yaml', '3'],
      ['gold.yaml', ''],
    ] as const) {
      const r = runCli(['check', '-c', config], tree, {
        GROUNDGATE_DECODE_SECONDS: '2',
        GROUNDGATE_THREADS: threads,
      });
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toBe(
        'groundgate: loops.parquet row 1: the rows from here were not decoded within 2 s; expected a Parquet file that decodes (a corrupt page can make the decoder loop; GROUNDGATE_DECODE_SECONDS sets the limit)\n',
      );
    }
  }, 60_000);

  it('gives a result or one line naming the file, exit 2, for any byte of a gold or trace file corrupted', () => {
    // Bytes anywhere: the pages, and the footer's metadata (schema, row counts, offsets) at the file's end.
    const flips = seeded(20261126);
    const files = {
      'gold.yaml': parquetGold(gold),
      'traces.yaml': parquetTraces(lines(Array.from({ length: 40 }, run))),
    };
    const seen = new Set<number>();
    for (const [config, good] of Object.entries(files)) {
      for (let n = 0; n < 16; n++) {
        const bad = Buffer.from(good);
        const at = n < 8 ? Math.floor(flips() * bad.length) : bad.length - 9 - Math.floor(flips() * 200);
        bad[at] = bad[at]! ^ (1 + Math.floor(flips() * 255));
        writeFileSync(path.join(tree, 'loops.parquet'), bad);
        const r = runCli(['check', '-c', config], tree, { GROUNDGATE_DECODE_SECONDS: '2' });
        const context = `${config}: byte ${at} of ${bad.length}`;
        expect([0, 1, 2], context).toContain(r.status);
        if (r.status === 2) expect(r.stderr, context).toMatch(/^groundgate: loops\.parquet[ :][^\n]*\n$/);
        else expect(r.stderr, context).toBe('');
        seen.add(r.status!);
      }
    }
    expect([...seen].sort()).toContain(2);
  }, 240_000);

  it('names a corrupt page as one thread does under GROUNDGATE_THREADS (windows of whole row groups)', () => {
    const good = parquetTraces(lines(Array.from({ length: 40 }, run)));
    let decodeErrors = 0;
    for (let at = 4; at < 200; at += 13) {
      const bad = Buffer.from(good);
      bad[at] = bad[at]! ^ 0xff;
      writeFileSync(path.join(tree, 'loops.parquet'), bad);
      const [one, many] = ['1', '3'].map((threads) =>
        runCli(['check', '-c', 'traces.yaml'], tree, {
          GROUNDGATE_DECODE_SECONDS: '2',
          GROUNDGATE_THREADS: threads,
        }),
      );
      if (one!.stderr.includes('cannot decode rows')) decodeErrors++;
      expect([many!.status, many!.stderr]).toEqual([one!.status, one!.stderr]);
    }
    expect(decodeErrors).toBeGreaterThan(0);
  }, 120_000);
});
