import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printf4 } from '../src/metrics/ir.js';
import { UNCONFINED } from '../src/io/confine.js';
import { run } from '../src/run.js';
import { evaluateRanking } from '../src/suites/ranking/evaluate.js';
import { measureRequest } from '../src/suites/ranking/metrics.js';
import { REPO, tmpTree } from './helpers/tmp.js';

/*
 * test/fixtures/trec was written by `node scripts/trec-eval-compare.mjs --fixture test/fixtures/trec` with
 * trec_eval 10.0 (usnistgov/trec_eval f4253652): 50 seeded queries, graded and negative judgments, score
 * ties, non-ASCII docids, 10 qrels queries without run lines, a run-only query and a query split in two
 * blocks. expected.trec_eval.txt is the output of
 *   trec_eval -q -c -m map -m map_cut.10 -m P.5,10 -m recall.5,10 -m success.1,5,10 -m ndcg_cut.5,10
 *             -m ndcg -m recip_rank -m Rprec -m num_q small.qrels small.run
 */
const FIXTURE = path.join(REPO, 'test', 'fixtures', 'trec');
const NAMES = [
  'map',
  'map@10',
  'P@5',
  'P@10',
  'recall@5',
  'recall@10',
  'success@1',
  'success@5',
  'success@10',
  'ndcg@5',
  'ndcg@10',
  'ndcg',
  'mrr',
  'r-prec',
];

/** trec_eval's `name\tqid\tvalue` lines as "name qid" → printed value. */
function expected(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path.join(FIXTURE, 'expected.trec_eval.txt'), 'utf8')
    .trimEnd()
    .split('\n')) {
    const [name, qid, value] = line.split('\t') as [string, string, string];
    out[`${name.trim()} ${qid}`] = value;
  }
  return out;
}

describe('trec_eval parity on the committed fixture (no binary needed)', () => {
  it('prints the same 4-decimal value as trec_eval -q -c for every query and measure', async () => {
    const requests = NAMES.map((name) => measureRequest(name, 10));
    const result = await evaluateRanking({
      qrels: [path.join(FIXTURE, 'small.qrels')],
      run: [path.join(FIXTURE, 'small.run')],
      relevanceLevel: 1,
      complete: true,
      measures: requests,
      offender: { index: 0, k: 10 },
    });
    const actual: Record<string, string> = { 'num_q all': String(result.queries.length) };
    requests.forEach((r, i) => {
      const name = r.measure.trecName.replace('{k}', String(r.k));
      for (const q of result.queries) actual[`${name} ${q.qid}`] = printf4(q.values[i]!);
      actual[`${name} all`] = printf4(result.means[i]!);
    });
    const want = expected();
    expect(Object.keys(want)).toHaveLength(50 * 14 + 14 + 1);
    expect(actual).toEqual(want);
    expect(result.zeroed).toHaveLength(10);
  });

  it('reports the same means through gates.yaml and run()', async () => {
    const dir = tmpTree({
      'gates.yaml': [
        'version: 1',
        'suites:',
        '  r:',
        '    kind: ranking',
        `    qrels: ${JSON.stringify(path.join(FIXTURE, 'small.qrels'))}`,
        `    run: ${JSON.stringify(path.join(FIXTURE, 'small.run'))}`,
        '    complete: true',
        '',
      ].join('\n'),
    });
    const { report } = await run({ scope: UNCONFINED, config: path.join(dir, 'gates.yaml') });
    const metrics = report.suites.r!.metrics;
    const want = expected();
    const printed = Object.fromEntries(
      Object.entries(metrics).map(([name, m]) => {
        const trec = measureRequest(name, 10).measure.trecName.replace('{k}', '10');
        return [trec, printf4(m.value!)];
      }),
    );
    expect(printed).toEqual(Object.fromEntries(Object.keys(printed).map((t) => [t, want[`${t} all`]])));
    expect(Object.keys(printed)).toHaveLength(9);
    expect(report.suites.r!.counts).toEqual({
      qrels_queries: 50,
      run_queries: 41,
      evaluated: 50,
      skipped: 0,
      run_only: 1,
      no_relevant_judged: 0,
    });
  });
});

describe('scripts/trec-eval-compare.mjs', () => {
  const script = path.join(REPO, 'scripts', 'trec-eval-compare.mjs');

  it('says how to run it and exits 0 when TREC_EVAL is not set', () => {
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, 'skipped: set TREC_EVAL=/path/to/trec_eval\n', '']);
  });

  it.skipIf(!process.env.TREC_EVAL)(
    'matches the trec_eval binary in TREC_EVAL on 1,000 seeded queries',
    () => {
      const build = spawnSync(path.join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
        cwd: REPO,
        encoding: 'utf8',
      });
      expect(build.stdout + build.stderr).toBe('');
      const r = spawnSync(process.execPath, [script], { cwd: REPO, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^trec_eval parity \(-q -c\): 1000 queries × 6 measures, 0 differences /m);
      expect(r.stdout).toMatch(/^4 cases, \d+ printed values compared, 0 differences in /m);
      expect(r.status).toBe(0);
    },
    300_000,
  );
});
