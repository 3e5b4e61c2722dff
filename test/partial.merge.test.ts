import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run.js';
import { seeded } from './helpers/random.js';
import { otlpLines, parquetTraces, phoenixArray } from './helpers/formats.js';
import type { TraceLine } from '../src/grounded-answer/contract.js';
import { FIXTURES, jsonl, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

// A sharded run (check --partial on each shard, then merge) must give the report one run over every
// shard's files gives, byte for byte: random splits of generated, example and fixture traces.
const rnd = seeded(2121);
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

const generatedGold = Array.from({ length: 120 }, (_, i) => ({
  qid: `Q${i}`,
  question: `question ${i}?`,
  answerable: i % 7 !== 0,
  gold_claim_substr: i % 7 !== 0 ? [`fact number ${i}`] : [],
  gold_citations: i % 7 !== 0 ? [`d${i}`] : [],
  ...(i % 5 === 0 ? { constraints: ['Tokens are never written to the log.'] } : {}),
}));
function generatedTrace(): string {
  const i = int(0, 130); // past 119: qids not in gold
  const claim =
    rnd() < 0.1
      ? 'not in context'
      : rnd() < 0.05
        ? `It is fact number ${i}; tokens are written to the log.`
        : `It is fact number ${rnd() < 0.7 ? i : i + 1}; it may vary.`;
  return JSON.stringify({
    // Few distinct ts values, some missing: ties and file order decide many winners.
    ...(rnd() < 0.15 ? {} : { ts: int(1, 4) }),
    qid: `Q${i}`,
    retrieved_ids: [`d${int(0, 130)}`, `d${i}`, `d${int(0, 130)}`],
    answer_json: {
      claim,
      citations: rnd() < 0.8 ? [`d${i}`] : ['d-none'],
      ...(rnd() < 0.5 ? { constraints_echo: ['Tokens are never written to the log.'] } : {}),
    },
  });
}
const generatedGates = (offenders: number) => `version: 1
report_offenders: ${offenders}
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*/*.jsonl
    k: 2
    scu:
      enabled: true
      rules:
        - lock: 'never written to the log'
          contradiction: 'tokens are written to the log'
    gates:
      precision: '>= 0.5'
      recall@3: '>= 0.5'
      coverage: { min: 0.9, max_drop: 0.01 }
`;

/** The suite asking for tokens and cost: a price table (a model without a price among the traces') and gates. */
const withTokens = (gates: string) =>
  gates.replace(
    '    gates:\n',
    '    pricing: { m-a: { input: 0.15, output: 0.6, cached_input: 0.075 }, m-b: { input: 3, output: 15 } }\n    gates:\n      tokens_in: { max: 4000 }\n      cost.p95: { max: 1 }\n',
  );

/** A trace with token counts (some with none, some of a model without a price, some naming none). */
function counted(t: TraceLine): TraceLine {
  if (rnd() < 0.15) return t;
  const model = ['m-a', 'm-b', 'unpriced', undefined][int(0, 3)];
  const tokensIn = int(100, 5000);
  return {
    ...t,
    tokens_in: tokensIn,
    tokens_cached: int(0, tokensIn),
    tokens_out: int(10, 500),
    ...(model && { model }),
  } as TraceLine;
}

type Strategy = 'line' | 'item' | 'uneven' | 'one';

/** Deals `lines` to `shards` shards, as a matrix would: each shard's lines keep their order. */
function deal(lines: readonly string[], shards: number, how: Strategy): string[][] {
  const out: string[][] = Array.from({ length: shards }, () => []);
  const cuts = Array.from({ length: shards - 1 }, () => int(0, lines.length)).sort((a, b) => a - b);
  lines.forEach((line, i) => {
    let k: number;
    if (how === 'line') k = int(0, shards - 1);
    else if (how === 'one') k = 0;
    else if (how === 'item') {
      const qid = /"qid":"([^"]*)"/.exec(line)?.[1] ?? '';
      k = [...qid].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 9973, 7) % shards;
    } else k = cuts.filter((c) => c <= i).length;
    out[k]!.push(line);
  });
  return out;
}

/**
 * Writes each shard's lines under traces/shard-K/ (one file, or two for some shards), a partial per shard,
 * then compares the merge with one run over traces/*\/*.jsonl.
 */
