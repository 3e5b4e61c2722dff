import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { InputError } from '../src/errors.js';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import {
  brokenSecondGroup,
  nestedA,
  nestedB,
  otlpLines,
  parquetGold,
  parquetTraces,
  phoenixArray,
  readJsonlFile,
} from './helpers/formats.js';
import { checkOnThreads, runCli } from './helpers/process.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { otlpScanner } from '../src/grounded-answer/spans/otlp-scan.js';
import { FIXTURES, jsonl, REPO, tmpTree } from './helpers/tmp.js';
import { seeded } from './helpers/random.js';
import { scored, scoredPart } from './helpers/scored.js';

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = {
  good: readJsonlFile<TraceLine>('runs/qa.trace.jsonl'),
  regressed: readJsonlFile<TraceLine>('runs/qa-regressed.trace.jsonl'),
};
const QUESTION = new Map(GOLD.map((g) => [g.qid, g.question]));
const questionOf = (t: TraceLine) => QUESTION.get(t.qid) ?? `a question not in gold (${t.qid})`;

type Suite = Record<string, unknown>;
const QA = { kind: 'grounded-qa', k: 5, scu: true };

describe.each(Object.entries(TRACES))('the %s example traces in other shapes and formats', (_, traces) => {
  it('score exactly as the canonical files: every metric, count, stage and offender', async () => {
    const suites = await scored(
      {
        'gold.jsonl': jsonl(GOLD),
        'traces.jsonl': jsonl(traces),
        'gold-a.jsonl': jsonl(GOLD.map(nestedA.gold)),
        'traces-a.jsonl': jsonl(traces.map(nestedA.trace)),
        'traces-b.jsonl': jsonl(traces.map(nestedB.trace)),
        'traces.otlp.jsonl': otlpLines(traces, questionOf),
        'spans.json': phoenixArray(traces, questionOf),
        'gold.parquet': parquetGold(GOLD),
        'traces.parquet': parquetTraces(traces),
        // A Parquet gold set mapped with fields: keeps the question its mapping names, for the offenders.
        'gold-a.parquet': Buffer.from(
          parquetWriteBuffer({
            columnData: ['item', 'label'].map((name) => ({
              name,
              data: GOLD.map((g) => nestedA.gold(g)[name as 'item' | 'label']),
            })),
            rowGroupSize: 16,
          }),
        ),
      },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        nestedA: {
          ...QA,
          gold: 'gold-a.jsonl',
          traces: 'traces-a.jsonl',
          fields: { traces: nestedA.traceFields, gold: nestedA.goldFields },
        },
        nestedB: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'traces-b.jsonl',
          fields: { traces: nestedB.traceFields },
        },
        otlp: { ...QA, gold: 'gold.jsonl', traces: 'traces.otlp.jsonl', format: 'openinference' },
        otlpByMetadata: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'traces.otlp.jsonl',
          format: 'openinference',
          openinference: { qid: 'metadata.qid' },
        },
        phoenix: { ...QA, gold: 'gold.jsonl', traces: 'spans.json', format: 'openinference' },
        parquet: { ...QA, gold: 'gold.parquet', traces: 'traces.parquet' },
        parquetNested: {
          ...QA,
          gold: 'gold-a.parquet',
          traces: 'traces.parquet',
          fields: { gold: nestedA.goldFields },
        },
      },
    );
    const canonical = scoredPart(suites.canonical);
    for (const name of ['nestedB', 'otlp', 'phoenix'])
      expect(suites[name]!.gold).toEqual(suites.canonical!.gold);
    // The example's own figures, so that equal cannot mean equally empty.
    expect(Object.keys(suites.canonical!.metrics)).toHaveLength(9);
    expect(suites.canonical!.counts.trace_lines).toBe(traces.length);
    expect((suites.canonical!.offenders[0] as { question?: unknown }).question).toEqual(expect.any(String));
    for (const name of ['nestedA', 'nestedB', 'otlpByMetadata', 'parquet', 'parquetNested']) {
      expect([name, scoredPart(suites[name])]).toEqual([name, canonical]);
    }
    // Matched by their question, traces of questions not in gold are named by it.
    const otlp = scoredPart(suites.otlp) as { warnings: string[] };
    const canonicalWarnings = (canonical as { warnings: string[] }).warnings;
    expect({ ...otlp, warnings: [] }).toEqual({ ...canonical, warnings: [] });
    expect(otlp.warnings).toEqual(
      canonicalWarnings.map((w) => w.replace('FM999', 'a question not in gold (FM999)')),
    );
    // Offenders point at the user's own files and lines (rows for Parquet).
    const first = (name: string) =>
      (suites[name]!.offenders[0] as { trace?: string; source?: unknown }) ?? {};
    expect(first('canonical').trace).toMatch(/^traces\.jsonl:\d+$/);
    expect(first('nestedA').trace).toBe(first('canonical').trace!.replace('traces.jsonl', 'traces-a.jsonl'));
    expect(first('parquet').trace).toBe(
      first('canonical').trace!.replace('traces.jsonl:', 'traces.parquet row '),
    );
    expect(first('parquet').source).toEqual({
      file: 'gold.parquet',
      line: (first('canonical').source as { line: number }).line,
    });
  });
});

describe('claims matched normalized, in every format, on one thread or several (dist)', () => {
  // The judging sites differ by format (lines read back, OTLP winners judged on helpers, Parquet rows held):
  // each must pass the normalized rule on, or a format would match by substring alone, silently. On four
  // threads the OTLP helpers judge most winners (this thread keeps 27%).
  it('score claims that only the normalized rule contains as the canonical files do', () => {
    // The example's claims with each gold fact's spaces doubled: the substring rule misses most, the
    // normalized rule (whitespace folded) finds them.
    const facts = new Map(GOLD.map((g) => [g.qid, g.gold_claim_substr]));
    const traces = TRACES.good.map((t) => {
      let claim = t.answer_json.claim;
      for (const fact of facts.get(t.qid) ?? []) {
        const at = claim.toLowerCase().indexOf(fact.toLowerCase());
        if (at >= 0 && fact.includes(' '))
          claim =
            claim.slice(0, at) +
            claim.slice(at, at + fact.length).replaceAll(' ', '  ') +
            claim.slice(at + fact.length);
      }
      return { ...t, answer_json: { ...t.answer_json, claim } };
    });
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(traces),
      'o.jsonl': otlpLines(traces, questionOf),
      'a.jsonl': jsonl(traces.map(nestedA.trace)),
    });
    writeFileSync(path.join(dir, 'traces.parquet'), parquetTraces(traces));
    const claims = { match: 'normalized' };
    const suites = {
      canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl', claims },
      substring: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
      parquet: { ...QA, gold: 'gold.jsonl', traces: 'traces.parquet', claims },
      otlp: { ...QA, gold: 'gold.jsonl', traces: 'o.jsonl', format: 'openinference', claims },
      mapped: {
        ...QA,
        gold: 'gold.jsonl',
        traces: 'a.jsonl',
        fields: { traces: nestedA.traceFields },
        claims,
      },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    for (const threads of ['1', '4']) {
      const r = runCli(['check', '-c', 'gates.yaml', '--report', 'report.json'], dir, {
        GROUNDGATE_THREADS: threads,
      });
      expect([threads, r.status]).toEqual([threads, 0]);
      const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
        suites: Record<
          string,
          { metrics: { precision: { numerator: number } }; counts: Record<string, number> }
        >;
      };
      const { canonical, substring } = report.suites;
      expect(canonical!.counts.claims_normalized).toBeGreaterThan(10);
      expect(canonical!.metrics.precision.numerator).toBeGreaterThan(substring!.metrics.precision.numerator);
      for (const name of ['parquet', 'otlp', 'mapped']) {
        expect([threads, name, report.suites[name]!.metrics]).toEqual([threads, name, canonical!.metrics]);
        expect([threads, name, report.suites[name]!.counts.claims_normalized]).toEqual([
          threads,
          name,
          canonical!.counts.claims_normalized,
        ]);
      }
    }
  }, 120_000);
});

/** The example as another writer (DuckDB) writes it, once per codec: see test/fixtures/README.md. */
const duckdb = (name: string) => readFileSync(path.join(FIXTURES, 'duckdb', name));
const CODECS = ['snappy', 'zstd', 'gzip', 'brotli'] as const;

