import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { printf4 } from '../src/metrics/ir.js';
import { run } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/** A gates.yaml with one ranking suite `r`; `extra` lines go into the suite block, indented 4 spaces. */
function config(extra: string[] = [], inputs = { qrels: 'qrels.txt', run: 'run.txt' }): string {
  return [
    'version: 1',
    'suites:',
    '  r:',
    '    kind: ranking',
    `    qrels: ${inputs.qrels}`,
    `    run: ${inputs.run}`,
    ...extra.map((l) => `    ${l}`),
    '',
  ].join('\n');
}

async function score(files: Record<string, string>) {
  const dir = tmpTree(files);
  const outcome = await run({ config: path.join(dir, 'gates.yaml') });
  const suite = outcome.report.suites.r!;
  const value = (metric: string) => suite.metrics[metric]!.value;
  return { ...outcome, dir, suite, value };
}

async function configError(yaml: string): Promise<string> {
  const dir = tmpTree({ 'gates.yaml': yaml, 'qrels.txt': 'q 0 a 1\n', 'run.txt': 'q Q0 a 1 1 t\n' });
  try {
    await run({ config: path.join(dir, 'gates.yaml') });
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).message.replace(/^.*gates\.yaml/, 'gates.yaml');
  }
  throw new Error('expected an InputError');
}

// The ir_measures README example: qrels Q0 {D0:0, D1:1}, Q1 {D0:0, D3:2}; run Q0 {D0:1.2, D1:1.0},
// Q1 {D0:2.4, D3:3.6}.
const IRM_QRELS = 'Q0 0 D0 0\nQ0 0 D1 1\nQ1 0 D0 0\nQ1 0 D3 2\n';
const IRM_RUN = 'Q0 Q0 D0 1 1.2 run\nQ0 Q0 D1 2 1.0 run\nQ1 Q0 D0 1 2.4 run\nQ1 Q0 D3 2 3.6 run\n';

