import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { forEachLine, idsInFile, MAX_IDS } from '../src/init/ids.js';
import { toolExport } from '../src/init/tool-exports.js';
import { gatesOf, qaRepo, init } from './helpers/init.js';
import { expectSameAsCanonical } from './helpers/shapes.js';
import { FIXTURES, jsonl, tmpTree } from './helpers/tmp.js';

// `groundgate init`'s plumbing (issue #55, point 5): files paired by the ids of the whole files, latency
// without the grounded-answer shape, dry-run errors that point at the text, Langfuse and LangSmith exports.

/**
 * 30 queries: the run ranks 10 docs each, sorted by qid; the qrels judge 5 docs each, sorted the other way
 * round, so the first 20 lines of each share no qid.
 */
function trecRepo() {
  const run: string[] = [];
  const qrels: string[] = [];
  for (let q = 1; q <= 30; q++)
    for (let r = 1; r <= 10; r++) run.push(`${q} Q0 d${q}-${r} ${r} ${(11 - r) / 10} bm25`);
  for (let q = 30; q >= 1; q--)
    for (let r = 1; r <= 5; r++)
      qrels.push(`${q} 0 d${q}-${((q + 2 * r) % 10) + 1} ${(q + r) % 3 === 0 ? 1 : 0}`);
  return tmpTree({ 'eval/bm25.run': `${run.join('\n')}\n`, 'eval/judged.qrels': `${qrels.join('\n')}\n` });
}

describe('init pairs files by the ids of the whole files', () => {
  it('pairs qrels with the run over their queries however either is sorted, and counts every line', async () => {
    const dir = trecRepo();
    const r = await init(dir, '--dry-run');
    expect(r.err, r.out).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain(
      '  eval/bm25.run: ranked run: 300 lines of a TREC run (qid Q0 docid rank score tag)\n',
    );
    expect(r.out).toContain(
      '  eval/judged.qrels: relevance judgments (qrels): 150 lines of TREC qrels (qid iter docid rel)\n',
    );
    expect(r.out).toContain('  retrieval (ranking): eval/judged.qrels + eval/bm25.run\n');
  });

  it('pairs a gold set with traces whose first records answer other questions', async () => {
    const gold = [];
    const traces = [];
    for (let i = 1; i <= 50; i++) {
      gold.push({
        qid: `q${i}`,
        question: `What is fact ${i}?`,
        answerable: true,
        gold_claim_substr: [`fact ${i}`],
        gold_citations: [`doc${i}`],
      });
      traces.push({
        qid: `q${51 - i}`,
        retrieved_ids: [`doc${51 - i}`],
        answer_json: { claim: `fact ${51 - i}`, citations: [`doc${51 - i}`] },
      });
    }
    const dir = tmpTree({ 'gold.jsonl': jsonl(gold), 'traces.jsonl': jsonl(traces) });
    const r = await init(dir);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain('  qa (grounded-qa): gold.jsonl + traces.jsonl\n');
    expect(gatesOf(dir).suites.qa!.traces).toBe('traces.jsonl');
  });
});

describe('ids of a whole file', () => {
  it('reads lines across chunk boundaries: a character cut by one, CRLF, a BOM, no final newline', () => {
    // The first megabyte ends inside the 3-byte character that ends the second line.
    const first = 'x'.repeat(100);
    const second = `${'é'.repeat((1 << 20) / 2 - 53)}€`;
    const dir = tmpTree({});
    const file = path.join(dir, 'lines.txt');
    writeFileSync(file, `\uFEFF${first}\r\n${second}\n\n  \nlast`);
    const lines: string[] = [];
    forEachLine(file, (l) => lines.push(l));
    expect(lines).toEqual([first, second, 'last']);
  });

  it('skips a line longer than the loaders take, and reads on', () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'long.jsonl');
    writeFileSync(file, `{"qid":"a"}\n${'y'.repeat(17 * (1 << 20))}\n{"qid":"b"}\n`);
    const lines: number[] = [];
    forEachLine(file, (l) => lines.push(l.length));
    expect(lines).toEqual([11, 11]);
  });

  it(`keeps the first ${MAX_IDS} distinct ids and counts every line`, () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'many.qrels');
    const rows: string[] = [];
    for (let i = 0; i < MAX_IDS + 5; i++) rows.push(`q${i} 0 d 1`);
    // A repeated qid counts as a line, not as an id.
    rows.push('q0 0 e 1');
    writeFileSync(file, `${rows.join('\n')}\n`);
    const got = idsInFile(file, (l) => l.split(' ')[0]);
    expect(got.lines).toBe(MAX_IDS + 6);
    expect(got.ids.length).toBe(MAX_IDS);
    expect(got.ids[0]).toBe('q0');
    expect(got.ids.at(-1)).toBe(`q${MAX_IDS - 1}`);
  });
});

