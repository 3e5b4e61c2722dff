import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { parseConfig } from '../src/config/load.js';
import { compileMarkers, markedCitations } from '../src/grounded-answer/citation-markers.js';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { traceScanner } from '../src/grounded-answer/trace-checks.js';
import { judgedTrace, scannedQid, scannedTs, scanTraceLine } from '../src/grounded-answer/trace-scan.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { run } from '../src/run.js';
import { otlpLines, phoenixArray, readJsonlFile } from './helpers/formats.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';
import { claimsApart, scored } from './helpers/scored.js';
import { configError } from './helpers/config-error.js';

// Inline citation markers (issue #44): the example's canonical traces with their citations written into the
// claim as markers, `[n]` ranks in retrieved_ids or `[keys#1]` ids, and no citations list, score exactly as
// the canonical traces.

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = {
  good: readJsonlFile<TraceLine>('runs/qa.trace.jsonl'),
  regressed: readJsonlFile<TraceLine>('runs/qa-regressed.trace.jsonl'),
};
const QA = { kind: 'grounded-qa', k: 5, scu: true };
// Traces matched by the qid in their metadata: the report's warnings name unknown qids as the canonical run.
const OTLP = { ...QA, gold: 'gold.jsonl', format: 'openinference', openinference: { qid: 'metadata.qid' } };
const RANK = { pattern: '\\[(\\d+)\\]', refers_to: 'rank' };
const ID = { pattern: '\\[([a-z]+#\\d+)\\]', refers_to: 'id' };

type Report = Record<string, unknown> & {
  metrics: Record<string, { numerator?: number; denominator?: number }>;
  counts: Record<string, number>;
  offenders: Record<string, unknown>[];
};

/** The trace with its citations as markers at the end of its claim, and no citations list. */
function marked(t: TraceLine, marker: (id: string) => string): TraceLine {
  const { citations, ...answer } = t.answer_json;
  const claim = [answer.claim, ...citations.map(marker)].join(' ');
  return { ...t, answer_json: { ...answer, claim } as TraceLine['answer_json'] };
}
const byRank = (t: TraceLine) => marked(t, (id) => `[${t.retrieved_ids.indexOf(id) + 1}]`);
const byId = (t: TraceLine) => marked(t, (id) => `[${id}]`);