async function compare(
  dir: string,
  config: string,
  lines: readonly string[],
  shards: number,
  how: Strategy,
  extra: Partial<RunOptions> = {},
): Promise<{ single: string; merged: string }> {
  rmSync(path.join(dir, 'traces'), { recursive: true, force: true });
  rmSync(path.join(dir, 'parts'), { recursive: true, force: true });
  mkdirSync(path.join(dir, 'parts'));
  const dealt = deal(lines, shards, how);
  const parts: string[] = [];
  for (const [k, own] of dealt.entries()) {
    const folder = path.join(dir, 'traces', `shard-${String(k).padStart(2, '0')}`);
    mkdirSync(folder, { recursive: true });
    const cut = rnd() < 0.3 ? int(0, own.length) : own.length;
    writeFileSync(
      path.join(folder, 'a.jsonl'),
      own
        .slice(0, cut)
        .map((l) => `${l}\n`)
        .join(''),
    );
    if (cut < own.length)
      writeFileSync(
        path.join(folder, 'b.jsonl'),
        own
          .slice(cut)
          .map((l) => `${l}\n`)
          .join(''),
      );
    const part = path.join(dir, 'parts', `part-${k}.partial`);
    await writePartialRun(part, {
      config,
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(folder, '*.jsonl') }],
      ...extra,
    });
    parts.push(part);
  }
  const single = serializeReport(
    (
      await run({
        config,
        inputs: [{ suite: 'qa', key: 'traces', path: path.join(dir, 'traces/*/*.jsonl') }],
        ...extra,
      })
    ).report,
  );
  const merged = serializeReport((await mergeRun(parts, { config, ...extra })).report);
  return { single, merged };
}

describe('check --partial and merge: the report of one run, byte for byte', () => {
  const traces = Array.from({ length: 700 }, generatedTrace);
  const dir = tmpTree({ 'gold.jsonl': jsonl(generatedGold), 'gates.yaml': generatedGates(40) });
  const config = path.join(dir, 'gates.yaml');

  it.each([
    ['line', 1],
    ['line', 3],
    ['line', 7],
    ['item', 4],
    ['uneven', 5],
    ['uneven', 2],
  ] as [Strategy, number][])('generated traces dealt by %s over %i shards', async (how, shards) => {
    for (let round = 0; round < 3; round++) {
      const { single, merged } = await compare(dir, config, traces, shards, how);
      expect(merged).toBe(single);
    }
  });

  it('with empty shards, and a qid whose runs sit in several shards', async () => {
    // Shards 1 and 3 get nothing; Q3's runs are in every other shard, with equal ts (the later file wins).
    const q3 = (claim: string) =>
      JSON.stringify({ ts: 9, qid: 'Q3', retrieved_ids: ['d3'], answer_json: { claim, citations: ['d3'] } });
    const lines = [...traces.slice(0, 200), q3('wrong'), q3('It is fact number 3.'), q3('wrong again')];
    const { single, merged } = await compare(dir, config, lines, 1, 'one');
    expect(merged).toBe(single);
    const own = deal(lines, 5, 'line').map((s, k) => (k === 1 || k === 3 ? [] : s));
    const flat = own.flat();
    const result = await compare(dir, config, flat, 5, 'uneven');
    expect(result.merged).toBe(result.single);
    const report = JSON.parse(result.merged) as { suites: { qa: { counts: Record<string, number> } } };
    expect(report.suites.qa.counts.trace_lines).toBe(flat.length);
  });

  it('with gold in two files, blank and CRLF lines among them, and every offender shown', async () => {
    // Places of gold items no longer one after another (another file, a line skipped, two bytes to end one):
    // the merge reads the lines of items without a run at the places the partials give.
    const text = (items: readonly object[], crlf: boolean) =>
      items
        .map((g, i) => `${JSON.stringify(g)}${crlf && i % 3 === 0 ? '\r\n' : '\n'}${i % 5 === 0 ? '\n' : ''}`)
        .join('');
    const half = generatedGold.length / 2;
    const two = tmpTree({
      'gold/a.jsonl': text(generatedGold.slice(0, half), false),
      'gold/b.jsonl': text(generatedGold.slice(half), true),
      'gates.yaml': generatedGates(500).replace('gold: gold.jsonl', 'gold: gold/*.jsonl'),
    });
    const { single, merged } = await compare(
      two,
      path.join(two, 'gates.yaml'),
      traces.slice(0, 150),
      3,
      'line',
    );
    expect(merged).toBe(single);
    const offenders = (JSON.parse(merged) as { suites: { qa: { offenders: Record<string, unknown>[] } } })
      .suites.qa.offenders;
    const missing = offenders.filter((o) => (o.labels as string[]).includes('missing_trace'));
    expect(missing.length).toBeGreaterThan(5);
    expect(new Set(missing.map((o) => (o.source as { file: string }).file))).toEqual(
      new Set(['gold/a.jsonl', 'gold/b.jsonl']),
    );
    expect(missing.every((o) => typeof o.question === 'string')).toBe(true);
  });

  it("with token counts and prices: tokens, cost and each item's values as one run gives them", async () => {
    const tokened = tmpTree({
      'gold.jsonl': jsonl(generatedGold),
      'gates.yaml': withTokens(generatedGates(40)),
    });
    const lines = traces.map((l) => JSON.stringify(counted(JSON.parse(l) as TraceLine)));
    for (const [how, shards] of [
      ['line', 3],
      ['item', 4],
      ['uneven', 2],
    ] as [Strategy, number][]) {
      const { single, merged } = await compare(tokened, path.join(tokened, 'gates.yaml'), lines, shards, how);
      expect(merged).toBe(single);
      const qa = (JSON.parse(merged) as { suites: { qa: { counts: Record<string, number> } } }).suites.qa;
      expect(qa.counts.untokened).toBeGreaterThan(0);
      expect(qa.counts.uncosted).toBeGreaterThan(qa.counts.untokened!);
    }
  });

  it('with a baseline: regressed items lead the offenders in the merge as in one run', async () => {
    const base = path.join(dir, 'base.json');
    const { single: before } = await compare(dir, config, traces.slice(0, 350), 2, 'line');
    writeFileSync(base, before);
    const { single, merged } = await compare(dir, config, traces.slice(300), 4, 'line', { baseline: base });
    expect(merged).toBe(single);
    expect(JSON.parse(merged).suites.qa.comparison.regressed.length).toBeGreaterThan(0);
  });
});