describe('ranking suite', () => {
  it('reproduces the ir_measures README example', async () => {
    const { value, suite } = await score({
      'gates.yaml': config(),
      'qrels.txt': IRM_QRELS,
      'run.txt': IRM_RUN,
    });
    // Q0: D0 (1.2) then D1 (1.0); D1 relevant at rank 2 → AP 1/2, RR 1/2, nDCG 1/log2(3) = 0.6309.
    // Q1: D3 (3.6) then D0; D3 (grade 2) at rank 1 → AP 1, RR 1, nDCG 2/2 = 1.
    expect(value('map')).toBe((1 / 2 + 1) / 2);
    expect(value('mrr')).toBe((1 / 2 + 1) / 2);
    expect(value('ndcg')).toBe((1 / Math.log2(3) + 1) / 2);
    expect(printf4(value('ndcg')!)).toBe('0.8155');
    expect(value('P@10')).toBe((1 / 10 + 1 / 10) / 2);
    expect(suite.counts).toEqual({
      qrels_queries: 2,
      run_queries: 2,
      evaluated: 2,
      skipped: 0,
      run_only: 0,
      no_relevant_judged: 0,
    });
  });

  it('reproduces the ir_measures README example at relevance_level 2', async () => {
    const { value } = await score({
      'gates.yaml': config(['relevance_level: 2']),
      'qrels.txt': IRM_QRELS,
      'run.txt': IRM_RUN,
    });
    // Q0's D1 (grade 1) is no longer relevant: Q0 scores 0; Q1 is unchanged.
    expect(value('map')).toBe(0.5);
    expect(value('mrr')).toBe(0.5);
    expect(value('P@10')).toBe((0 + 1 / 10) / 2); // 0.05
    expect(printf4(value('ndcg')!)).toBe('0.8155'); // nDCG gains ignore the level
  });

  it('skips qrels queries missing from the run, or scores them 0 with complete: true (trec_eval -c)', async () => {
    // q1: relevant a, b; run a, x, b → AP (1/1 + 2/3)/2 = 5/6. q3: relevant c; run y, c → AP (1/2)/1.
    // q2 is judged but has no run lines. Sums follow trec_eval's order (ranks, then qids) to the last bit.
    const q1 = (1 / 1 + 2 / 3) / 2;
    const q3 = 1 / 2 / 1;
    const files = {
      'qrels.txt': 'q1 0 a 1\nq1 0 b 1\nq2 0 d 1\nq3 0 c 1\n',
      'run.txt': 'q1 Q0 a 1 3 t\nq1 Q0 x 2 2 t\nq1 Q0 b 3 1 t\nq3 Q0 y 1 2 t\nq3 Q0 c 2 1 t\n',
    };
    const skipped = await score({ 'gates.yaml': config(), ...files });
    expect(skipped.value('map')).toBe((q1 + q3) / 2); // 0.6667 over 2 queries (trec_eval 9.0.8)
    expect(skipped.suite.counts).toMatchObject({ evaluated: 2, skipped: 1 });
    expect(skipped.warnings).toEqual([
      'r: 1 of 3 qrels queries are not in the run and were skipped (complete: true scores them 0): q2',
    ]);

    const complete = await score({ 'gates.yaml': config(['complete: true']), ...files });
    expect(complete.value('map')).toBe((q1 + 0 + q3) / 3); // 0.4444 over 3 queries (trec_eval -c)
    expect(printf4(complete.value('map')!)).toBe('0.4444');
    expect(complete.suite.counts).toMatchObject({ evaluated: 3, skipped: 0 });
    expect(complete.warnings).toEqual([
      'r: 1 of 3 qrels queries are not in the run and score 0 (complete: true): q2',
    ]);
    expect(complete.suite.offenders.map((o) => `${o.id}:${o.labels.join('+')}`)).toEqual([
      'q2:missing_run', // map 0
      'q3:misranked', // map 0.5: c is in the top 10 but below y
      'q1:misranked', // map 5/6
    ]);
  });

  it('evaluates a query whose judgments are all 0 and counts it in the mean (trec_eval case 04)', async () => {
    const { value, suite } = await score({
      'gates.yaml': config(),
      'qrels.txt': 'q1 0 a 1\nq2 0 b 0\n',
      'run.txt': 'q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n',
    });
    expect(value('map')).toBe((1 + 0) / 2);
    expect(suite.counts.evaluated).toBe(2);
    expect(suite.offenders).toEqual([
      {
        id: 'q2',
        labels: ['no_relevant_judged'],
        map: 0,
        retrieved: 1,
        relevant: 0,
        relevant_retrieved: 0,
        first_relevant_rank: null,
        missed: [],
        run: 'run.txt:2',
        source: { file: 'qrels.txt', line: 2 },
      },
    ]);
  });

  it('ignores run queries that are not in the qrels, and warns', async () => {
    const { value, suite, warnings } = await score({
      'gates.yaml': config(),
      'qrels.txt': 'q1 0 a 1\n',
      'run.txt': 'q1 Q0 a 1 1 t\nzz Q0 a 1 1 t\nzz Q0 b 2 0 t\nyy Q0 a 1 1 t\n',
    });
    expect(value('map')).toBe(1);
    expect(suite.counts).toEqual({
      qrels_queries: 1,
      run_queries: 3,
      evaluated: 1,
      skipped: 0,
      run_only: 2,
      no_relevant_judged: 0,
    });
    expect(warnings).toEqual(['r: 2 run qids not in qrels (3 lines) not scored: yy, zz']);
  });

  it('says why no metric is computable when no qrels query is in the run', async () => {
    const { suite, report } = await score({
      'gates.yaml': config(['gates:', "  map: '>= 0.5'"]),
      'qrels.txt': 'q1 0 a 1\n',
      'run.txt': 'zz Q0 a 1 1 t\n',
    });
    const reason =
      'no query was evaluated: none of the 1 qrels queries is in the run (complete: true scores them 0)';
    expect(suite.metrics.map).toEqual({ value: null, reason });
    expect(report.gates).toMatchObject([
      { metric: 'map', passed: false, reason: `not computable: ${reason}` },
    ]);
  });

  it('lists offenders worst first by the first gated metric, ties by qid, with per-query values', async () => {
    // Three queries, one relevant doc each, at rank 1 (qa), 2 (qb, qc) or missing from the top 3 (qd).
    const { suite } = await score({
      'gates.yaml': config(['k: 3', 'gates:', "  mrr: '>= 0.9'", "  P@3: '>= 0.3'"]),
      'qrels.txt': 'qa 0 a 1\nqb 0 b 2\nqc 0 c 1\nqc 0 c2 0\nqd 0 d 1\nqd 0 e 1\n',
      'run.txt': [
        'qa Q0 a 1 9 t',
        'qc Q0 x 1 9 t',
        'qc Q0 c 2 8 t',
        'qb Q0 x 1 9 t',
        'qb Q0 b 2 8 t',
        'qd Q0 x 1 9 t',
        'qd Q0 y 2 8 t',
        'qd Q0 z 3 7 t',
        'qd Q0 d 4 6 t',
        '',
      ].join('\n'),
    });
    // qd: RR 1/4, e never retrieved and d below the top 3; qb, qc: RR 1/2 (tie → qid order); qa is ideal.
    expect(suite.offenders.map((o) => [o.id, o.labels[0], o.mrr, o['P@3'], o.missed])).toEqual([
      ['qd', 'relevant_missed', 1 / 4, 0, ['d', 'e']],
      ['qb', 'misranked', 1 / 2, 1 / 3, []],
      ['qc', 'misranked', 1 / 2, 1 / 3, []],
    ]);
    expect(suite.offenders[0]).toMatchObject({
      retrieved: 4,
      relevant: 2,
      relevant_retrieved: 1,
      first_relevant_rank: 4,
      run: 'run.txt:6',
      source: { file: 'qrels.txt', line: 5 },
    });
  });

  it('takes offender_metric, and lists only queries below what an ideal ranking would score', async () => {
    // P@3 of q1 is 1/3, the best possible with one relevant doc: not an offender on P@3.
    const { suite } = await score({
      'gates.yaml': config(['offender_metric: P@3', 'gates:', "  map: '>= 0'"]),
      'qrels.txt': 'q1 0 a 1\nq2 0 b 1\nq2 0 c 1\n',
      'run.txt': 'q1 Q0 a 1 9 t\nq1 Q0 x 2 8 t\nq2 Q0 b 1 9 t\nq2 Q0 x 2 8 t\nq2 Q0 c 3 7 t\n',
    });
    // q2: P@3 = 2/3, the same as its ideal (b, c, then nothing relevant): not an offender either.
    expect(suite.offenders).toEqual([]);
    const worse = await score({
      'gates.yaml': config(['offender_metric: P@3']),
      'qrels.txt': 'q1 0 a 1\nq2 0 b 1\nq2 0 c 1\n',
      'run.txt': 'q1 Q0 a 1 9 t\nq2 Q0 b 1 9 t\nq2 Q0 x 2 8 t\nq2 Q0 y 3 7 t\nq2 Q0 c 4 6 t\n',
    });
    expect(worse.suite.offenders.map((o) => [o.id, o['P@3'], o.missed])).toEqual([['q2', 1 / 3, ['c']]]);
    expect(worse.report.suites.r!.metrics['P@3']).toBeUndefined(); // computed for offenders, not reported
  });

  it('reads JSONL qrels and runs, scored or ranked, detected by extension', async () => {
    const { value, suite } = await score({
      'gates.yaml': config([], { qrels: 'qrels.jsonl', run: 'run.json' }),
      'qrels.jsonl': jsonl([
        { qid: 'Q0', docid: 'D0', rel: 0 },
        { qid: 'Q0', docid: 'D1', rel: 1 },
        { qid: 'Q1', docid: 'D0', rel: 0 },
        { qid: 'Q1', docid: 'D3', rel: 2 },
      ]),
      'run.json': jsonl([
        { qid: 'Q0', docid: 'D0', score: 1.2 },
        { qid: 'Q0', docid: 'D1', score: 1.0 },
        { qid: 'Q1', ranked: ['D3', 'D0'] },
      ]),
    });
    expect(value('map')).toBe(0.75);
    expect(printf4(value('ndcg')!)).toBe('0.8155');
    expect(suite.counts.evaluated).toBe(2);
  });

  it('ranks a {qid, ranked} list in list order, ignoring docid order, and evaluates an empty list as 0', async () => {
    const { value, suite } = await score({
      'gates.yaml': config(['run_format: jsonl', 'gates:', "  mrr: '>= 0'"], { qrels: 'q', run: 'r.txt' }),
      q: 'q1 0 a 1\nq2 0 b 1\n',
      'r.txt': jsonl([
        { qid: 'q1', ranked: ['z', 'a'] }, // by docid a would come first on a tie; the list says z
        { qid: 'q2', ranked: [] },
      ]),
    });
    expect(value('mrr')).toBe((1 / 2 + 0) / 2);
    expect(suite.counts).toMatchObject({ evaluated: 2, skipped: 0 });
  });

  it('takes qrels_format for a JSONL file without the extension', async () => {
    const { value } = await score({
      'gates.yaml': config(['qrels_format: jsonl'], { qrels: 'judgments', run: 'run.txt' }),
      judgments: jsonl([{ qid: 'q', docid: 'a', rel: 1 }]),
      'run.txt': 'q Q0 b 1 2 t\nq Q0 a 2 1 t\n',
    });
    expect(value('map')).toBe(1 / 2);
  });

  it('gives the same numbers when a query comes back after its block ended (second pass)', async () => {
    const grouped = 'q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 d 1 2 t\nq2 Q0 e 2 1 t\n';
    const scattered = 'q1 Q0 c 3 1 t\nq2 Q0 e 2 1 t\nq1 Q0 a 1 3 t\nq2 Q0 d 1 2 t\nq1 Q0 b 2 2 t\n';
    const qrels = 'q1 0 b 1\nq1 0 c 2\nq2 0 e 1\n';
    const a = await score({ 'gates.yaml': config(), 'qrels.txt': qrels, 'run.txt': grouped });
    const b = await score({ 'gates.yaml': config(), 'qrels.txt': qrels, 'run.txt': scattered });
    // q1: a b c → b at 2, c at 3: AP (1/2 + 2/3)/2 = 7/12. q2: d e → AP 1/2.
    expect(a.value('map')).toBe(((1 / 2 + 2 / 3) / 2 + 1 / 2 / 1) / 2);
    expect(b.suite.metrics).toEqual(a.suite.metrics);
    // The offender's run line is where the query first appears.
    expect(b.suite.offenders.map((o) => [o.id, o.run])).toEqual([
      ['q2', 'run.txt:2'],
      ['q1', 'run.txt:1'],
    ]);
  });

  it('reads several run files (a glob) in sorted order as one run', async () => {
    const { value, suite } = await score({
      'gates.yaml': config([], { qrels: 'qrels.txt', run: "'shard-*.run'" }),
      'qrels.txt': 'q1 0 a 1\nq2 0 b 1\n',
      'shard-2.run': 'q2 Q0 x 1 2 t\nq2 Q0 b 2 1 t\n',
      'shard-1.run': 'q1 Q0 a 1 1 t\nq2 Q0 c 1 5 t\n', // q2 continues in shard-2
    });
    // q2: c (5), x (2), b (1) → AP 1/3.
    expect(value('map')).toBe((1 + 1 / 3) / 2);
    expect(suite.counts.run_queries).toBe(2);
  });

  it('reports the families at k (default 10) and at every gated cutoff', async () => {
    const { suite } = await score({
      'gates.yaml': config(['gates:', "  ndcg@3: '>= 0'"]),
      'qrels.txt': 'q 0 a 1\n',
      'run.txt': 'q Q0 a 1 1 t\n',
    });
    expect(Object.keys(suite.metrics)).toEqual([
      'map',
      'map@10',
      'P@10',
      'recall@10',
      'success@10',
      'ndcg@3',
      'ndcg@10',
      'ndcg',
      'mrr',
      'r-prec',
    ]);
  });

  it('rejects unknown keys and metrics in gates.yaml, with a suggestion', async () => {
    expect(await configError(config(['offender_metric: ndcg@l0']))).toBe(
      'gates.yaml:7:22: suite "r": offender_metric: unknown metric "ndcg@l0"; did you mean "ndcg@10"?; expected one of map, map@10, P@10, recall@10, success@10, ndcg@10, ndcg, mrr, r-prec',
    );
    expect(await configError(config(['relevance_levl: 2']))).toBe(
      'gates.yaml:7:5: suite "r": unknown key "relevance_levl"; did you mean "relevance_level"?; expected one of kind, qrels, run, qrels_format, run_format, relevance_level, complete, k, offender_metric, gates',
    );
    expect(await configError(config(['run_format: csv']))).toBe(
      'gates.yaml:7:17: suite "r": run_format: expected one of "trec"|"jsonl"',
    );
    expect(await configError(config(['gates:', "  MAP: '>= 0.5'"]))).toMatch(
      /^gates\.yaml:8:7: suite "r": unknown metric "MAP" for kind ranking; did you mean "map"\?/,
    );
  });
});