describe('citation markers', () => {
  it.each(Object.entries(TRACES))(
    'the %s traces with [n] and [id] markers score as the canonical ones: every metric, count, stage and offender',
    async (which, traces) => {
      const byIdTraces = traces.map(byId);
      const question = new Map(GOLD.map((g) => [g.qid, g.question]));
      const questionOf = (t: TraceLine) => question.get(t.qid) ?? `a question not in gold (${t.qid})`;
      // An answer that is only a claim written as the LLM span's text output, as most pipelines write it.
      let otlpText = otlpLines(byIdTraces, questionOf);
      for (const t of byIdTraces)
        if (Object.keys(t.answer_json).length === 1)
          otlpText = otlpText.replace(
            JSON.stringify(JSON.stringify(t.answer_json)),
            JSON.stringify(t.answer_json.claim),
          );
      const files: Record<string, string | Buffer> = {
        'id.otlp.jsonl': otlpLines(byIdTraces, questionOf),
        'id-text.otlp.jsonl': otlpText,
        'id-spans.json': phoenixArray(byIdTraces, questionOf),
        'gold.jsonl': jsonl(GOLD),
        'traces.jsonl': jsonl(traces),
        'id.jsonl': jsonl(byIdTraces),
        'id-mapped.jsonl': jsonl(byIdTraces.map(({ answer_json, ...t }) => ({ ...t, out: answer_json }))),
        // Retrieved ids as a list of objects, read through `*`: the scan checks such lines on their bytes.
        'id-listed.jsonl': jsonl(
          byIdTraces.map(({ retrieved_ids, ...t }) => ({
            ...t,
            contexts: retrieved_ids.map((id) => ({ id })),
          })),
        ),
        'id.parquet': Buffer.from(
          parquetWriteBuffer({
            columnData: [
              { name: 'ts', data: byIdTraces.map((t) => BigInt(t.ts as number)), type: 'INT64' },
              { name: 'qid', data: byIdTraces.map((t) => t.qid), type: 'STRING' },
              { name: 'retrieved_ids', data: byIdTraces.map((t) => t.retrieved_ids) },
              { name: 'answer_json', data: byIdTraces.map((t) => t.answer_json) },
            ],
            rowGroupSize: 16,
          }),
        ),
      };
      const suites: Record<string, object> = {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        id: { ...QA, gold: 'gold.jsonl', traces: 'id.jsonl', citation_markers: ID },
        idMapped: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'id-mapped.jsonl',
          citation_markers: ID,
          fields: { traces: { '/answer_json': '/out' } },
        },
        idListed: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'id-listed.jsonl',
          citation_markers: ID,
          fields: { traces: { '/retrieved_ids': '/contexts/*/id' } },
        },
        idParquet: { ...QA, gold: 'gold.jsonl', traces: 'id.parquet', citation_markers: ID },
        idOtlp: { ...OTLP, traces: 'id.otlp.jsonl', citation_markers: ID },
        idOtlpText: { ...OTLP, traces: 'id-text.otlp.jsonl', citation_markers: ID },
        idPhoenix: { ...OTLP, traces: 'id-spans.json', citation_markers: ID },
      };
      // A rank names only what was retrieved: the regressed run's FM015 cites keys#4, which it was not given.
      if (which === 'good') {
        files['rank.jsonl'] = jsonl(traces.map(byRank));
        suites.rank = { ...QA, gold: 'gold.jsonl', traces: 'rank.jsonl', citation_markers: RANK };
      }
      const scoredSuites = await scored<Report>(files, suites);
      const canonical = claimsApart(scoredSuites.canonical!);
      // The example's own figures, so that equal cannot mean equally empty.
      expect(scoredSuites.canonical!.metrics.chr!.numerator).toBe(which === 'good' ? 32 : 22);
      expect(otlpText.split('"stringValue":"{').length).toBeLessThan(
        files['id.otlp.jsonl']!.toString().split('"stringValue":"{').length - 10,
      );
      for (const name of Object.keys(suites).filter((n) => n !== 'canonical')) {
        const part = claimsApart(scoredSuites[name]!);
        expect([name, part.report]).toEqual([name, canonical.report]);
        // The offenders show the claim with its markers, and the citations they resolve to.
        const shape = name === 'rank' ? byRank : byId;
        const markedClaims = new Map(traces.map((t) => [t.answer_json.claim, shape(t).answer_json.claim]));
        expect(part.claims).toEqual(
          canonical.claims.map((c) => (c === null ? null : markedClaims.get(c as string))),
        );
      }
    },
  );

  it('latency with traces scores each configuration from [n] markers as from citations lists', async () => {
    const files: Record<string, string> = {
      'gold.jsonl': readFileSync(path.join(REPO, 'examples/latency/gold.jsonl'), 'utf8'),
    };
    for (const name of ['fast', 'balanced', 'deep']) {
      const traces = readJsonlFile<TraceLine>(`examples/latency/traces/${name}.trace.jsonl`);
      files[`canonical-${name}.trace.jsonl`] = jsonl(traces);
      files[`rank-${name}.trace.jsonl`] = jsonl(traces.map(byRank));
    }
    const LATENCY = { kind: 'latency', gold: 'gold.jsonl', percentiles: [95] };
    const suites = await scored<Report>(files, {
      canonical: { ...LATENCY, traces: 'canonical-*.trace.jsonl' },
      rank: { ...LATENCY, traces: 'rank-*.trace.jsonl', citation_markers: RANK },
    });
    const tablesOf = (name: string) =>
      JSON.stringify(suites[name]!.tables).replaceAll(`${name}-`, '<configuration>-');
    expect(tablesOf('canonical')).toContain('precision');
    expect(tablesOf('rank')).toBe(tablesOf('canonical'));
    expect(suites.rank!.metrics).toEqual(suites.canonical!.metrics);
  });

  it('stability runs with [n] markers score as with citations lists', async () => {
    const runs = readJsonlFile<TraceLine & { run_id: string }>('examples/stability/runs.jsonl');
    // Strict thresholds, for offenders to show their citation sets.
    const STABILITY = {
      kind: 'stability',
      gold: 'gold.jsonl',
      min_runs: 2,
      thresholds: { claim_edit_distance_median: 0.01, citation_stability: 1 },
    };
    const suites = await scored<Report>(
      {
        'gold.jsonl': readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8'),
        'runs.jsonl': jsonl(runs),
        'rank.jsonl': jsonl(runs.map(byRank)),
      },
      {
        canonical: { ...STABILITY, runs: 'runs.jsonl' },
        rank: { ...STABILITY, runs: 'rank.jsonl', citation_markers: RANK },
      },
    );
    expect(runs.every((r) => r.answer_json.citations.every((c) => r.retrieved_ids.includes(c)))).toBe(true);
    expect(suites.rank!.metrics).toEqual(suites.canonical!.metrics);
    expect(suites.rank!.counts).toEqual(suites.canonical!.counts);
    const sets = (name: string) => suites[name]!.offenders.map((o) => [o.id, o.labels, o.citation_sets]);
    expect(sets('canonical').length).toBeGreaterThan(0);
    expect(sets('rank')).toEqual(sets('canonical'));
  });

  it('a rank of nothing retrieved is out of scope, shown as [n]; each citation counts once, in order', async () => {
    const gold = [
      { qid: 'A', question: 'a?', answerable: true, gold_claim_substr: ['blue sky'], gold_citations: ['d2'] },
      {
        qid: 'B',
        question: 'b?',
        answerable: true,
        gold_claim_substr: ['green sea'],
        gold_citations: ['d1'],
      },
    ];
    const traces = [
      {
        qid: 'A',
        retrieved_ids: ['d1', 'd2'],
        answer_json: { claim: 'The blue sky [2][7], again [2] [0].' },
      },
      { qid: 'B', retrieved_ids: ['d1', 'd2'], answer_json: { claim: 'The green sea [2] [1] [2].' } },
    ];
    const suites = await scored<Report>(
      { 'gold.jsonl': jsonl(gold), 'traces.jsonl': jsonl(traces) },
      { qa: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl', citation_markers: RANK } },
    );
    const qa = suites.qa!;
    expect(qa.metrics.chr).toMatchObject({ numerator: 1, denominator: 2 });
    expect(qa.offenders.map((o) => [o.id, o.labels, o.claim, o.citations])).toEqual([
      ['A', ['citation_out_of_scope'], 'The blue sky [2][7], again [2] [0].', ['d2', '[7]', '[0]']],
    ]);
    expect(markedCitations('x [2] [1] [2]', ['d1', 'd2'], compileMarkers(RANK as never))).toEqual({
      ids: ['d2', 'd1'],
      stray: false,
    });
  });

  it('a trace that lists citations beside the markers is an error at its line', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl([byId(TRACES.good[0]!), TRACES.good[1]]),
      'gates.yaml': YAML.stringify({
        version: 1,
        suites: { qa: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl', citation_markers: ID } },
      }),
    });
    await expect(run({ config: path.join(dir, 'gates.yaml') })).rejects.toThrow(
      `${path.join(dir, 'traces.jsonl')}:2: field "answer_json.citations": a citations list beside citation_markers; expected none: the markers in the claim are its citations (one source of truth) (a trace {qid, retrieved_ids, answer_json: {claim}}, citing by markers in its claim)`,
    );
  });

  it("judging reads what the marker variant's scanner found where it reads a canonical line's members", () => {
    const scanner = traceScanner({ markers: true })!;
    const found = scanner.found();
    const line = Buffer.from(
      '{"ts":7,"qid":"q1","retrieved_ids":["d1","d2"],"answer_json":{"claim":"Yes [2].","constraints_echo":["c"]},"refused":true}',
    );
    expect(scanTraceLine(line, 0, line.length, found, scanner)).toBe(true);
    expect(scannedQid(line, found)).toBe('q1');
    expect(scannedTs(line, found)).toBe(7);
    expect(judgedTrace(line, line.length, found)).toEqual({
      retrieved_ids: ['d1', 'd2'],
      answer_json: { claim: 'Yes [2].', citations: [], constraints_echo: ['c'] },
      refused: true,
    });
    // A line that lists citations is left to the schema, which words the error.
    const listed = Buffer.from('{"qid":"q1","retrieved_ids":[],"answer_json":{"claim":"x","citations":[]}}');
    expect(scanTraceLine(listed, 0, listed.length, scanner.found(), scanner)).toBe(false);
  });
});

