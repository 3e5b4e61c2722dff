import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { forgeSection } from './helpers/forge-partial.js';
import { seeded } from './helpers/random.js';
import { REPO, tmpTree } from './helpers/tmp.js';

// latency over shards: every sample is kept, so the percentiles, the configuration points, the Pareto set
// and the slowest requests of the merge are one run's, byte for byte.
const rnd = seeded(7171);
const EXAMPLE = path.join(REPO, 'examples/latency');

async function merged(dir: string, key: string, shards: string[][]) {
  const config = path.join(dir, 'gates.yaml');
  const parts: string[] = [];
  for (const [k, files] of shards.entries()) {
    const part = path.join(dir, `part-${k}.partial`);
    const glob = files.length === 1 ? files[0]! : `{${files.join(',')}}`;
    await writePartialRun(part, { config, inputs: [{ key, path: path.join(dir, glob) }] });
    parts.push(part);
  }
  return {
    single: serializeReport((await run({ config })).report),
    merged: serializeReport((await mergeRun(parts, { config })).report),
  };
}

/** The example's latency-accuracy suite in a folder of its own, with the trace files `names` (configurations). */
function accuracyExample(names: readonly string[]): string {
  const gates = readFileSync(path.join(REPO, 'gates.yaml'), 'utf8');
  const block = /\n {2}latency-accuracy:\n[\s\S]*?(?=\n {2}\S)/
    .exec(gates)![0]
    .replace('traces: examples/latency/traces/*.trace.jsonl', 'traces: traces/*.trace.jsonl')
    .replace('gold: examples/latency/gold.jsonl', 'gold: gold.jsonl')
    .replace(
      'configuration: examples/latency/traces/balanced.trace.jsonl',
      'configuration: traces/balanced.trace.jsonl',
    );
  const dir = tmpTree({ 'gates.yaml': `version: 1\nsuites:${block}\n` });
  copyFileSync(path.join(EXAMPLE, 'gold.jsonl'), path.join(dir, 'gold.jsonl'));
  mkdirSync(path.join(dir, 'traces'));
  for (const n of names)
    copyFileSync(
      path.join(EXAMPLE, 'traces', `${n}.trace.jsonl`),
      path.join(dir, 'traces', `${n}.trace.jsonl`),
    );
  return dir;
}

