import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printf4 } from '../src/metrics/ir.js';
import { run } from '../src/run.js';
import { REPO } from './helpers/tmp.js';

/*
 * The committed ranking example (examples/ranking, suite `retrieval` of gates.yaml): 35 queries, one or two
 * relevant chunks each, a BM25 top 10. The expected values are what trec_eval 10.0 prints for
 *   trec_eval -m map -m P.5,10 -m recall.10 -m ndcg_cut.10 -m ndcg -m recip_rank -m success.10 -m Rprec
 *             -m map_cut.10 -m num_q examples/ranking/ferrymark.qrels examples/ranking/bm25.run
 */
describe('repository example: the retrieval suite (examples/ranking)', () => {
  it('passes its gates with the values trec_eval prints', async () => {
    const { report, warnings } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['retrieval'] });
    const suite = report.suites.retrieval!;
    const printed = Object.fromEntries(Object.entries(suite.metrics).map(([k, m]) => [k, printf4(m.value!)]));
    expect(printed).toEqual({
      map: '0.8949',
      'map@10': '0.8949',
      'P@5': '0.2000',
      'P@10': '0.1029',
      'recall@10': '0.9857',
      'success@10': '1.0000',
      'ndcg@10': '0.9181',
      ndcg: '0.9181',
      mrr: '0.8969',
      'r-prec': '0.8571',
    });
    // recall@10: 34 queries at 1 and one at 0.5 (mean 34.5/35); sd = √((34·(1/70)² + (34/70)²)/34) = 0.0845154,
    // se = 0.0142857, t(0.975, 34) = 2.0322445: 0.9857143 ± 0.0290321, the upper bound cut to 1.
    const recall = suite.metrics['recall@10']!;
    expect(recall.n).toBe(35);
    expect(recall.ci95![0]).toBeCloseTo(0.9566822, 6);
    expect(recall.ci95![1]).toBe(1);
    expect(suite.counts).toEqual({
      qrels_queries: 35,
      run_queries: 35,
      evaluated: 35,
      skipped: 0,
      run_only: 0,
      no_relevant_judged: 0,
    });
    expect(warnings).toEqual([]);
    expect(report.gates.map((g) => `${g.metric} ${g.op} ${g.threshold}: ${g.passed}`)).toEqual([
      'ndcg@10 >= 0.85: true',
      'P@5 >= 0.18: true',
      'recall@10 >= 0.95: true',
      'mrr >= 0.85: true',
    ]);
    expect(report.verdict).toBe('pass');
  });

  it('lists the queries below an ideal ranking on ndcg@10, the first gate, worst first', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['retrieval'] });
    const offenders = report.suites.retrieval!.offenders;
    expect(offenders.map((o) => `${o.id}:${o.labels[0]}:${printf4(o['ndcg@10'] as number)}`)).toEqual([
      'FM021:relevant_missed:0.2044',
      'FM015:misranked:0.4307',
      'FM001:misranked:0.5000', // one relevant chunk at rank 3: 1/log2(4)
      'FM033:misranked:0.5000', // ties by qid
      'FM037:misranked:0.5000',
    ]);
    // FM021: relevant keys#4 and limits#1; only limits#1 is retrieved, at rank 7.
    // nDCG@10 = (1/log2(8)) / (1 + 1/log2(3)), RR = 1/7, recall@10 = 1/2, P@5 = 0.
    expect(offenders[0]).toEqual({
      id: 'FM021',
      labels: ['relevant_missed'],
      'ndcg@10': 1 / Math.log2(8) / (1 + 1 / Math.log2(3)),
      'P@5': 0,
      'recall@10': 1 / 2,
      mrr: 1 / 7,
      retrieved: 10,
      relevant: 2,
      relevant_retrieved: 1,
      first_relevant_rank: 7,
      missed: ['keys#4'],
      run: 'examples/ranking/bm25.run:151',
      source: { file: 'examples/ranking/ferrymark.qrels', line: 177 },
    });
  });
});