describe('errors in the gates init would write', () => {
  it('name the proposed text, shown with its line numbers, not a file that is not there', async () => {
    const dir = qaRepo();
    const r = await init(
      dir,
      '--dry-run',
      '--suite',
      'grounded-qa',
      '--gold',
      path.join(dir, 'gold/qa.gold.jsonl'),
      '--traces',
      path.join(dir, 'runs/qa.trace.jsonl'),
      '-i',
      'k=abc',
    );
    expect(r.err).toBe(
      `groundgate: ${dir}/gates.yaml (proposed, not written):13:8: suite "qa": k: expected number, received string\n`,
    );
    expect(r.status).toBe(2);
    const shown = r.out.split('\n');
    expect(shown[0]).toBe('--- gates.yaml (proposed, not written), at the error:');
    expect(shown.slice(11, 16)).toEqual([
      ' 11 |     gold: gold/qa.gold.jsonl',
      ' 12 |     traces: runs/qa.trace.jsonl',
      '>13 |     k: abc',
      ' 14 |     gates: {}',
      '',
    ]);
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
  });

  it('with --force, name the proposal rather than the gates file it replaces', async () => {
    const dir = qaRepo();
    writeFileSync(path.join(dir, 'gates.yaml'), 'version: 1\nsuites: {}\n');
    const r = await init(
      dir,
      '--force',
      '--suite',
      'grounded-qa',
      '--gold',
      path.join(dir, 'gold/qa.gold.jsonl'),
      '--traces',
      path.join(dir, 'runs/qa.trace.jsonl'),
      '-i',
      'k=[1, 2000000]',
    );
    expect(r.err).toBe(
      `groundgate: ${dir}/gates.yaml (proposed, not written):14:7: suite "qa": k: expected number, received array\n`,
    );
    expect(r.out).toContain('\n 13 |     k:\n>14 |       - 1\n 15 |       - 2000000\n');
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toBe('version: 1\nsuites: {}\n');
  });

  it('a refusal rule typed with -i that is not one is an error at its line, not a crash', async () => {
    const dir = qaRepo();
    const r = await init(
      dir,
      '--dry-run',
      '--suite',
      'grounded-qa',
      '--gold',
      path.join(dir, 'gold/qa.gold.jsonl'),
      '--traces',
      path.join(dir, 'runs/qa.trace.jsonl'),
      '-i',
      'refusal={phrases: 3}',
    );
    expect(r.err).toBe(
      `groundgate: ${dir}/gates.yaml (proposed, not written):14:16: suite "qa": refusal.phrases: expected array, received number\n`,
    );
    expect(r.status).toBe(2);
  });
});