describe('Parquet from another writer, in every codec read', () => {
  it('scores exactly as the canonical files', async () => {
    const files: Record<string, string | Buffer> = {
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(TRACES.good),
    };
    const suites: Record<string, Suite> = {
      canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
    };
    for (const codec of CODECS) {
      files[`${codec}.gold.parquet`] = duckdb(`qa.gold.${codec}.parquet`);
      files[`${codec}.trace.parquet`] = duckdb(`qa.trace.${codec}.parquet`);
      suites[codec] = { ...QA, gold: `${codec}.gold.parquet`, traces: `${codec}.trace.parquet` };
    }
    const scoredSuites = await scored(files, suites);
    const canonical = scoredPart(scoredSuites.canonical);
    // The example's own figures, so that equal cannot mean equally empty.
    expect(scoredSuites.canonical!.metrics.precision).toMatchObject({ numerator: 30, denominator: 33 });
    expect(scoredSuites.canonical!.counts).toMatchObject({ trace_lines: 50, superseded_runs: 3 });
    for (const codec of CODECS) expect([codec, scoredPart(scoredSuites[codec])]).toEqual([codec, canonical]);
  });

  it('a codec it does not read is named, with those it does', async () => {
    expect(
      await errorOf(
        { 'gold.jsonl': jsonl(GOLD), 'traces.parquet': duckdb('qa.trace.lz4_raw.parquet') },
        { ...QA, gold: 'gold.jsonl', traces: 'traces.parquet' },
      ),
    ).toBe(
      'traces.parquet row 1: cannot decode rows 1–50 (parquet unsupported compression codec: LZ4_RAW); expected a Parquet file compressed with snappy, zstd, gzip, brotli or none',
    );
  });
});

describe('stability and latency read the same formats', () => {
  it('stability runs mapped with fields: score as the canonical runs', async () => {
    const runs = readJsonlFile<Record<string, unknown>>('examples/stability/runs.jsonl');
    const gold = readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8');
    const suites = await scored(
      {
        'gold.jsonl': gold,
        'runs.jsonl': jsonl(runs),
        'runs-a.jsonl': jsonl(
          runs.map((r) => ({ q: { id: r.qid, run: r.run_id }, out: r.answer_json, docs: r.retrieved_ids })),
        ),
      },
      {
        canonical: { kind: 'stability', gold: 'gold.jsonl', runs: 'runs.jsonl' },
        mapped: {
          kind: 'stability',
          gold: 'gold.jsonl',
          runs: 'runs-a.jsonl',
          fields: {
            runs: { '/qid': '/q/id', '/run_id': '/q/run', '/answer_json': '/out', '/retrieved_ids': '/docs' },
          },
        },
      },
    );
    expect(suites.canonical!.counts.run_lines).toBe(runs.length);
    expect(scoredPart(suites.mapped)).toEqual(scoredPart(suites.canonical));
  });

  it('latency reads latency_ms from OpenInference spans (the root span’s duration) and Parquet', async () => {
    const { good, regressed } = TRACES;
    const suites = await scored(
      {
        'gold.json.l': jsonl(GOLD),
        'good.jsonl': jsonl(good),
        'regressed.jsonl': jsonl(regressed),
        'good.otlp': otlpLines(good, questionOf),
        'regressed.otlp': otlpLines(regressed, questionOf),
        'good.parquet': parquetTraces(good),
        'regressed.parquet': parquetTraces(regressed),
      },
      {
        canonical: { kind: 'latency', traces: '*.jsonl', gold: 'gold.json.l' },
        otlp: { kind: 'latency', traces: '*.otlp', gold: 'gold.json.l', format: 'openinference' },
        parquet: { kind: 'latency', traces: '*.parquet', gold: 'gold.json.l' },
      },
    );
    const metrics = suites.canonical!.metrics;
    expect(metrics.p95_ms!.value).toBeGreaterThan(0);
    // End to end alike; spans also time the stages, which JSON Lines traces cannot (latency.spans.test.ts).
    const endToEnd = (m: typeof metrics) =>
      Object.fromEntries(Object.entries(m).filter(([k]) => !k.includes('.')));
    expect(endToEnd(suites.otlp!.metrics)).toEqual(endToEnd(metrics));
    expect(suites.parquet!.metrics).toEqual(metrics);
    // Each file is a configuration, scored for accuracy with the grounded-qa definitions: the same rows but
    // for the configuration's name.
    const rows = (name: string) =>
      suites[name]!.tables![0]!.rows.map((r) =>
        JSON.stringify(r.slice(1)).replace(/\.(?:otlp|parquet|jsonl)\b/g, ''),
      );
    expect(rows('canonical')).toHaveLength(2);
    // Precision without SCU (latency's default): 30/33 for the good traces, 18/32 for the regressed.
    expect(suites.canonical!.tables![0]!.rows.map((r) => r[6])).toEqual([30 / 33, 18 / 32]);
    expect(rows('otlp')).toEqual(rows('canonical'));
    expect(rows('parquet')).toEqual(rows('canonical'));
  });
});

/** Text marked to be made not UTF-8 by `broken`, in a file written uncompressed (so the mark is found in it). */
const MARK = 'QQQQ';

/** The mark's first two bytes become FF FE: never UTF-8. */
function broken(b: Buffer): Buffer {
  const at = b.indexOf(MARK);
  expect(at).toBeGreaterThan(0);
  b[at] = 0xff;
  b[at + 1] = 0xfe;
  return b;
}

async function errorOf(files: Record<string, string | Buffer>, suite: Suite): Promise<string> {
  return scored(files, { s: suite }).then(
    () => 'no error',
    (err: unknown) => {
      if (!(err instanceof InputError)) throw err;
      return err.message.replace(/[^\s(]*groundgate-test-[^/]+\//g, '');
    },
  );
}

describe('errors name the file, the line (or row), the user’s pointer and the canonical member', () => {
  const traces = TRACES.good.map(nestedA.trace);
  const base = { ...QA, gold: 'gold.jsonl', traces: 'mine.jsonl', fields: { traces: nestedA.traceFields } };

  it('a mapped member of the wrong type', async () => {
    const bad = traces.map((t, i) => (i === 11 ? { ...t, output: { ...t.output, sources: 7 } } : t));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': jsonl(bad) }, base)).toBe(
      'mine.jsonl:12: /output/sources (answer_json.citations): expected array, found number (a trace {qid, retrieved_ids, answer_json: {claim, citations}})',
    );
  });

  it('a mapped member missing, an element of the wrong type, a member read from its own place', async () => {
    const missing = traces.map((t, i) => (i === 2 ? { ...t, request: {} } : t));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': jsonl(missing) }, base)).toBe(
      'mine.jsonl:3: /request/id (qid): missing; expected string (a trace {qid, retrieved_ids, answer_json: {claim, citations}})',
    );
    const element = traces.map((t, i) => (i === 4 ? { ...t, retrieval: { ids: ['a', 3] } } : t));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': jsonl(element) }, base)).toBe(
      'mine.jsonl:5: /retrieval/ids/1 (retrieved_ids[1]): expected string, found number (a trace {qid, retrieved_ids, answer_json: {claim, citations}})',
    );
    const own = traces.map((t, i) => (i === 0 ? { ...t, ok: 'yes' } : t));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': jsonl(own) }, base)).toBe(
      'mine.jsonl:1: /ok: expected boolean, found string (a trace {qid, retrieved_ids, answer_json: {claim, citations}})',
    );
  });

  it('the same checks as canonical gold: a duplicate qid after mapping', async () => {
    const gold = GOLD.map(nestedA.gold);
    gold[5] = { ...gold[5]!, item: { ...gold[5]!.item, key: GOLD[1]!.qid } };
    const suite = {
      ...QA,
      gold: 'gold-a.jsonl',
      traces: 'traces.jsonl',
      fields: { gold: nestedA.goldFields },
    };
    expect(await errorOf({ 'gold-a.jsonl': jsonl(gold), 'traces.jsonl': jsonl(TRACES.good) }, suite)).toBe(
      `gold-a.jsonl:6: duplicate qid "${GOLD[1]!.qid}" (first defined at line 2); expected unique qids`,
    );
  });

  it('pointers in gates.yaml are checked where they are written', async () => {
    const dir = tmpTree({
      'gates.yaml': [
        'version: 1',
        'suites:',
        '  s:',
        '    kind: grounded-qa',
        '    gold: gold.jsonl',
        '    traces: t.jsonl',
        '    fields:',
        '      traces:',
        '        /answer_json/claim: output/text',
        '',
      ].join('\n'),
    });
    const r = runCli(['check', '-c', path.join(dir, 'gates.yaml')], dir);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      `groundgate: gates.yaml:9:29: suite "s": fields.traces./answer_json/claim: "output/text" expected a JSON Pointer starting with "/" (RFC 6901)`,
    );
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      readFileSync(path.join(dir, 'gates.yaml'), 'utf8').replace(
        '/answer_json/claim: output/text',
        '/answer/claim: /a~2',
      ),
    );
    const r2 = runCli(['check', '-c', path.join(dir, 'gates.yaml')], dir);
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(
      /gates\.yaml:9:\d+: suite "s": fields\.traces\.\/answer\/claim: "\/answer\/claim" is not a member of the contract; expected one of \/ts, \/qid, /,
    );
  });

  it('a Parquet row of the wrong type names the row', async () => {
    const gold = GOLD.map((g, i) => (i === 6 ? { ...g, answerable: 'yes' as unknown as boolean } : g));
    const buf = parquetGold(gold.map((g) => ({ ...g, answerable: g.answerable === true })));
    // A column of one type throughout: the wrong type is a qid that is empty.
    const empty = parquetGold(GOLD.map((g, i) => (i === 6 ? { ...g, qid: '' } : g)));
    expect(buf.length).toBeGreaterThan(0);
    expect(
      await errorOf(
        { 'gold.parquet': empty, 'traces.jsonl': jsonl(TRACES.good) },
        { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' },
      ),
    ).toBe(
      'gold.parquet row 7: field "qid": expected a non-empty qid (a gold item {qid, question, answerable, gold_claim_substr, gold_citations})',
    );
    expect(
      await errorOf(
        { 'gold.parquet': 'not parquet', 'traces.jsonl': jsonl(TRACES.good) },
        { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' },
      ),
    ).toMatch(/^gold\.parquet: not a Parquet file \(.+\); expected a \.parquet file$/);
  });

  it('OpenInference: a span without ids, a root without the qid', async () => {
    const lines = otlpLines(TRACES.good, questionOf).trimEnd().split('\n');
    const noTrace = lines.map((l, i) => (i === 3 ? l.replace(/"traceId":"[0-9a-f]+",/g, '') : l)).join('\n');
    const suite = { ...QA, gold: 'gold.jsonl', traces: 'o.jsonl', format: 'openinference' };
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'o.jsonl': noTrace }, suite)).toBe(
      'o.jsonl:4: span "qa" has no traceId; expected OTLP "traceId" or Phoenix "context.trace_id"',
    );
    expect(
      await errorOf(
        { 'gold.jsonl': jsonl(GOLD), 'o.jsonl': lines.join('\n') },
        { ...suite, openinference: { qid: 'metadata.run' } },
      ),
    ).toBe(
      'o.jsonl:1: trace "00000000000000000000000000000001": its root span "qa" has no metadata.run; expected the question id (see openinference.qid)',
    );
  });
});