describe('merge on the example data and the seed fixture', () => {
  const read = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

  it.each(['runs/qa.trace.jsonl', 'runs/qa-regressed.trace.jsonl'])('%s, split at random', async (file) => {
    const dir = tmpTree({ 'gates.yaml': qaOnlyGates().replace(/lock: \S+/, 'lock: gold/qa.gold.lock.json') });
    mkdirSync(path.join(dir, 'gold'));
    for (const f of ['qa.gold.jsonl', 'qa.gold.lock.json'])
      copyFileSync(path.join(REPO, 'gold', f), path.join(dir, 'gold', f));
    const config = path.join(dir, 'gates.yaml');
    for (const [how, shards] of [
      ['line', 3],
      ['item', 2],
      ['uneven', 6],
    ] as [Strategy, number][]) {
      const { single, merged } = await compare(dir, config, read(path.join(REPO, file)), shards, how);
      expect(merged).toBe(single);
      expect(JSON.parse(merged).suites.qa.gold.lock.status).toBe('match');
    }
  });

  it("the seed's worked example (fixtures/wfgy), one item a shard", async () => {
    const dir = tmpTree({
      'gates.yaml': `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*/*.jsonl
    scu: true
    gates:
      precision: '>= 0.8'
`,
    });
    copyFileSync(path.join(FIXTURES, 'wfgy', 'gold.jsonl'), path.join(dir, 'gold.jsonl'));
    const lines = read(path.join(FIXTURES, 'wfgy', 'trace.jsonl'));
    const { single, merged } = await compare(dir, path.join(dir, 'gates.yaml'), lines, 3, 'item');
    expect(merged).toBe(single);
    // The seed's reference numbers: precision 2/3 is the worked example's (score_eval_expected_output.json).
    expect(JSON.parse(merged).verdict).toBe(JSON.parse(single).verdict);
  });
});