describe('a latency suite over JSON Lines reads only qid and latency_ms', () => {
  const gates = (suite: string) => `version: 1\nsuites:\n  lat:\n    kind: latency\n${suite}`;

  it('scores lines that hold a qid and a time and nothing of an answer', async () => {
    // 100 200 300 400 → P50 h = 1.5 → 250; P90 h = 2.7 → 370. The untimed line is counted, not scored.
    const dir = tmpTree({
      'gates.yaml': gates('    traces: requests.jsonl\n    percentiles: [50, 90]\n'),
      'requests.jsonl': jsonl([
        { qid: 'a', latency_ms: 300 },
        { qid: 'b', latency_ms: 100, route: 'cache' },
        { qid: 'c' },
        { qid: 'd', latency_ms: 400 },
        { qid: 'a', latency_ms: 200 },
      ]),
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    const lat = report.suites.lat!;
    expect(lat.metrics.p50_ms).toEqual({ value: 250 });
    expect(lat.metrics.p90_ms).toEqual({ value: 370 });
    expect(lat.counts).toEqual({ samples: 4, requests: 4, configurations: 1, untimed_lines: 1 });
  });

  it('reads them through fields:, and names a line without a qid as a timed request', async () => {
    const dir = tmpTree({
      'gates.yaml': gates(
        '    traces: requests.jsonl\n    percentiles: [50]\n    fields:\n      traces:\n        /qid: /request_id\n        /latency_ms: {from: /duration_s, scale: 1000}\n',
      ),
      'requests.jsonl': jsonl([
        { request_id: 'r1', duration_s: 0.25 },
        { request_id: 'r2', duration_s: 1.5 },
      ]),
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    // 250 and 1500 ms → P50 = 875.
    expect(report.suites.lat!.metrics.p50_ms).toEqual({ value: 875 });
    writeFileSync(
      path.join(dir, 'requests.jsonl'),
      jsonl([{ request_id: 'r1', duration_s: 0.25 }, { duration_s: 2 }]),
    );
    await expect(run({ config: path.join(dir, 'gates.yaml') })).rejects.toThrow(
      `${path.join(dir, 'requests.jsonl')}:2: /request_id (qid): missing; expected string (a timed request {qid, latency_ms})`,
    );
  });
});

describe('init on a log of timed requests', () => {
  /**
   * 120 requests (enough for a P95 gate): r1 … r120 taking 0.25 … 30 s, with a route that is neither an
   * answer nor a retrieval.
   */
  const log = () =>
    Array.from({ length: 120 }, (_, i) => ({
      request_id: `r${i + 1}`,
      duration_s: (i + 1) / 4,
      route: i % 2 ? 'cache' : 'model',
    }));

  it('proposes a latency suite reading the id and the seconds through fields:', async () => {
    const dir = tmpTree({ 'logs/requests.jsonl': jsonl(log()) });
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain(
      '  logs/requests.jsonl: timed requests (JSON Lines): read through fields: request_id → qid, duration_s → latency_ms\n',
    );
    expect(r.out).toContain('  latency (latency): logs/requests.jsonl\n');
    const written = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(written).toContain(
      [
        '    traces: logs/requests.jsonl',
        '    fields: # proposed by groundgate init: your records mapped to the contract (docs/formats.md)',
        '      traces:',
        '        /qid: /request_id # request_id → qid (matched name "request_id")',
        '        /latency_ms: { from: /duration_s, scale: 1000 } # duration_s → latency_ms (matched name "duration_s", seconds × 1000)',
      ].join('\n'),
    );
    const gates = gatesOf(dir).suites.latency!;
    expect(gates.kind).toBe('latency');
    // p99_ms needs n ≥ 500 for a stable bound (init says so).
    expect(Object.keys(gates.gates)).toEqual(['p95_ms']);
    // What the suite reads: 250 … 30000 ms, P50 h = 59.5 → (15000 + 15250) / 2.
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    // Against the baseline init committed from the same data: no change.
    expect(report.suites.latency!.metrics.p50_ms).toEqual({ value: 15125, baseline: 15125, delta: 0 });
    expect(report.suites.latency!.counts).toMatchObject({ samples: 120, requests: 120 });
  });

  it('scores a request log as its canonical traces (shape timed-requests, bundled CLI)', () => {
    const { init } = expectSameAsCanonical('timed-requests');
    expect(init.stdout).toContain(
      '  logs/requests.jsonl: timed requests (JSON Lines): read through fields: request_id → qid, duration_s → latency_ms\n',
    );
  });

  it("maps OpenAI's usage and the model too, so check reports tokens per request", async () => {
    const dir = tmpTree({
      'logs/requests.jsonl': jsonl(
        log().map((l, i) => ({
          ...l,
          model: 'gpt-4o-mini-2024-07-18',
          usage: { prompt_tokens: 1000 + i, completion_tokens: 100 + i },
        })),
      ),
    });
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    const written = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    for (const line of [
      '        /tokens_in: /usage/prompt_tokens # ',
      '        /tokens_out: /usage/completion_tokens # ',
    ])
      expect(written).toContain(line);
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    // 1000 … 1119 and 100 … 219: means 1059.5 and 159.5.
    expect(report.suites.latency!.metrics.tokens_in!.value).toBe(1059.5);
    expect(report.suites.latency!.metrics.tokens_out!.value).toBe(159.5);
  });

  it('gates tokens_in by max_increase against the baseline it commits, pricing: as a commented example', async () => {
    const requests = (grow: (i: number) => number) =>
      jsonl(
        log().map((l, i) => ({
          ...l,
          model: i % 2 ? 'gpt-4o-mini-2024-07-18' : 'claude-3-5-haiku-20241022',
          usage: {
            prompt_tokens: grow(i) * (1000 + i),
            completion_tokens: 100,
            prompt_tokens_details: { cached_tokens: i % 3 ? 0 : 512 },
          },
        })),
      );
    const dir = tmpTree({ 'logs/requests.jsonl': requests(() => 1) });
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    // 1000 … 1119: mean 1059.5.
    expect(r.out).toContain(
      "  latency.tokens_in: max_increase 0.1, measured 1059.5 per request; fails when the mean over the requests both runs have is more than 10% above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)\n",
    );
    const written = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(written).toContain(
      [
        '        /tokens_cached: /usage/prompt_tokens_details/cached_tokens # usage.prompt_tokens_details.cached_tokens → tokens_cached (matched name "usage.prompt_tokens_details.cached_tokens")',
        '    # pricing: USD per million tokens, as your provider lists them; yours to keep current (groundgate looks',
        "    # none up). With it, each request's cost is reported and can be gated, e.g. cost: { max_increase: 0.1 }.",
        '    # pricing:',
        '    #   claude-3-5-haiku-20241022: { input: <USD>, output: <USD>, cached_input: <USD> }',
        '    #   gpt-4o-mini-2024-07-18: { input: <USD>, output: <USD>, cached_input: <USD> }',
        '    gates:',
      ].join('\n'),
    );
    expect(written).toContain(
      "      tokens_in: { max_increase: 0.1 } # measured 1059.5 per request; fails when the mean over the requests both runs have is more than 10% above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)\n",
    );
    // Against the committed baseline, the same data: +0.0%.
    const same = await run({ config: path.join(dir, 'gates.yaml') });
    expect(same.report.gates.find((g) => g.metric === 'tokens_in')).toMatchObject({
      op: 'max_increase',
      passed: true,
      reason: '+0.0% (1059.50 → 1059.50) over 120 paired items',
    });
    // r1 … r12 send twice the prompt: +(1000 + … + 1011)/120 = 12066/120 = 100.55 → 1160.05, +9.5%: passes;
    // r1 … r13: + 13078/120 → 1168.48…, +10.3%: fails, naming the requests grown most (without pricing: their
    // tokens_in), r13 first.
    writeFileSync(
      path.join(dir, 'logs/requests.jsonl'),
      requests((i) => (i < 12 ? 2 : 1)),
    );
    const within = await run({ config: path.join(dir, 'gates.yaml') });
    expect(within.report.gates.find((g) => g.metric === 'tokens_in')!.passed).toBe(true);
    writeFileSync(
      path.join(dir, 'logs/requests.jsonl'),
      requests((i) => (i < 13 ? 2 : 1)),
    );
    const grown = await run({ config: path.join(dir, 'gates.yaml') });
    expect(grown.report.gates.find((g) => g.metric === 'tokens_in')).toMatchObject({
      passed: false,
      reason:
        '+10.3% (1059.50 → 1168.48) over 120 paired items; grew most: r13 tokens_in 1012 → 2024, r12 tokens_in 1011 → 2022, r11 tokens_in 1010 → 2020, r10 tokens_in 1009 → 2018, r9 tokens_in 1008 → 2016, … (8 more)',
    });
    expect(grown.report.verdict).toBe('fail');
  });

  it('a cost gate added after init is skipped until the committed baseline is remade with prices, then compared', async () => {
    const dir = tmpTree({
      'logs/requests.jsonl': jsonl(
        log().map((l, i) => ({
          ...l,
          model: 'gpt-4o-mini-2024-07-18',
          usage: { prompt_tokens: 1000 + i, completion_tokens: 100 },
        })),
      ),
    });
    expect((await init(dir, '--yes')).err).toBe('');
    const config = path.join(dir, 'gates.yaml');
    // What the user does with the commented example: prices filled in, and a gate on cost.
    writeFileSync(
      config,
      readFileSync(config, 'utf8')
        .replace('    # pricing:\n', '    pricing:\n')
        .replace(
          '    #   gpt-4o-mini-2024-07-18: { input: <USD>, output: <USD> }',
          '      gpt-4o-mini-2024-07-18: { input: 0.15, output: 0.60 }',
        )
        .replace('    gates:\n', '    gates:\n      cost: { max_increase: 0.1 }\n'),
    );
    const before = await run({ config });
    // The baseline init wrote had no prices, so no cost (not a cost of n/a): a metric new to the baseline.
    expect(before.report.gates.find((g) => g.metric === 'cost')).toMatchObject({
      passed: true,
      skipped: true,
      reason: 'metric not in the baseline report',
    });
    const out: string[] = [];
    const status = await main(['baseline', '--config', config, '--allow-outside-workspace'], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      isTty: false,
      env: {},
    });
    expect(status, out.join('')).toBe(0);
    // Each request (1000 + i)·0.15 + 100·0.60 per million: the same data, no rise.
    const after = await run({ config });
    expect(after.report.gates.find((g) => g.metric === 'cost')).toMatchObject({
      passed: true,
      reason: '+0.0% (0.000219 → 0.000219) over 120 paired items',
    });
  });

  it('takes lines already named qid and latency_ms as they are', async () => {
    const dir = tmpTree({
      'requests.jsonl': jsonl(log().map((l) => ({ qid: l.request_id, latency_ms: l.duration_s * 1000 }))),
    });
    const r = await init(dir);
    expect(r.err, r.out).toBe('');
    expect(r.out).toContain(
      '  requests.jsonl: timed requests (JSON Lines): 20 sampled records have qid, latency_ms and nothing of an answer\n',
    );
    expect(gatesOf(dir).suites.latency!.traces).toBe('requests.jsonl');
    expect(gatesOf(dir).suites.latency!.fields).toBeUndefined();
  });

  it('leaves a file with an answer in it to the grounded-answer contract', async () => {
    const dir = tmpTree({
      'requests.jsonl': jsonl(log().map((l) => ({ ...l, answer: { text: 'yes' } }))),
    });
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.err).toContain('requests.jsonl: traces? no "qid", "retrieved_ids", "answer_json.citations"');
    expect(r.err).not.toContain('timed requests');
  });
});

describe("init on tracing tools' exports: one record per step, not per question", () => {
  /**
   * Langfuse's blob storage export, observations_v2/ as JSON Lines, by its documented field reference
   * (snake_case; input and output strings of text or JSON): 3 traces of a root SPAN, a RETRIEVER whose
   * output lists LangChain documents, and a GENERATION.
   */
  const observations = [1, 2, 3].flatMap((t) => {
    const at = (s: number) => `2026-12-01 10:0${t}:0${s}.000000`;
    const base = { trace_id: `trace-${t}`, project_id: 'p1', environment: 'default', level: 'DEFAULT' };
    return [
      {
        ...base,
        id: `obs-${t}-root`,
        type: 'SPAN',
        name: 'rag',
        start_time: at(0),
        end_time: at(4),
        parent_observation_id: null,
        input: `question ${t}`,
        output: `answer ${t}`,
        metadata: '{}',
      },
      {
        ...base,
        id: `obs-${t}-ret`,
        type: 'RETRIEVER',
        name: 'retrieve',
        start_time: at(0),
        end_time: at(1),
        parent_observation_id: `obs-${t}-root`,
        input: `question ${t}`,
        output: JSON.stringify([
          { page_content: `text ${t}`, metadata: { doc_id: `doc-${t}`, source: `doc-${t}.md` } },
        ]),
        metadata: '{}',
      },
      {
        ...base,
        id: `obs-${t}-gen`,
        type: 'GENERATION',
        name: 'llm',
        start_time: at(1),
        end_time: at(4),
        parent_observation_id: `obs-${t}-root`,
        input: '[]',
        output: `answer ${t}`,
        metadata: '{}',
        latency: 3,
      },
    ];
  });

  it('names Langfuse observations, what it could read of them and what the user must choose', async () => {
    const dir = tmpTree({ 'exports/observations.jsonl': jsonl(observations) });
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.err).toContain(
      [
        '; exports/observations.jsonl: Langfuse observations: 9 sampled observations of 3 traces (GENERATION 3, RETRIEVER 3, SPAN 3)',
        'not read: groundgate reads one record per question, these are one per observation, and no fields: mapping joins the observations of a trace',
        "to read them, choose the qid (trace_id, or the metadata key that names the question), the retrieved ids (the RETRIEVER output's documents hold metadata.doc_id, metadata.source) and the answer (which observation's output holds it, e.g. the trace's last GENERATION), then write one record per trace (docs/formats.md), or export the traces over OpenTelemetry with OpenInference attributes (format: openinference);",
      ].join(' — '),
    );
    // Their steps carry times, but they are not a log of timed requests.
    expect(r.err).not.toContain('timed requests (JSON Lines):');
  });

  /**
   * LangSmith runs as the langsmith package (0.12.0, lib/schemas.d.ts) types them: 2 traces of a root chain
   * run naming its dataset example, a retriever run (RetrieverOutput documents) and an llm run.
   */
  const runs = [1, 2].flatMap((t) => {
    const trace = `0190-trace-${t}`;
    return [
      {
        id: trace,
        trace_id: trace,
        name: 'RAG',
        run_type: 'chain',
        start_time: '2026-12-01T10:00:00.000Z',
        end_time: '2026-12-01T10:00:03.000Z',
        inputs: { question: `question ${t}` },
        outputs: { answer: `answer ${t}` },
        reference_example_id: `example-${t}`,
        dotted_order: `20261201T100000000000Z${trace}`,
      },
      {
        id: `${trace}-ret`,
        trace_id: trace,
        parent_run_id: trace,
        name: 'VectorStoreRetriever',
        run_type: 'retriever',
        inputs: { query: `question ${t}` },
        outputs: {
          documents: [{ page_content: `text ${t}`, type: 'Document', metadata: { source: `doc-${t}.md` } }],
        },
      },
      {
        id: `${trace}-llm`,
        trace_id: trace,
        parent_run_id: trace,
        name: 'ChatOpenAI',
        run_type: 'llm',
        inputs: { messages: [] },
        outputs: { generations: [] },
      },
    ];
  });

  it('names LangSmith runs, what it could read of them and what the user must choose', async () => {
    const dir = tmpTree({ 'exports/runs.jsonl': jsonl(runs) });
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.err).toContain(
      [
        '; exports/runs.jsonl: LangSmith runs: 6 sampled runs of 2 traces (chain 2, llm 2, retriever 2)',
        'not read: groundgate reads one record per question, these are one per run, and no fields: mapping joins the runs of a trace (trace_id, parent_run_id)',
        "to read them, choose the qid (reference_example_id, on 2 sampled runs: the dataset example each root run answers), the retrieved ids (the retriever runs' outputs.documents hold metadata.source) and the answer (the root run's outputs), then write one record per trace (docs/formats.md);",
      ].join(' — '),
    );
  });

  it("reads the public API's camelCase observations too, and a retriever's documents as an object", () => {
    const api = [
      {
        id: 'o1',
        traceId: 't1',
        type: 'RETRIEVER',
        startTime: '2026-12-01T10:00:00.000Z',
        output: { documents: [{ id: 'n1', metadata: { doc_id: 'd1' } }] },
      },
      { id: 'o2', traceId: 't1', type: 'GENERATION', startTime: '2026-12-01T10:00:01.000Z', output: 'yes' },
    ];
    expect(toolExport(api)).toMatch(
      /^Langfuse observations: 2 sampled observations of 1 trace \(GENERATION 1, RETRIEVER 1\) — .*the RETRIEVER output's documents hold id, metadata\.doc_id\)/,
    );
    // One record of another shape and the file is not an export.
    expect(toolExport([...api, { id: 'o3', traceId: 't1', startTime: 'x' }])).toBeUndefined();
  });

  it('names the runs the langsmith package writes (fixture langsmith/runs.jsonl)', async () => {
    const dir = tmpTree({});
    cpSync(path.join(FIXTURES, 'langsmith', 'runs.jsonl'), path.join(dir, 'runs.jsonl'));
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.err).toContain(
      [
        '; runs.jsonl: LangSmith runs: 6 sampled runs of 2 traces (chain 2, llm 2, retriever 2)',
        'not read: groundgate reads one record per question, these are one per run, and no fields: mapping joins the runs of a trace (trace_id, parent_run_id)',
        "to read them, choose the qid (reference_example_id, on 2 sampled runs: the dataset example each root run answers), the retrieved ids (the retriever runs' outputs.documents hold metadata.doc_id, metadata.source) and the answer (the root run's outputs), then write one record per trace (docs/formats.md);",
      ].join(' — '),
    );
  });
});