describe('the bundle reads every format as a real process', () => {
  it('dist/cli scores Parquet, OTLP and mapped traces as the canonical ones', async () => {
    const traces = TRACES.regressed;
    const dir = tmpTree({});
    const files: Record<string, string | Buffer> = {
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(traces),
      'gold.parquet': parquetGold(GOLD),
      'traces.parquet': parquetTraces(traces),
      'o.jsonl': otlpLines(traces, questionOf),
      'a.jsonl': jsonl(traces.map(nestedA.trace)),
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
    const suites = {
      canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
      parquet: { ...QA, gold: 'gold.parquet', traces: 'traces.parquet' },
      otlp: {
        ...QA,
        gold: 'gold.jsonl',
        traces: 'o.jsonl',
        format: 'openinference',
        openinference: { qid: 'metadata.qid' },
      },
      mapped: { ...QA, gold: 'gold.jsonl', traces: 'a.jsonl', fields: { traces: nestedA.traceFields } },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    const r = runCli(['check', '-c', 'gates.yaml', '--report', 'report.json'], dir);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
      suites: Record<string, { metrics: unknown }>;
    };
    expect(report.suites.canonical!.metrics).toMatchObject({
      precision: { value: 0.5, numerator: 16, denominator: 32 },
    });
    for (const name of ['parquet', 'otlp', 'mapped'])
      expect(report.suites[name]!.metrics).toEqual(report.suites.canonical!.metrics);
    // The bundle digests Parquet gold on the thread decoding it; from sources, rows and digests are made on
    // the thread that reads them: the same digests, the set's and every item's.
    const { report: here } = await run({ config: path.join(dir, 'gates.yaml') });
    const digests = (s: unknown) => {
      const { gold, items } = s as { gold: unknown; items: Record<string, { gold?: string }> };
      return { gold, items: Object.entries(items).map(([id, item]) => [id, item.gold]) };
    };
    const bundled = digests(report.suites.parquet);
    expect(bundled.items.length).toBe(GOLD.length);
    expect(bundled.items.every(([, d]) => typeof d === 'string' && d.length === 16)).toBe(true);
    expect(bundled).toEqual(digests(JSON.parse(JSON.stringify(here.suites.parquet))));
  }, 60_000);

  it('dist/cli: a gold row’s error comes before a later row group’s decoding error, as from sources', async () => {
    const dir = tmpTree({ 'traces.jsonl': jsonl(TRACES.good) });
    const file = path.join(dir, 'gold.parquet');
    const bad = parquetGold(GOLD.map((g, i) => (i === 2 ? { ...g, qid: '' } : g)));
    writeFileSync(file, await brokenSecondGroup(bad, file));
    const suite = { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites: { s: suite } }));
    const expected =
      'gold.parquet row 3: field "qid": expected a non-empty qid (a gold item {qid, question, answerable, gold_claim_substr, gold_citations})';
    const r = runCli(['check', '-c', 'gates.yaml'], dir);
    expect([r.status, r.stderr.trim()]).toEqual([2, `groundgate: ${expected}`]);
    await expect(run({ config: path.join(dir, 'gates.yaml') })).rejects.toThrow(expected);
  }, 60_000);

  it('dist/cli: a Parquet file of flipped bytes, in any codec, ends in a result or one line (seeded fuzz)', () => {
    const rnd = seeded(20261126);
    const dir = tmpTree({ 'traces.jsonl': jsonl(TRACES.good) });
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      YAML.stringify({ version: 1, suites: { s: { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' } } }),
    );
    const statuses: number[] = [];
    for (const codec of CODECS)
      for (let n = 0; n < 4; n++) {
        const bytes = Buffer.from(duckdb(`qa.gold.${codec}.parquet`));
        for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--)
          bytes[4 + Math.floor(rnd() * (bytes.length - 8))] = Math.floor(rnd() * 256);
        writeFileSync(path.join(dir, 'gold.parquet'), bytes);
        const r = runCli(['check', '-c', 'gates.yaml'], dir, { GROUNDGATE_DECODE_SECONDS: '10' });
        expect([0, 1, 2]).toContain(r.status);
        if (r.status === 2) expect(r.stderr).toMatch(/^groundgate: gold\.parquet[: ][^\n]*\n$/);
        statuses.push(r.status!);
      }
    // Most flips break the file; some land where no check looks (a value's bytes).
    expect(statuses.filter((s) => s === 2).length).toBeGreaterThan(8);
  }, 120_000);

  it('dist/cli reads zstd and gzip Parquet (the codecs bundled with it)', () => {
    const dir = tmpTree({});
    writeFileSync(path.join(dir, 'gold.jsonl'), jsonl(GOLD));
    writeFileSync(path.join(dir, 'traces.jsonl'), jsonl(TRACES.good));
    const suites: Record<string, Suite> = {
      canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
    };
    for (const codec of ['zstd', 'gzip']) {
      for (const what of ['gold', 'trace'])
        writeFileSync(path.join(dir, `${what}.${codec}.parquet`), duckdb(`qa.${what}.${codec}.parquet`));
      suites[codec] = { ...QA, gold: `gold.${codec}.parquet`, traces: `trace.${codec}.parquet` };
    }
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    const r = runCli(['check', '-c', 'gates.yaml', '--report', 'report.json'], dir);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
      suites: Record<string, { metrics: unknown }>;
    };
    expect(report.suites.canonical!.metrics).toMatchObject({ precision: { numerator: 30, denominator: 33 } });
    for (const codec of ['zstd', 'gzip'])
      expect(report.suites[codec]!.metrics).toEqual(report.suites.canonical!.metrics);
  }, 60_000);
});

