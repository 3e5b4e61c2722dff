import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
import { REPO } from './helpers/tmp.js';

/*
 * The committed example, cross-checked with an independent scorer written from the definitions alone
 * (fractions as it printed them). gates.yaml runs with scu: true and k: 5.
 */
const m = (numerator: number, denominator: number) => ({
  value: numerator / denominator,
  numerator,
  denominator,
});

/** Point values and counts; the Wilson intervals are checked on their own below. */
function points(metrics: Record<string, { ci95?: unknown }>) {
  return Object.fromEntries(Object.entries(metrics).map(([k, { ci95: _ci, ...v }]) => [k, v]));
}

describe('repository example (gates.yaml, gold/, runs/)', () => {
  it('passes every gate on runs/qa.trace.jsonl', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['qa'] });
    const qa = report.suites.qa!;
    expect(points(qa.metrics)).toEqual({
      precision: m(30, 33),
      chr: m(32, 33),
      under_refusal: m(0, 12),
      over_refusal: m(2, 35),
      'recall@5': m(32, 35),
      'chr@5_upper_bound': m(33, 33),
      scu_violations: { value: 0 },
      constraint_integrity: m(9, 9),
      coverage: m(47, 47),
    });
    // Wilson 95% for 30/33, derived in test/stats.test.ts: [0.764271, 0.968595]; none for a count.
    expect(qa.metrics.precision!.ci95![0]).toBeCloseTo(0.764271, 4);
    expect(qa.metrics.precision!.ci95![1]).toBeCloseTo(0.968595, 4);
    expect(qa.metrics.scu_violations!.ci95).toBeUndefined();
    expect(qa.counts).toEqual({
      gold: 47,
      answerable: 35,
      unanswerable: 12,
      traced: 47,
      answered: 33,
      refused: 14,
      missing: 0,
      trace_lines: 50,
      superseded_runs: 3,
      unknown_qids: 0,
    });
    expect(qa.offenders.map((o) => `${o.id}:${o.labels.join('+')}`)).toEqual([
      'FM015:citation_miss',
      'FM011:claim_miss',
      'FM023:claim_miss',
      'FM009:over_refusal',
      'FM043:over_refusal',
    ]);
    expect(report.verdict).toBe('pass');
  });

  it('fails on runs/qa-regressed.trace.jsonl with the expected offenders', async () => {
    const { report, warnings } = await run({
      config: path.join(REPO, 'gates.yaml'),
      suites: ['qa'],
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }],
    });
    const qa = report.suites.qa!;
    expect(points(qa.metrics)).toEqual({
      precision: m(16, 32),
      chr: m(22, 32),
      under_refusal: m(3, 12),
      over_refusal: m(5, 35),
      'recall@5': m(26, 35),
      'chr@5_upper_bound': m(27, 32),
      scu_violations: { value: 2 },
      constraint_integrity: m(7, 9),
      coverage: m(46, 47),
    });
    expect(qa.counts).toMatchObject({ answered: 32, refused: 14, missing: 1, unknown_qids: 1 });
    expect(warnings).toEqual([
      'qa: 1 trace qid not in gold (1 line) not scored: FM999',
      'qa: 1 of 47 gold items have no trace',
      // 22/32, 5/35 and 26/35 have Wilson 95% intervals that hold the gates' thresholds.
      "qa: gate chr >= 0.75 lies inside today's 95% interval [0.5143, 0.8205] of 22/32: it can pass or fail on noise alone; add a paired gate (max_new_failures) or more gold items (docs/statistics.md)",
      "qa: gate over_refusal <= 0.1 lies inside today's 95% interval [0.0626, 0.2938] of 5/35: it can pass or fail on noise alone; add a paired gate (max_new_failures) or more gold items (docs/statistics.md)",
      "qa: gate recall@5 >= 0.85 lies inside today's 95% interval [0.5793, 0.8584] of 26/35: it can pass or fail on noise alone; more gold items would make it meaningful (docs/statistics.md)",
    ]);
    const byLabel = (label: string) => qa.offenders.filter((o) => o.labels.includes(label)).map((o) => o.id);
    expect(byLabel('under_refusal')).toEqual(['FM004', 'FM028', 'FM044']);
    expect(byLabel('scu_violation')).toEqual(['FM002', 'FM029']);
    expect(byLabel('citation_out_of_scope')).toEqual(['FM015']);
    expect(byLabel('over_refusal')).toEqual(['FM005', 'FM009', 'FM026', 'FM037', 'FM043']);
    expect(byLabel('missing_trace')).toEqual(['FM033']);
    expect(byLabel('claim_miss')).toEqual(['FM003', 'FM011', 'FM023', 'FM038']);
    expect(report.gates.filter((g) => !g.passed).map((g) => g.metric)).toEqual([
      'precision',
      'chr',
      'under_refusal',
      'over_refusal',
      'scu_violations',
      'recall@5',
      'coverage',
    ]);
  });
});