describe('gates.yaml', () => {
  const config = (markers: string) =>
    `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    citation_markers:\n${markers}    gates:\n      precision: ">= 0.8"\n`;
  const error = configError;
  it('refuses a pattern without exactly one capture group, one RE2 cannot run, and another refers_to', () => {
    expect(error(config("      pattern: '\\[\\d+\\]'\n      refers_to: rank\n"))).toBe(
      'gates.yaml:8:16: suite "qa": citation_markers.pattern: regular expression "\\\\[\\\\d+\\\\]" has 0 capture groups; expected exactly one, the citation each match makes',
    );
    expect(error(config("      pattern: '\\[(\\d+)\\]\\[(\\d+)\\]'\n      refers_to: rank\n"))).toBe(
      'gates.yaml:8:16: suite "qa": citation_markers.pattern: regular expression "\\\\[(\\\\d+)\\\\]\\\\[(\\\\d+)\\\\]" has 2 capture groups; expected exactly one, the citation each match makes',
    );
    expect(error(config("      pattern: '\\[(\\d+'\n      refers_to: rank\n"))).toBe(
      'gates.yaml:8:16: suite "qa": citation_markers.pattern: regular expression "\\\\[(\\\\d+": missing closing ): `\\[(\\d+`; expected RE2 syntax (no lookahead, lookbehind or backreferences)',
    );
    expect(error(config("      pattern: '(?<=\\[)(\\d+)'\n      refers_to: rank\n"))).toMatch(
      /^gates\.yaml:8:16: suite "qa": citation_markers\.pattern: regular expression "\(\?<=\\\\\[\)\(\\\\d\+\)": invalid named capture: .*; expected RE2 syntax/,
    );
    // Once refused as exponential on a backtracking engine; linear on RE2.
    expect(() =>
      parseConfig(
        config("      pattern: '((?:\\d+)+)$'\n      refers_to: id\n"),
        path.join(process.cwd(), 'gates.yaml'),
      ),
    ).not.toThrow();
    expect(error(config("      pattern: '\\[(\\d+)\\]'\n      refers_to: position\n"))).toBe(
      'gates.yaml:9:18: suite "qa": citation_markers.refers_to: expected one of "rank"|"id"',
    );
  });
});