describe('what a review found (each failed before its fix)', () => {
  const traces = TRACES.regressed;

  it('spans of one trace in two files are one trace (a file exporter rotates between a trace’s spans)', async () => {
    const lines = otlpLines(traces, questionOf).trimEnd().split('\n');
    // Each export split in two: its spans but the root in one file, the root in the next.
    const children: string[] = [];
    const roots: string[] = [];
    for (const l of lines) {
      const doc = JSON.parse(l) as {
        resourceSpans: { scopeSpans: { spans: { parentSpanId?: string }[] }[] }[];
      };
      const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
      const part = (keep: (s: { parentSpanId?: string }) => boolean) =>
        JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: spans.filter(keep) }] }] });
      children.push(part((s) => s.parentSpanId !== undefined));
      roots.push(part((s) => s.parentSpanId === undefined));
    }
    const suites = await scored(
      {
        'gold.jsonl': jsonl(GOLD),
        'traces.jsonl': jsonl(traces),
        'a.otlp.jsonl': children.join('\n') + '\n',
        'b.otlp.jsonl': roots.join('\n') + '\n',
      },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        split: {
          ...QA,
          gold: 'gold.jsonl',
          traces: '*.otlp.jsonl',
          format: 'openinference',
          openinference: { qid: 'metadata.qid' },
        },
      },
    );
    expect(suites.split!.counts).toEqual(suites.canonical!.counts);
    expect(suites.split!.metrics).toEqual(suites.canonical!.metrics);
  });

  it('a parentSpanId cycle is a one-line error, not a crash', async () => {
    const span = (id: string, parent: string) => ({
      traceId: 't1',
      spanId: id,
      parentSpanId: parent,
      name: id,
      startTimeUnixNano: '1',
      endTimeUnixNano: '2',
      attributes: [],
    });
    const line = JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [span('a', 'b'), span('b', 'a')] }] }],
    });
    expect(
      await errorOf(
        { 'gold.jsonl': jsonl(GOLD), 'o.jsonl': line + '\n' },
        { ...QA, gold: 'gold.jsonl', traces: 'o.jsonl', format: 'openinference' },
      ),
    ).toBe(
      'o.jsonl:1: trace "t1" has no root span: every span\'s parentSpanId names another span of the trace (a cycle); expected one span without a parent',
    );
  });

  it('spans that cannot be one trace, and data a trace would lose, are one-line errors naming the span', async () => {
    const kv = (key: string, v: object) => ({ key, value: v });
    const span = (over: Record<string, unknown> = {}) => ({
      traceId: 't1',
      spanId: 'a',
      name: 'qa',
      startTimeUnixNano: '1767225600000000000',
      endTimeUnixNano: '1767225601500000000',
      attributes: [
        kv('openinference.span.kind', { stringValue: 'CHAIN' }),
        kv('metadata', { stringValue: `{"qid":"${GOLD[0]!.qid}"}` }),
        kv('output.value', { stringValue: '{"claim":"x","citations":[]}' }),
      ],
      ...over,
    });
    const retriever = (docs: [number, object][]) =>
      span({
        spanId: 'r',
        parentSpanId: 'a',
        name: 'retrieve',
        attributes: [
          kv('openinference.span.kind', { stringValue: 'RETRIEVER' }),
          ...docs.map(([n, v]) => kv(`retrieval.documents.${n}.document.id`, v)),
        ],
      });
    const line = (...spans: object[]) =>
      JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }) + '\n';
    const suite = {
      ...QA,
      gold: 'gold.jsonl',
      traces: 'o*.jsonl',
      format: 'openinference',
      openinference: { qid: 'metadata.qid' },
    };
    const error = (...lines: string[]) =>
      errorOf(
        { 'gold.jsonl': jsonl(GOLD), ...Object.fromEntries(lines.map((l, i) => [`o${i}.jsonl`, l])) },
        suite,
      );
    const good = line(span(), retriever([[0, { stringValue: 'd#1' }]]));
    // The same export in two files (a download kept twice): not one trace of twice the documents.
    expect(await error(good, good)).toBe(
      'o1.jsonl:1: trace "t1": span "a" again (first at o0.jsonl:1); expected each span once (one export read twice?)',
    );
    // One trace id in two runs: two roots.
    expect(await error(good, line(span({ spanId: 'b' })))).toBe(
      'o1.jsonl:1: trace "t1": a second span without a parent, "qa" (the first, "qa", at o0.jsonl:1); expected one root span a trace (the same trace id in two runs?)',
    );
    expect(await error(line(span({ endTimeUnixNano: '1767225599000000000' })))).toBe(
      'o0.jsonl:1: trace "t1": its root span "qa" ends before it starts (-1000 ms); expected endTimeUnixNano at or after startTimeUnixNano',
    );
    expect(
      await error(
        line(span()),
        line(
          retriever([
            [0, { stringValue: 'd#1' }],
            [2, { stringValue: 'd#3' }],
          ]),
        ),
      ),
    ).toBe(
      'o1.jsonl:1: retriever span "retrieve" has no retrieval.documents.1.document.id, but one numbered 2; expected documents numbered from 0 without a gap',
    );
    expect(await error(line(span()), line(retriever([[0, { intValue: '7' }]])))).toBe(
      'o1.jsonl:1: retriever span "retrieve" has retrieval.documents.0.document.id 7; expected a string',
    );
    expect(await error(line(span({ attributes: 'none' })))).toBe(
      'o0.jsonl:1: span "qa": attributes is "none"; expected an array of {"key", "value"} (OTLP) or an object (Phoenix)',
    );
    expect(await error(line(span({ attributes: [{ kye: 'input.value', value: {} }] })))).toBe(
      'o0.jsonl:1: span "qa": an attribute is {"kye":"input.value","value":{}}; expected {"key": "…", "value": {…}}',
    );
    // A pretty-printed OTLP document (a .json file): errors name the span's own line, not the document's first.
    const doc = (...spans: object[]) =>
      JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, null, 2);
    const gap = retriever([
      [0, { stringValue: 'd#1' }],
      [2, { stringValue: 'd#3' }],
    ]);
    const pretty = doc(span({ traceId: 't0', spanId: 'z' }), span(), gap);
    // A span's `{` is two lines above its spanId (traceId comes between).
    const lineOf = (text: string, spanId: string) =>
      text.slice(0, text.indexOf(`"spanId": "${spanId}"`)).split('\n').length - 2;
    const jsonSuite = { ...suite, traces: 'spans.json' };
    const documentError = (text: string) =>
      errorOf({ 'gold.jsonl': jsonl(GOLD), 'spans.json': text }, jsonSuite);
    expect(pretty.split('\n')[lineOf(pretty, 'r') - 1]).toBe('            {');
    expect(lineOf(pretty, 'r')).toBeGreaterThan(30);
    expect(await documentError(pretty)).toBe(
      `spans.json:${lineOf(pretty, 'r')}: retriever span "retrieve" has no retrieval.documents.1.document.id, but one numbered 2; expected documents numbered from 0 without a gap`,
    );
    const late = doc(span({ traceId: 't0', spanId: 'z' }), span({ endTimeUnixNano: '1767225599000000000' }));
    expect(await documentError(late)).toBe(
      `spans.json:${lineOf(late, 'a')}: trace "t1": its root span "qa" ends before it starts (-1000 ms); expected endTimeUnixNano at or after startTimeUnixNano`,
    );
    // A key JSON.parse reads otherwise than the walk (given twice): line 1, as before, not a wrong line.
    const twice = pretty.replace('{\n  "resourceSpans"', '{\n  "resourceSpans": [],\n  "resourceSpans"');
    expect(await documentError(twice)).toBe(
      'spans.json:1: retriever span "retrieve" has no retrieval.documents.1.document.id, but one numbered 2; expected documents numbered from 0 without a gap',
    );
    const metadata = (text: string) =>
      line(
        span({
          attributes: [kv('metadata', { stringValue: text }), kv('output.value', { stringValue: 'x' })],
        }),
      );
    expect(await error(metadata('{"qid":""}'))).toBe(
      'o0.jsonl:1: trace "t1": its root span "qa" has an empty metadata.qid; expected the question id (see openinference.qid)',
    );
    // A key the metadata object has only by inheritance is no key of the user's.
    expect(
      await errorOf(
        { 'gold.jsonl': jsonl(GOLD), 'o0.jsonl': metadata('{"qid":"x"}') },
        { ...suite, openinference: { qid: 'metadata.constructor' } },
      ),
    ).toBe(
      'o0.jsonl:1: trace "t1": its root span "qa" has no metadata.constructor; expected the question id (see openinference.qid)',
    );
  });

  it('attributes nested 50,000 deep are an input error at their line, not a stack overflow', async () => {
    const deep = (n: number, leaf: string) => '{"a":'.repeat(n) + leaf + '}'.repeat(n);
    const lines = otlpLines(traces, questionOf).trimEnd().split('\n');
    // A Phoenix span with nested attributes, and an OTLP attribute of arrays in arrays: both left out.
    const phoenix = `{"name":"x","context":{"trace_id":"deep","span_id":"d1"},"span_kind":"TOOL","start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:00:01Z","attributes":{"input":{"value":"q"},"x":${deep(50_000, '1')}}}`;
    const nested = '{"arrayValue":{"values":['.repeat(50_000) + ']}}'.repeat(50_000);
    const otlp = lines[0]!.replace('"attributes":[', `"attributes":[{"key":"junk","value":${nested}},`);
    const suite = { ...QA, gold: 'gold.jsonl', traces: 'o.jsonl', format: 'openinference' };
    const r = await errorOf(
      { 'gold.jsonl': jsonl(GOLD), 'o.jsonl': [otlp, ...lines.slice(1), phoenix].join('\n') },
      suite,
    );
    // Past MAX_JSON_DEPTH (512): a walk of such a value (a digest, a copy to a thread) would overflow.
    expect(r).toBe('o.jsonl:1: JSON nested 150006 levels deep; expected at most 512');
    const phoenixOnly = await errorOf(
      { 'gold.jsonl': jsonl(GOLD), 'o.jsonl': [...lines.slice(1), phoenix].join('\n') },
      suite,
    );
    expect(phoenixOnly).toBe('o.jsonl:48: JSON nested 50002 levels deep; expected at most 512');
  });

  it('a duplicate attributes list is read as JSON.parse reads it (the last one)', () => {
    const scan = otlpScanner(undefined);
    const line = Buffer.from(
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"retrieval.documents.0.document.id","value":{"stringValue":"d1"}}],"attributes":[]}]}]}]}',
    );
    expect(scan(line, 0, line.length, 1)).toBeUndefined(); // left to JSON.parse
    expect(spanFacts(JSON.parse(line.toString()), 'o', 1, undefined)[0]!.documents).toEqual([]);
  });

  it('a mapped place read both by key and by index is left to JSON.parse, which reads the member "1"', async () => {
    const fields = { '/answer_json': '/r', '/ts': '/r/1' };
    // In reverse order: only `ts`, read from /r/1, still makes the newer of FM002's two runs the one scored.
    const mapped = traces
      .map((t) => ({ qid: t.qid, retrieved_ids: t.retrieved_ids, r: { ...t.answer_json, 1: t.ts } }))
      .reverse();
    const suites = await scored(
      { 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(traces), 'm.jsonl': jsonl(mapped) },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        mapped: { ...QA, gold: 'gold.jsonl', traces: 'm.jsonl', fields: { traces: fields } },
      },
    );
    expect(suites.mapped!.metrics).toEqual(suites.canonical!.metrics);
  });

  it('Parquet: a timestamp out of range names its row; a file claiming too many rows a byte is refused', async () => {
    const ts = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'ts', data: [10n ** 17n], type: 'TIMESTAMP' },
          { name: 'qid', data: ['FM001'], type: 'STRING' },
        ],
      }),
    );
    const suite = { ...QA, gold: 'gold.jsonl', traces: 'traces.parquet' };
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'traces.parquet': ts }, suite)).toMatch(
      /^traces\.parquet row 1: cannot read a value \(Invalid time value\); expected values JavaScript can hold \(dates in its range, JSON nested less deep\)$/,
    );
    const n = 200_000;
    const bomb = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'qid', data: Array<string>(n).fill('FM001'), type: 'STRING' },
          { name: 'question', data: Array<string>(n).fill('q'), type: 'STRING' },
        ],
      }),
    );
    expect(
      await errorOf(
        { 'gold.parquet': bomb, 'traces.jsonl': jsonl(traces) },
        { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' },
      ),
    ).toBe(
      `gold.parquet: declares ${n} rows in ${bomb.length} bytes; expected at most 64 rows a byte (a file of this many rows would be larger)`,
    );
  });

  it('a Parquet file whose row group names a column its schema lacks: one line, not an internal error (fuzzing found it)', () => {
    // hyparquet stopped at that column with reads of the others under way: their failures went unheard and
    // ended the decoding thread, which the run reported as an internal error with a stack.
    const bytes = Buffer.from(duckdb('qa.gold.snappy.parquet'));
    const at = bytes.lastIndexOf('gold_claim_substr');
    expect(at).toBeGreaterThan(bytes.indexOf('gold_claim_substr'));
    bytes[at + 1] = 0x58; // "gXld_claim_substr", in the row group's column metadata only
    bytes[80]! ^= 0xff; // and the first column's page, read before hyparquet stopped
    const dir = tmpTree({ 'traces.jsonl': jsonl(traces) });
    writeFileSync(path.join(dir, 'gold.parquet'), bytes);
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      YAML.stringify({ version: 1, suites: { s: { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' } } }),
    );
    const r = runCli(['check', '-c', 'gates.yaml'], dir);
    expect([r.status, r.stderr]).toEqual([
      2,
      'groundgate: gold.parquet: not a Parquet file (column "gXld_claim_substr.list.element" is not in the file\'s schema); expected a .parquet file\n',
    ]);
  });

  it('a run-length header claiming 2³¹ − 1 levels on a page of 16 is bounded by the page (a review forged it)', async () => {
    // hyparquet 1.33 wrote every value of a run, growing the levels array until V8 aborted the whole process
    // (17 s, 2.5 GB); patches/hyparquet+1.33.0.patch keeps a run within its page.
    const { readRleBitPackedHybrid } = await import('hyparquet/src/encoding.js');
    const run = Uint8Array.from([0xd0, 0x0f, 1]); // a run of 1000 ones
    const levels = new Array<number>(16);
    readRleBitPackedHybrid({ view: new DataView(run.buffer), offset: 0 }, 1, levels, run.length);
    expect(levels).toEqual(new Array(16).fill(1));
    // The same, forged into the example's gold as Parquet: the bundle scores it (fixtures/README.md).
    const dir = tmpTree({ 'traces.jsonl': jsonl(traces) });
    copyFileSync(path.join(FIXTURES, 'forged', 'qa.gold.rle-run.parquet'), path.join(dir, 'gold.parquet'));
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      YAML.stringify({ version: 1, suites: { s: { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' } } }),
    );
    const r = runCli(['check', '-c', 'gates.yaml', '--format', 'json'], dir);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/error/i);
    expect(JSON.parse(r.stdout).suites.s.counts.gold).toBe(GOLD.length);
  });

  it('forged Parquet: row counts that disagree, a page bomb, no leading magic, invalid or deep JSON (one line each, exit 2)', () => {
    const dir = tmpTree({ 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(traces) });
    const outcome = (fixture: string | Buffer, key: 'gold' | 'traces' = 'gold') => {
      const file = `${key}.parquet`;
      if (typeof fixture === 'string')
        copyFileSync(path.join(FIXTURES, 'forged', fixture), path.join(dir, file));
      else writeFileSync(path.join(dir, file), fixture);
      const suite = { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl', [key]: file };
      writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites: { s: suite } }));
      const r = runCli(['check', '-c', 'gates.yaml'], dir);
      return [r.status, r.stderr];
    };
    expect(outcome('qa.gold.rows-file.parquet')).toEqual([
      2,
      'groundgate: gold.parquet: the file says 20 rows, but its row groups hold 47; expected row counts that agree (is the file damaged?)\n',
    ]);
    expect(outcome('qa.gold.rows-group.parquet')).toEqual([
      2,
      'groundgate: gold.parquet: row group 2 says 10 rows, but its column "qid" holds 16 values; expected row counts that agree (is the file damaged?)\n',
    ]);
    const magic = Buffer.from(duckdb('qa.gold.snappy.parquet'));
    magic[0] = 0x51; // "QAR1": hyparquet reads the footer alone
    expect(outcome(magic)).toEqual([
      2,
      'groundgate: gold.parquet: not a Parquet file (it does not begin with PAR1); expected a .parquet file\n',
    ]);
    // JSON.parse's own words, which Node 24 adds to ("… at position 15 (line 1 column 16)"), at the row that
    // holds the text (row 16), not the first of the rows decoded with it (row 9).
    expect(outcome('qa.trace.bad-json.parquet', 'traces')).toEqual([
      2,
      expect.stringMatching(
        /^groundgate: traces\.parquet row 16: column "answer_json" of the JSON type holds invalid JSON \(Expected double-quoted property name in JSON at position 15( \(line 1 column 16\))?\); expected JSON text\n$/,
      ),
    ]);
    expect(outcome('qa.gold.brotli-bomb.parquet')).toEqual([
      2,
      'groundgate: gold.parquet row 1: cannot decode rows 1–47: a page of 16777216 values in a row group of 47 rows; expected pages that hold what their row group and column chunk say (is the file damaged?)\n',
    ]);
    expect(outcome('qa.trace.nested-bomb.parquet', 'traces')).toEqual([
      2,
      'groundgate: traces.parquet row 1: cannot decode rows 1–50: a page of 16777216 values beyond the 50 its column chunk holds; expected pages that hold what their row group and column chunk say (is the file damaged?)\n',
    ]);
    expect(outcome('qa.gold.deep-json.parquet')).toEqual([
      2,
      'groundgate: gold.parquet row 1: the rows from here do not decode: their values could not be passed between threads; expected values it can read (JSON nested thousands deep is not)\n',
    ]);
  });

  it('a Parquet string that is not UTF-8 is read with U+FFFD and named in a warning, as in JSON Lines', async () => {
    // Item 3's question holds a U+FFFD of its own, in valid bytes: not the row the warning names.
    const gold = GOLD.map((g, i) =>
      i === 14
        ? { ...g, question: MARK + g.question }
        : i === 2
          ? { ...g, question: `\ufffd ${g.question}` }
          : g,
    );
    const suites = await scored(
      {
        'gold.jsonl': broken(Buffer.from(jsonl(gold))),
        'gold.parquet': broken(parquetGold(gold, 'UNCOMPRESSED')),
        'traces.jsonl': jsonl(TRACES.good),
      },
      {
        lines: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        rows: { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' },
      },
    );
    const said = '15: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes';
    expect(suites.lines!.warnings).toContain(`gold.jsonl:${said} (first such line; expected UTF-8 text)`);
    expect(suites.rows!.warnings).toContain(`gold.parquet row ${said} (first such row; expected UTF-8 text)`);
    expect(suites.rows!.metrics).toEqual(suites.lines!.metrics);
    // The bundle decodes Parquet on a thread of its own, which hands its notes back with the rows.
    const dir = tmpTree({ 'traces.jsonl': jsonl(TRACES.good) });
    writeFileSync(path.join(dir, 'gold.parquet'), broken(parquetGold(gold, 'UNCOMPRESSED')));
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      YAML.stringify({
        version: 1,
        suites: { rows: { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' } },
      }),
    );
    const r = runCli(['check', '-c', 'gates.yaml', '--format', 'json'], dir);
    expect(JSON.parse(r.stdout).suites.rows.warnings).toContain(
      `gold.parquet row ${said} (first such row; expected UTF-8 text)`,
    );
  });

  it('Parquet reads as JSON Lines do: a null inside a JSON column, JSON text that is not UTF-8, two columns of one name', async () => {
    const traceSuite = (traces: string) => ({ ...QA, gold: 'gold.jsonl', traces });
    const both = async (t: TraceLine[]) => [
      await errorOf({ 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(t) }, traceSuite('traces.jsonl')),
      await errorOf(
        { 'gold.jsonl': jsonl(GOLD), 'traces.parquet': parquetTraces(t) },
        traceSuite('traces.parquet'),
      ),
    ];
    // A null in the JSON of answer_json is JSON's, not a Parquet null: refused as the JSON line is, even
    // where the member is optional (it used to be left out, and the trace scored).
    const withNull = (member: string) =>
      TRACES.good.map((t, i) => (i === 3 ? { ...t, answer_json: { ...t.answer_json, [member]: null } } : t));
    const what = '(a trace {qid, retrieved_ids, answer_json: {claim, citations}})';
    expect(await both(withNull('citations'))).toEqual([
      `traces.jsonl:4: field "answer_json.citations": expected array, received null ${what}`,
      `traces.parquet row 4: field "answer_json.citations": expected array, received null ${what}`,
    ]);
    const [lines, rows] = await both(withNull('constraints_echo'));
    expect(lines).toMatch(
      /^traces\.jsonl:4: field "answer_json\.constraints_echo": expected array, received null/,
    );
    expect(rows).toBe(lines!.replace('traces.jsonl:4:', 'traces.parquet row 4:'));

    // Bytes that are not UTF-8 in a JSON column's text: read with U+FFFD and named in a warning, as a line's.
    // Row 2 holds a U+FFFD of its own (valid text), in its claim: not the row the warning names.
    const marked = TRACES.good.map((t, i) =>
      i === 6
        ? { ...t, answer_json: { ...t.answer_json, claim: MARK + t.answer_json.claim } }
        : i === 1
          ? { ...t, answer_json: { ...t.answer_json, claim: `\ufffd ${t.answer_json.claim}` } }
          : t,
    );
    const uncompressed = Buffer.from(
      parquetWriteBuffer({
        codec: 'UNCOMPRESSED',
        columnData: [
          { name: 'ts', data: marked.map((t) => BigInt(t.ts as number)), type: 'INT64' },
          { name: 'qid', data: marked.map((t) => t.qid), type: 'STRING' },
          { name: 'retrieved_ids', data: marked.map((t) => t.retrieved_ids) },
          { name: 'answer_json', data: marked.map((t) => t.answer_json) },
        ],
        rowGroupSize: 16,
      }),
    );
    const files = {
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': broken(Buffer.from(jsonl(marked))),
      'traces.parquet': broken(uncompressed),
    };
    const suites = await scored(files, {
      lines: traceSuite('traces.jsonl'),
      rows: traceSuite('traces.parquet'),
    });
    const said = '7: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes';
    expect(suites.lines!.warnings).toContain(`traces.jsonl:${said} (first such line; expected UTF-8 text)`);
    expect(suites.rows!.warnings).toContain(
      `traces.parquet row ${said} (first such row; expected UTF-8 text)`,
    );
    expect(suites.rows!.metrics).toEqual(suites.lines!.metrics);
    // The bundle's helpers keep a JSON column's bytes undecoded (parquet-runs.ts): the same warning and errors.
    const dir = tmpTree({});
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
    const config = (traces: string) =>
      writeFileSync(
        path.join(dir, 'gates.yaml'),
        YAML.stringify({ version: 1, suites: { rows: traceSuite(traces) } }),
      );
    config('traces.parquet');
    const threaded = runCli(['check', '-c', 'gates.yaml', '--format', 'json'], dir, {
      GROUNDGATE_THREADS: '2',
    });
    expect(JSON.parse(threaded.stdout).suites.rows.warnings).toContain(
      `traces.parquet row ${said} (first such row; expected UTF-8 text)`,
    );
    writeFileSync(path.join(dir, 'null.parquet'), parquetTraces(withNull('constraints_echo')));
    config('null.parquet');
    const refused = runCli(['check', '-c', 'gates.yaml'], dir, { GROUNDGATE_THREADS: '2' });
    expect([refused.status, refused.stderr]).toEqual([
      2,
      `groundgate: ${rows!.replace('traces.parquet', 'null.parquet')}\n`,
    ]);

    // Two columns of one name: a row, an object, would keep one of them; the file is refused.
    const twice = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'qid', data: GOLD.map((g) => g.qid), type: 'STRING' },
          { name: 'question', data: GOLD.map((g) => g.question), type: 'STRING' },
          { name: 'qid', data: GOLD.map((g) => `${g.qid}-other`), type: 'STRING' },
        ],
      }),
    );
    expect(
      await errorOf(
        { 'gold.parquet': twice, 'traces.jsonl': jsonl(TRACES.good) },
        { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' },
      ),
    ).toBe('gold.parquet: the schema has two columns named "qid"; expected each name once');

    // JSON nested 16,000 deep in a row: too deep for the thread that decodes it to pass on (V8's serializer
    // recurses). One line naming that row, not an internal error; a helper keeps the bytes, and reads it.
    const stringify = JSON.stringify;
    const deep = '['.repeat(16_000) + ']'.repeat(16_000);
    let nestedRows: Buffer;
    try {
      // hyparquet-writer writes a JSON column with JSON.stringify, which cannot nest this deep.
      JSON.stringify = ((v: unknown, ...rest: []) =>
        typeof v === 'object' && v !== null && 'deep' in v
          ? stringify({ ...v, deep: 0 }).replace('"deep":0', `"deep":${deep}`)
          : stringify(v, ...rest)) as typeof JSON.stringify;
      nestedRows = parquetTraces(
        TRACES.good.map((t, i) => (i === 4 ? { ...t, answer_json: { ...t.answer_json, deep: 1 } } : t)),
      );
    } finally {
      JSON.stringify = stringify;
    }
    writeFileSync(path.join(dir, 'deep.parquet'), nestedRows);
    config('deep.parquet');
    const tooDeep = runCli(['check', '-c', 'gates.yaml'], dir);
    expect([tooDeep.status, tooDeep.stderr]).toEqual([
      2,
      'groundgate: deep.parquet row 5: the rows from here do not decode: their values could not be passed between threads; expected values it can read (JSON nested thousands deep is not)\n',
    ]);
    expect(runCli(['check', '-c', 'gates.yaml'], dir, { GROUNDGATE_THREADS: '2' }).status).toBe(0);
  });

  it('Parquet duplicates name rows; openinference: without format: openinference is refused', async () => {
    const gold = GOLD.map((g, i) => (i === 4 ? { ...g, qid: GOLD[1]!.qid } : g));
    expect(
      await errorOf(
        { 'gold.parquet': parquetGold(gold), 'traces.jsonl': jsonl(traces) },
        { ...QA, gold: 'gold.parquet', traces: 'traces.jsonl' },
      ),
    ).toBe(
      `gold.parquet row 5: duplicate qid "${GOLD[1]!.qid}" (first defined at row 2); expected unique qids`,
    );
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  s:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    openinference: { qid: metadata.qid }\n',
    });
    const r = runCli(['check', '-c', 'gates.yaml'], dir);
    expect([r.status, r.stderr.trim()]).toEqual([
      2,
      'groundgate: gates.yaml:7:5: suite "s": openinference: applies to spans only; expected format: otel (or openinference) with it, or no openinference',
    ]);
  });

  it('freeze locks mapped gold by its mapped qids, so check --release accepts it', () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD.map((g, i) => ({ id: `row${i}`, ...nestedA.gold(g) }))),
      'traces.jsonl': jsonl(traces),
    });
    const suites = {
      qa: {
        ...QA,
        gold: 'gold.jsonl',
        traces: 'traces.jsonl',
        lock: 'gold.lock.json',
        fields: { gold: nestedA.goldFields },
      },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    expect(runCli(['freeze'], dir).status).toBe(0);
    const lock = JSON.parse(readFileSync(path.join(dir, 'gold.lock.json'), 'utf8')) as { items: number };
    expect(lock.items).toBe(GOLD.length);
    expect(runCli(['verify'], dir).status).toBe(0);
    expect(runCli(['baseline'], dir).status).toBe(0);
    const r = runCli(['check', '--release'], dir);
    expect([r.status, r.stderr]).toEqual([0, '']);
  });

  it('stability offenders read Parquet gold once for all of them', async () => {
    // Every other run refuses: each question's refusals disagree, and every question is an offender.
    const runs = readJsonlFile<Record<string, unknown>>('examples/stability/runs.jsonl').map((r, i) =>
      i % 2 ? { ...r, answer_json: { claim: 'not in context', citations: [] } } : r,
    );
    const gold = readJsonlFile<GoldLine>('examples/stability/gold.jsonl');
    const suites = await scored(
      { 'gold.jsonl': jsonl(gold), 'gold.parquet': parquetGold(gold), 'runs.jsonl': jsonl(runs) },
      {
        canonical: { kind: 'stability', gold: 'gold.jsonl', runs: 'runs.jsonl' },
        parquet: { kind: 'stability', gold: 'gold.parquet', runs: 'runs.jsonl' },
      },
    );
    const offenders = (name: string) =>
      suites[name]!.offenders.map((o) => [o.id, (o.fields as Record<string, unknown> | undefined)?.question]);
    expect(offenders('canonical').length).toBeGreaterThan(0);
    expect(offenders('parquet')).toEqual(offenders('canonical'));
  });
});