describe('latency: check --partial and merge give the report of one run', () => {
  it("the example's CSV (a sweep of three configurations), its rows dealt to shard files", async () => {
    const gates = readFileSync(path.join(REPO, 'gates.yaml'), 'utf8');
    const block = /\n {2}latency:\n[\s\S]*?(?=\n {2}\S)/
      .exec(gates)![0]
      .replace('csv: examples/latency/latency.csv', 'csv: csv/*/rows.csv');
    const dir = tmpTree({ 'gates.yaml': `version: 1\nreport_offenders: 40\nsuites:${block}\n` });
    const [header, ...rows] = readFileSync(path.join(EXAMPLE, 'latency.csv'), 'utf8')
      .split('\n')
      .filter(Boolean);
    for (const shards of [1, 2, 3, 5]) {
      rmSync(path.join(dir, 'csv'), { recursive: true, force: true });
      const dealt: string[][] = Array.from({ length: shards }, () => []);
      for (const row of rows) dealt[Math.floor(rnd() * shards)]!.push(row);
      const files = dealt.map((own, k) => {
        const file = `csv/${k}/rows.csv`;
        mkdirSync(path.join(dir, 'csv', String(k)), { recursive: true });
        writeFileSync(path.join(dir, file), [header, ...own].map((l) => `${l}\n`).join(''));
        return [file];
      });
      const { single, merged: m } = await merged(dir, 'csv', files);
      expect(m).toBe(single);
      // The example repeats its header line once: not a sample, in one run or merged.
      expect(JSON.parse(m).suites.latency.counts.samples).toBe(rows.length - 1);
    }
  });

  it("the example's traces with gold (a configuration per file), the files dealt to shards", async () => {
    const names = ['balanced', 'deep', 'fast'];
    const dir = accuracyExample(names);
    const file = (n: string) => `traces/${n}.trace.jsonl`;
    for (const shards of [[names], [['deep'], ['balanced', 'fast']], [['fast'], ['deep'], ['balanced']]]) {
      const { single, merged: m } = await merged(
        dir,
        'traces',
        shards.map((s) => s.map(file)),
      );
      expect(m).toBe(single);
      const report = JSON.parse(m).suites['latency-accuracy'];
      expect(report.counts.configurations).toBe(3);
      expect(report.tables[0].columns).toContain('pareto');
    }
  });

  it('token counts and costs (by model) of trace files dealt to shards', async () => {
    const line = (qid: string, model: string, n: number) =>
      JSON.stringify({ qid, latency_ms: 900 + n, tokens_in: 1000 + n, tokens_out: 10 * n, model });
    const dir = tmpTree({
      'gates.yaml': [
        'version: 1',
        'suites:',
        '  lat:',
        '    kind: latency',
        '    traces: t/*.jsonl',
        '    pricing: { m1: { input: 0.15, output: 0.60 } }',
        '    gates:',
        '      tokens_in: { max: 4000 }',
        '',
      ].join('\n'),
      't/a.jsonl': [line('q1', 'm1', 1), line('q2', 'm2', 2)].join('\n') + '\n',
      't/b.jsonl': [line('q1', 'm1', 3), JSON.stringify({ qid: 'q3', latency_ms: 5 })].join('\n') + '\n',
    });
    const { single, merged: m } = await merged(dir, 'traces', [['t/a.jsonl'], ['t/b.jsonl']]);
    expect(m).toBe(single);
    const lat = JSON.parse(m).suites.lat;
    // q1 twice (1001 and 1003 in, at m1's price), q2 at m2 (no price), q3 without counts.
    expect(lat.metrics.tokens_in.value).toBe((1001 + 1002 + 1003) / 3);
    expect(lat.items.q1.values.tokens_in).toBe(1002);
    expect(lat.counts).toMatchObject({ untokened: 1, uncosted: 2 });
  });

  it('cached input tokens of trace files dealt to shards, priced at cached_input as one run prices them', async () => {
    const line = (qid: string, n: number, cached: number) =>
      JSON.stringify({
        qid,
        latency_ms: 900 + n,
        tokens_in: 1000,
        tokens_out: 100,
        tokens_cached: cached,
        model: 'm1',
      });
    const dir = tmpTree({
      'gates.yaml': [
        'version: 1',
        'suites:',
        '  lat:',
        '    kind: latency',
        '    traces: t/*.jsonl',
        '    pricing: { m1: { input: 1, output: 2, cached_input: 0.5 } }',
        '    gates:',
        '      cost: { max: 1 }',
        '',
      ].join('\n'),
      't/a.jsonl': line('q1', 1, 600) + '\n',
      't/b.jsonl': line('q2', 2, 0) + '\n',
    });
    const { single, merged: m } = await merged(dir, 'traces', [['t/a.jsonl'], ['t/b.jsonl']]);
    expect(m).toBe(single);
    // q1: (400·1 + 600·0.5 + 100·2)/1e6 = 0.0009; q2: (1000 + 200)/1e6 = 0.0012.
    expect(JSON.parse(m).suites.lat.metrics['cost.total'].value).toBeCloseTo(0.0021, 15);
  });

  /** What a latency partial's samples section holds, as far as these tests change it. */
  type Sample = { configuration: string; e2e: number; stages: Record<string, number> };
  type SamplesSection = { samples: Sample[]; untimed?: { untimed: number; lines: number } };

  /** A partial of the accuracy example whose samples section `edit` changed, its digests made to match. */
  async function forgedSamples(file: string, edit: (section: SamplesSection) => void) {
    const dir = accuracyExample(['balanced', 'deep']);
    const config = path.join(dir, 'gates.yaml');
    const part = path.join(dir, file);
    await writePartialRun(part, { config });
    forgeSection(part, 'latency-accuracy', 'samples', (bytes) => {
      const section = JSON.parse(bytes.toString()) as SamplesSection;
      edit(section);
      return Buffer.from(JSON.stringify(section));
    });
    return mergeRun([part], { config });
  }

  it('a sample naming a configuration that is not its file is a one-line error naming the partial', async () => {
    const merge = forgedSamples('p.partial', (section) => {
      section.samples[0]!.configuration = 'traces/elsewhere.trace.jsonl';
    });
    await expect(merge).rejects.toThrow(
      /p\.partial: suite latency-accuracy: a sample of traces\/balanced\.trace\.jsonl:1 names configuration "traces\/elsewhere\.trace\.jsonl"; expected its file's name/,
    );
  });

  it('a forged negative time is refused as the CSV or trace it came from would be', async () => {
    for (const [name, edit] of [
      ['e2e', (sample: Sample) => (sample.e2e = -875)],
      ['stage', (sample: Sample) => (sample.stages.llm = -1)],
    ] as const)
      await expect(forgedSamples(`${name}.partial`, (section) => edit(section.samples[0]!))).rejects.toThrow(
        new RegExp(
          `${name}\\.partial: section latency-accuracy\\.samples samples\\.0\\.(e2e|stages\\.llm): expected the samples a latency shard read \\(Too small: expected number to be >=0\\)$`,
        ),
      );
  });

  it('untimed lines the samples contradict are a one-line error naming the partial', async () => {
    const merge = forgedSamples('p.partial', (section) => {
      section.untimed = { untimed: 10 ** 12, lines: 3 };
    });
    await expect(merge).rejects.toThrow(
      /p\.partial: suite latency-accuracy: section samples: 1000000000000 untimed of 3 lines; expected its \d+ samples and untimed lines in all$/,
    );
  });

  it('a broken gold set fails the merge only where one run scores accuracy (more than one configuration)', async () => {
    const gates = `version: 1\nsuites:\n  lat:\n    kind: latency\n    traces: traces/*.trace.jsonl\n    gold: gold.jsonl\n    gates:\n      p95_ms: '<= 9000'\n`;
    const dir = tmpTree({ 'gates.yaml': gates, 'gold.jsonl': '{"qid": "L1", broken\n' });
    mkdirSync(path.join(dir, 'traces'));
    for (const n of ['deep', 'fast'])
      copyFileSync(
        path.join(EXAMPLE, 'traces', `${n}.trace.jsonl`),
        path.join(dir, 'traces', `${n}.trace.jsonl`),
      );
    const config = path.join(dir, 'gates.yaml');
    // One configuration: one run never reads gold, and the merge of its partial neither fails.
    const one = [['traces/deep.trace.jsonl']];
    const single = serializeReport(
      (await run({ config, inputs: [{ key: 'traces', path: path.join(dir, 'traces/deep.trace.jsonl') }] }))
        .report,
    );
    const part = path.join(dir, 'one.partial');
    await writePartialRun(part, { config, inputs: [{ key: 'traces', path: path.join(dir, one[0]![0]!) }] });
    expect(serializeReport((await mergeRun([part], { config })).report)).toBe(single);
    // Two: one run stops at the gold line, and so does the merge, with the same message.
    const error = await run({ config }).then(
      () => 'no error',
      (err: Error) => err.message,
    );
    expect(error).toMatch(/gold\.jsonl:1:\d+: /);
    const parts = [];
    for (const n of ['deep', 'fast']) {
      const p = path.join(dir, `${n}.partial`);
      await writePartialRun(p, {
        config,
        inputs: [{ key: 'traces', path: path.join(dir, `traces/${n}.trace.jsonl`) }],
      });
      parts.push(p);
    }
    await expect(mergeRun(parts, { config })).rejects.toThrow(error);
  });
});