describe('partials', () => {
  it('a shard judged with other markers does not merge', async () => {
    const gates = (markers: object) =>
      YAML.stringify({
        version: 1,
        suites: { qa: { ...QA, gold: 'gold.jsonl', traces: 'traces/*.jsonl', citation_markers: markers } },
      });
    const traces = TRACES.good.map(byId);
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'traces/a.jsonl': jsonl(traces.slice(0, 25)),
      'traces/b.jsonl': jsonl(traces.slice(25)),
      'gates.yaml': gates(ID),
    });
    const config = path.join(dir, 'gates.yaml');
    const part = (name: string) => path.join(dir, `${name}.partial`);
    const shard = (name: string) =>
      writePartialRun(part(name), {
        config,
        inputs: [{ key: 'traces', path: path.join(dir, `traces/${name}.jsonl`) }],
      });
    await shard('a');
    writeFileSync(config, gates({ ...ID, pattern: '\\{([a-z]+#\\d+)\\}' }));
    await shard('b');
    await expect(mergeRun([part('a'), part('b')], { config })).rejects.toThrow(
      /a\.partial: written with another config \(gates\.yaml, sha256 \w+…\); expected this merge's gates\.yaml \(sha256 \w+…\)/,
    );
    writeFileSync(config, gates(ID));
    await shard('b');
    const merged = await mergeRun([part('a'), part('b')], { config });
    expect(merged.report.suites.qa!.metrics.chr).toMatchObject({ numerator: 32, denominator: 33 });
  });
});

describe('gates.yaml, with fields:', () => {
  it('a fields: mapping of /answer_json/citations beside citation_markers is refused where it is written', () => {
    const source = `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    citation_markers: { pattern: '\\[(\\d+)\\]', refers_to: rank }\n    fields:\n      traces:\n        /answer_json/citations: /sources\n    gates:\n      precision: ">= 0.8"\n`;
    expect(configError(source)).toBe(
      'gates.yaml:10:33: suite "qa": fields.traces./answer_json/citations: citation_markers reads the citations from the claim; expected no mapping of /answer_json/citations beside it',
    );
  });
});