// The bundle as a process: with helpers, the first digests the gold set while the main thread picks the
// winners; the report is the one a single thread writes, gold digest included.
describe('OpenInference traces on threads (dist)', () => {
  it('write the report one thread writes, its gold digest the canonical suite’s', () => {
    // One trace names no gold item: counted under its qid, or under its question's text.
    const traces = [...TRACES.regressed, { ...TRACES.regressed[0]!, qid: 'not-in-gold' }];
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(traces),
      'traces.otlp.jsonl': otlpLines(traces, questionOf),
    });
    const suites = {
      canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
      otlp: { ...QA, gold: 'gold.jsonl', traces: 'traces.otlp.jsonl', format: 'openinference' },
      byMetadata: {
        ...QA,
        gold: 'gold.jsonl',
        traces: 'traces.otlp.jsonl',
        format: 'openinference',
        openinference: { qid: 'metadata.qid' },
      },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    const report = (threads: string) => checkOnThreads(dir, threads);
    const one = report('1');
    const three = report('3');
    expect(three).toEqual(one);
    const { suites: out } = JSON.parse(three.report) as {
      suites: Record<string, { gold: unknown; counts: { unknown_qids: number } }>;
    };
    expect(out.otlp!.gold).toEqual(out.canonical!.gold);
    expect(out.byMetadata!.gold).toEqual(out.canonical!.gold);
    // The regressed example has one of its own.
    expect(['canonical', 'otlp', 'byMetadata'].map((k) => out[k]!.counts.unknown_qids)).toEqual([2, 2, 2]);
    expect([one.status, one.stderr]).toEqual([0, '']);
  }, 60_000);
});