describe('merge of grounded-qa shards in other formats', () => {
  const traces = Array.from({ length: 300 }, generatedTrace).map((l) => JSON.parse(l) as TraceLine);
  const byQuestion = (t: TraceLine) => `question ${t.qid.slice(1)}?`;

  async function formatCompare(format: 'parquet' | 'openinference', shards: number, tokens = false) {
    const ext = format === 'parquet' ? 'parquet' : 'otlp.jsonl';
    const dir = tmpTree({
      'gold.jsonl': jsonl(generatedGold),
      'gates.yaml': (tokens ? withTokens : (g: string) => g)(generatedGates(30)).replace(
        'traces: traces/*/*.jsonl',
        `traces: traces/*/*.${ext}${format === 'openinference' ? '\n    format: openinference' : ''}`,
      ),
    });
    const config = path.join(dir, 'gates.yaml');
    // Spans have times (so every OTLP trace has a ts), and qids are matched by question (unknown ones have none).
    const own = (
      format === 'openinference'
        ? traces.filter((t) => t.ts !== undefined && Number(t.qid.slice(1)) < 120)
        : traces
    ).map((t) => (tokens ? counted(t) : t));
    const dealt: TraceLine[][] = Array.from({ length: shards }, () => []);
    for (const t of own) dealt[int(0, shards - 1)]!.push(t);
    const parts: string[] = [];
    for (const [k, list] of dealt.entries()) {
      const file = path.join(dir, 'traces', `shard-${k}`, `t.${ext}`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(
        file,
        format === 'parquet'
          ? parquetTraces(list)
          : otlpLines(list, byQuestion).replace(
              /"traceId":"0000/g,
              `"traceId":"${k.toString(16).padStart(4, '0')}`,
            ),
      );
      const part = path.join(dir, `part-${k}.partial`);
      await writePartialRun(part, { config, inputs: [{ key: 'traces', path: file }] });
      parts.push(part);
    }
    const single = serializeReport((await run({ config })).report);
    const merged = serializeReport((await mergeRun(parts, { config })).report);
    return { single, merged };
  }

  it.each([
    ['parquet', 3],
    ['openinference', 3],
    ['parquet', 1],
  ] as const)('%s traces over %i shards', async (format, shards) => {
    const { single, merged } = await formatCompare(format, shards);
    expect(merged).toBe(single);
    expect(JSON.parse(merged).suites.qa.counts.traced).toBeGreaterThan(50);
  });

  it.each(['parquet', 'openinference'] as const)(
    '%s traces with token counts over 3 shards: tokens and cost as one run gives them',
    async (format) => {
      const { single, merged } = await formatCompare(format, 3, true);
      expect(merged).toBe(single);
      const qa = (JSON.parse(merged) as { suites: { qa: { metrics: Record<string, { value: number }> } } })
        .suites.qa;
      expect(qa.metrics['tokens_in']!.value).toBeGreaterThan(100);
      expect(qa.metrics['cost.p95']!.value).toBeGreaterThan(0);
    },
  );

  it.each([
    ['OTLP lines', 'otlp.jsonl'],
    ['a Phoenix span document', 'spans.json'],
  ])('an OpenInference trace with spans in two shards (%s) is refused, naming both', async (_, ext) => {
    // Each shard numbers its traces from 1: one run would assemble trace 1 of every shard into one trace.
    const dir = tmpTree({
      'gold.jsonl': jsonl(generatedGold),
      'gates.yaml': generatedGates(30).replace(
        'traces: traces/*/*.jsonl',
        `traces: traces/*/*.${ext}\n    format: openinference`,
      ),
    });
    const config = path.join(dir, 'gates.yaml');
    const own = traces.filter((t) => t.ts !== undefined && Number(t.qid.slice(1)) < 120);
    const parts: string[] = [];
    for (const [k, list] of [own.slice(0, 40), own.slice(40, 80)].entries()) {
      const file = path.join(dir, 'traces', `shard-${k}`, `t.${ext}`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(
        file,
        ext === 'spans.json' ? phoenixArray(list, byQuestion) : otlpLines(list, byQuestion),
      );
      const part = path.join(dir, `part-${k}.partial`);
      await writePartialRun(part, { config, inputs: [{ key: 'traces', path: file }] });
      parts.push(part);
    }
    await expect(mergeRun(parts, { config })).rejects.toThrow(
      /part-1\.partial: suite qa: trace "(0+1|t0)" has spans in this shard and in \S*part-0\.partial; expected each trace's spans in one shard's files/,
    );
    // Ids of their own in each shard merge as one run over both.
    const unique = parts.map((p) => `${p}.unique`);
    for (const [k, list] of [own.slice(0, 40), own.slice(40, 80)].entries()) {
      const file = path.join(dir, 'traces', `shard-${k}`, `t.${ext}`);
      const text = ext === 'spans.json' ? phoenixArray(list, byQuestion) : otlpLines(list, byQuestion);
      writeFileSync(file, text.replace(/"(trace_id|traceId)": ?"(0000|t)/g, `"$1":"${k}$2`));
      await writePartialRun(unique[k]!, { config, inputs: [{ key: 'traces', path: file }] });
    }
    const merged = serializeReport((await mergeRun(unique, { config })).report);
    expect(merged).toBe(serializeReport((await run({ config })).report));
  });
});