// Issue 43, second round: OpenInference spans read one way, on any machine and any thread count, by both
// readers (the byte scanner on OTLP lines, JSON.parse on a .json document).
describe('OpenInference, hardened (each failed before its fix)', () => {
  const kv = (key: string, value: object) => ({ key, value });
  const answer = kv('output.value', { stringValue: '{"claim":"x","citations":[]}' });
  const span = (over: Record<string, unknown> = {}) => ({
    traceId: 't1',
    spanId: 'a',
    name: 'qa',
    startTimeUnixNano: '1767225600000000000',
    endTimeUnixNano: '1767225601500000000',
    attributes: [kv('metadata', { stringValue: `{"qid":"${GOLD[0]!.qid}"}` }), answer],
    ...over,
  });
  const request = (spans: object[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
  const line = (...spans: object[]) => JSON.stringify(request(spans)) + '\n';
  const suite = {
    ...QA,
    gold: 'gold.jsonl',
    traces: 'o.jsonl',
    format: 'openinference',
    openinference: { qid: 'metadata.qid' },
  };
  /** The error the spans give as an OTLP line and as a pretty-printed .json document: one text, the place apart. */
  const errorOfBoth = async (spans: object[], over: Suite = {}) => {
    const gold = jsonl(GOLD);
    const asLine = await errorOf({ 'gold.jsonl': gold, 'o.jsonl': line(...spans) }, { ...suite, ...over });
    const asDocument = await errorOf(
      { 'gold.jsonl': gold, 'o.json': JSON.stringify(request(spans), null, 2) },
      { ...suite, ...over, traces: 'o.json' },
    );
    const detail = (m: string) => m.replace(/^o\.json(l)?:\d+: /, '');
    expect(detail(asDocument)).toBe(detail(asLine));
    return asLine;
  };

  it('an intValue qid is read as the digits written (an int64 is no double); digits it is not is an error', async () => {
    const gold = GOLD.slice(0, 2).map((g, i) => ({
      ...g,
      qid: ['9007199254740993', '9007199254740992'][i]!,
    }));
    const trace = span({
      attributes: [
        kv('session.id', { intValue: '9007199254740993' }),
        kv('output.value', { stringValue: '{"claim":"The limit is 512 bytes.","citations":["keys#1"]}' }),
      ],
    });
    const retriever = span({
      spanId: 'r',
      parentSpanId: 'a',
      name: 'retrieve',
      attributes: [
        kv('openinference.span.kind', { stringValue: 'RETRIEVER' }),
        kv('retrieval.documents.0.document.id', { stringValue: 'keys#1' }),
      ],
    });
    const oi = { ...suite, gold: 'gold.jsonl', openinference: { qid: 'session.id' } };
    const suites = await scored(
      {
        'gold.jsonl': jsonl(gold),
        'o.jsonl': line(trace, retriever),
        'o.json': JSON.stringify(request([trace, retriever]), null, 2),
      },
      { lines: oi, document: { ...oi, traces: 'o.json' } },
    );
    for (const s of [suites.lines, suites.document]) {
      const { items, counts } = JSON.parse(JSON.stringify(s)) as {
        items: Record<string, { pass: boolean }>;
        counts: unknown;
      };
      expect([items['9007199254740993']!.pass, items['9007199254740992']!.pass]).toEqual([true, false]);
      expect(counts).toMatchObject({ traced: 1, unknown_qids: 0 });
    }
    const qidOf = async (value: object) => {
      const spans = [span({ attributes: [kv('session.id', value), answer] })];
      const e = await errorOfBoth(spans, { openinference: { qid: 'session.id' } });
      return e === 'no error' ? e : e.replace(/^o\.jsonl:1: /, '');
    };
    expect(await qidOf({ intValue: 'abc' })).toBe(
      'span "qa": attribute "session.id" has intValue "abc"; expected an int64: an integer, or its decimal digits in a string (as OTLP JSON writes it)',
    );
    expect(await qidOf({ intValue: '9223372036854775808' })).toMatch(
      /has intValue "9223372036854775808"; expected an int64/,
    );
    expect(await qidOf({ intValue: true })).toMatch(/has intValue true; expected an int64/);
    expect(await qidOf({ doubleValue: '' })).toMatch(/has doubleValue ""; expected a number/);
    // A JSON number past 2^53 is rounded by any parser (…993 is read as …992): refused, not read as another.
    expect(await qidOf({ intValue: 2 ** 53 + 2 })).toBe(
      'trace "t1": its root span "qa" has session.id as a JSON number past 2^53 (read as 9007199254740994, maybe not the digits written: JSON numbers do not hold such integers exactly); expected the id as a string (or an intValue\'s digits in a string)',
    );
  });

  it('a span time without an offset is UTC whatever the machine’s zone: one verdict, one report', async () => {
    // Two runs of one question: the later is the run. Read in New York's time, 05:00 without an offset
    // came after 08:00Z and its answer (the wrong one) was scored.
    const phoenix = (id: string, start: string, claim: string) => ({
      name: 'qa',
      context: { trace_id: id, span_id: `${id}-root` },
      parent_id: null,
      span_kind: 'RETRIEVER',
      start_time: start,
      end_time: start.replace(':00:00', ':00:01'),
      attributes: {
        metadata: { qid: GOLD[0]!.qid },
        output: { value: JSON.stringify({ claim, citations: ['keys#1'] }) },
        retrieval: { documents: [{ document: { id: 'keys#1' } }] },
      },
    });
    const spans = [
      phoenix('t1', '2025-12-31T08:00:00Z', 'The limit is 512 bytes.'),
      phoenix('t2', '2025-12-31T05:00:00', 'There is no limit.'),
    ];
    const files = { 'gold.jsonl': jsonl(GOLD), 'o.json': JSON.stringify(spans) };
    const tz = process.env.TZ;
    const reports: string[] = [];
    try {
      for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
        process.env.TZ = zone;
        const out = await scored(files, { s: { ...suite, traces: 'o.json' } });
        const s = JSON.parse(JSON.stringify(out.s)) as { items: Record<string, { pass: boolean }> };
        expect(s.items[GOLD[0]!.qid]!.pass).toBe(true);
        reports.push(JSON.stringify({ ...s, inputs: undefined }));
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(new Set(reports).size).toBe(1);
    // Where OTLP wants nanoseconds, an ISO time is an error, with or without an offset.
    expect(await errorOfBoth([span({ startTimeUnixNano: '2025-12-31T08:00:00Z' })])).toBe(
      'o.jsonl:1: span "qa": startTimeUnixNano "2025-12-31T08:00:00Z"; expected nanoseconds since 1970 as decimal digits (at most 19, in a string as OTLP JSON writes them)',
    );
  });

  it('threads do not change the first error: a span twice in one line names its first place as one pass does', async () => {
    const other = (i: number) => line(span({ traceId: `x${i}` }));
    const child = span({ spanId: 'b', parentSpanId: 'a', name: 'retrieve' });
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'bad.jsonl': other(1) + other(2) + other(3) + line(span(), child, child) + other(4),
      'good.jsonl': otlpLines(TRACES.regressed, questionOf),
    });
    const config = (traces: string) => {
      const file = path.join(dir, `${traces}.yaml`);
      writeFileSync(file, YAML.stringify({ version: 1, offenders: 50, suites: { s: { ...suite, traces } } }));
      return file;
    };
    const outcome = (traces: string) =>
      run({ config: config(traces) }).then(
        ({ report }) => serializeReport(report),
        (err: unknown) => (err as Error).message.replaceAll(dir + path.sep, ''),
      );
    const previous = process.env.GROUNDGATE_THREADS;
    const seen: Record<string, string[]> = { bad: [], good: [] };
    try {
      for (const threads of ['1', '2', '4']) {
        process.env.GROUNDGATE_THREADS = threads;
        seen.bad!.push(await outcome('bad.jsonl'));
        seen.good!.push(await outcome('good.jsonl'));
      }
    } finally {
      if (previous === undefined) delete process.env.GROUNDGATE_THREADS;
      else process.env.GROUNDGATE_THREADS = previous;
    }
    expect(seen.bad).toEqual(
      Array(3).fill(
        'bad.jsonl:4: trace "t1": span "b" again (first at bad.jsonl:4); expected each span once (one export read twice?)',
      ),
    );
    expect(JSON.parse(seen.good![0]!)).toMatchObject({
      suites: { s: { counts: { trace_lines: TRACES.regressed.length } } },
    });
    expect(new Set(seen.good).size).toBe(1);
  });

  it('only decimal nanoseconds (and Phoenix’s ISO-8601) are times', async () => {
    const nanos =
      'nanoseconds since 1970 as decimal digits (at most 19, in a string as OTLP JSON writes them)';
    for (const [time, shown] of [
      ['March 7', '"March 7"'],
      ['1'.repeat(30), `"${'1'.repeat(30)}"`],
      ['-1767225600000000000', '"-1767225600000000000"'],
      [-5, '-5'],
      [1e300, '1e+300'],
      [1.5, '1.5'],
      ['', '""'],
    ] as const)
      expect(await errorOfBoth([span({ startTimeUnixNano: time })])).toBe(
        `o.jsonl:1: span "qa": startTimeUnixNano ${shown}; expected ${nanos}`,
      );
    // The largest time read, and one as a JSON integer: as the same time in a string.
    expect(await errorOfBoth([span({ endTimeUnixNano: '9'.repeat(19) })])).toBe('no error');
    expect(await errorOfBoth([span({ startTimeUnixNano: 1767225600000000000 })])).toBe('no error');
    const phoenix = (start: unknown) => ({
      name: 'qa',
      context: { trace_id: 't', span_id: 'a' },
      start_time: start,
      end_time: '2026-01-01T00:00:01+00:00',
      attributes: { metadata: { qid: GOLD[0]!.qid }, output: { value: 'x' } },
    });
    const phoenixError = (start: unknown) =>
      errorOf(
        { 'gold.jsonl': jsonl(GOLD), 'o.json': JSON.stringify([phoenix(start)]) },
        { ...suite, traces: 'o.json' },
      );
    for (const start of ['March 7', '2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01'])
      expect(await phoenixError(start)).toBe(
        `o.json:1: span "qa": start_time ${JSON.stringify(start)}; expected ISO-8601 (UTC when it has no offset), or ${nanos}`,
      );
    for (const start of [
      '2026-01-01T00:00:00.123456789+00:00',
      '2025-12-31 19:00:00-05:00',
      '2026-01-01T00:00Z',
    ])
      expect(await phoenixError(start)).toBe('no error');
  });

  it('every retrieval.documents index is read by one rule: 100000 is a gap as 99999 is', async () => {
    const retriever = (n: string) =>
      span({
        spanId: 'r',
        parentSpanId: 'a',
        name: 'retrieve',
        attributes: [
          kv('openinference.span.kind', { stringValue: 'RETRIEVER' }),
          kv('retrieval.documents.0.document.id', { stringValue: 'd0' }),
          kv(`retrieval.documents.${n}.document.id`, { stringValue: 'dn' }),
        ],
      });
    for (const n of ['99999', '100000', '1000000000', '1'.repeat(40)])
      expect(await errorOfBoth([span(), retriever(n)])).toBe(
        `o.jsonl:1: retriever span "retrieve" has no retrieval.documents.1.document.id, but one numbered ${n}; expected documents numbered from 0 without a gap`,
      );
    expect(await errorOfBoth([span(), retriever('1')])).toBe('no error');
  });

  it('a document index that is not plain decimal, or a document given twice, is an error, not an id lost', async () => {
    const retriever = (...keys: string[]) =>
      span({
        spanId: 'r',
        parentSpanId: 'a',
        name: 'retrieve',
        attributes: [
          kv('openinference.span.kind', { stringValue: 'RETRIEVER' }),
          ...keys.map((k, i) => kv(`retrieval.documents.${k}.document.id`, { stringValue: `d${i}` })),
        ],
      });
    // `+1` and `-1` were skipped (recall fell without a word); `01` was read as 1, or lost to it.
    for (const n of ['+1', '-1', '01', 'x', ' 1', '1.0', ''])
      expect(await errorOfBoth([span(), retriever('0', n)])).toBe(
        `o.jsonl:1: span "retrieve": attribute ${JSON.stringify(`retrieval.documents.${n}.document.id`)}; expected retrieval.documents.N.document.id with N a decimal index without leading zeros (0, 1, 2, …)`,
      );
    expect(await errorOfBoth([span(), retriever('0', '1', '1')])).toBe(
      'o.jsonl:1: span "retrieve": attribute "retrieval.documents.1.document.id" given twice; expected each document once',
    );
    expect(await errorOfBoth([span(), retriever('0', '1', '2')])).toBe('no error');
  });

  it('spans whose parents go round beside a root are an error, as a trace of nothing but a cycle is', async () => {
    const child = (id: string, parent: string) => span({ spanId: id, parentSpanId: parent, name: id });
    expect(await errorOfBoth([span(), child('p', 'q'), child('q', 'p')])).toBe(
      'o.jsonl:1: trace "t1": span "p" is its own ancestor (its parentSpanId "q" leads back to it: a cycle); expected the parents of every span to end at the root',
    );
    expect(await errorOfBoth([span(), child('s', 's'), child('c', 's')])).toMatch(
      /span "s" is its own ancestor/,
    );
    // A parent not in the trace (sampled out) is no cycle.
    expect(await errorOfBoth([span(), child('c', 'gone'), child('d', 'c')])).toBe('no error');
  });

  it('a truncated .json document is named by line and column', async () => {
    const text = JSON.stringify(request([span(), span({ traceId: 't2' })]), null, 2);
    const cut = text.slice(0, text.indexOf('"endTimeUnixNano"', text.indexOf('"t2"')) + 5);
    const where = `${cut.split('\n').length}:${cut.length - cut.lastIndexOf('\n')}`;
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'o.json': cut }, { ...suite, traces: 'o.json' })).toBe(
      `o.json:${where}: invalid JSON: unterminated string; expected OTLP JSON or an array of spans`,
    );
    const ended = text.slice(0, text.indexOf('"endTimeUnixNano":', text.indexOf('"t2"')) + 18);
    expect(
      await errorOf({ 'gold.jsonl': jsonl(GOLD), 'o.json': ended }, { ...suite, traces: 'o.json' }),
    ).toBe(
      `o.json:${ended.split('\n').length}:${ended.length - ended.lastIndexOf('\n')}: invalid JSON: unexpected end of the file; expected OTLP JSON or an array of spans`,
    );
  });

  it('a .json document that is not UTF-8 is warned of, as a JSON Lines file is', async () => {
    const text = JSON.stringify(request([span()]), null, 2);
    const bytes = Buffer.from(text.replace('"qa"', '"q\u00e9"'));
    bytes[bytes.indexOf(0xc3)] = 0xff;
    const line = text.slice(0, text.indexOf('"qa"')).split('\n').length;
    const s = await scored(
      { 'gold.jsonl': jsonl(GOLD), 'o.json': bytes },
      { s: { ...suite, traces: 'o.json' } },
    );
    expect((s.s as { warnings: string[] }).warnings).toContain(
      `o.json:${line}: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes (first such line; expected UTF-8 text)`,
    );
  });
});
