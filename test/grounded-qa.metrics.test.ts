import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GROUNDED_METRICS,
  registerGroundedMetric,
  type GroundedMetric,
} from '../src/grounded-answer/metrics/index.js';
import { POPULATIONS, type Population } from '../src/grounded-answer/metrics/spec.js';
import { doubted, pairedPopulations } from '../src/grounded-answer/metrics/suite.js';
import {
  failingColumns,
  metricValues,
  populationColumns,
  populationSize,
  tally,
} from '../src/grounded-answer/metrics/tally.js';
import { newRunTable } from '../src/grounded-answer/pipeline/runs.js';
import type { ScoreOptions } from '../src/grounded-answer/score-options.js';
import {
  CONSTRAINED,
  CORRECT,
  EVIDENCE,
  HIT,
  REFUSED,
  VIOLATION,
} from '../src/grounded-answer/verdict-flags.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { suiteKind } from '../src/suites/registry.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// Six items, one of each kind a population tells apart (flags as judgeInto sets them; labels left out, as
// no metric reads them): r0 answered right with constraints kept, r1 refused, r2 an answered unanswerable
// item, r3 and r4 without a trace, r5 answered with a constraint violated.
const ANSWERABLE = [1, 1, 0, 0, 1, 1];
const RUNS: (number | undefined)[] = [
  CORRECT | HIT | CONSTRAINED,
  REFUSED,
  0,
  undefined,
  undefined,
  HIT | CONSTRAINED | VIOLATION,
];

function sixItems(cutoffs = 1) {
  const table = newRunTable(RUNS.length, cutoffs);
  RUNS.forEach((flags, row) => {
    if (flags === undefined) return;
    table.present[row] = 1;
    table.flags[row] = flags;
  });
  return table;
}

const options = (over: Partial<ScoreOptions> = {}): ScoreOptions => ({
  refusalToken: 'not in context',
  scuRules: [],
  cutoffs: [5],
  ...over,
});

/** A metric that counts the shipped answers of `population`. */
const shippedOf = (population: Population): GroundedMetric => ({
  name: `shipped_of_${population}`,
  direction: 'higher',
  unit: 'ratio',
  description: '',
  population,
  empty: `no ${population} items`,
  counts: POPULATIONS.shipped,
  doubts: [],
});

describe('grounded-qa metric populations', () => {
  // Members, by the comment above: gold r0–r5; answerable r0 r1 r4 r5; unanswerable r2 r3; traced r0 r1 r2
  // r5; shipped r0 r2 r5; constrained r0 r5. Of them shipped: r0 r2 r5 | r0 r5 | r2 | r0 r2 r5 | all | all.
  it.each([
    ['gold', 3, 6],
    ['answerable', 2, 4],
    ['unanswerable', 1, 2],
    ['traced', 3, 4],
    ['shipped', 3, 3],
    ['constrained', 2, 2],
  ] as const)('%s: a metric over it counts its members', (population, numerator, denominator) => {
    const t = tally(Uint8Array.from(ANSWERABLE), sixItems(), 1);
    expect(populationSize(t, population)).toBe(denominator);
    expect(metricValues([shippedOf(population)], t, options())[`shipped_of_${population}`]).toEqual({
      value: numerator / denominator,
      numerator,
      denominator,
    });
  });

  it('an empty population gives no value, with the metric’s reason', () => {
    const t = tally(Uint8Array.from([1, 1]), newRunTable(2, 1), 1);
    expect(metricValues([shippedOf('unanswerable')], t, options()).shipped_of_unanswerable).toEqual({
      value: null,
      reason: 'no unanswerable items',
      numerator: 0,
      denominator: 0,
    });
  });

  it("item verdicts' population columns are the gold-decided ones, answerable first", () => {
    const t = tally(Uint8Array.from(ANSWERABLE), sixItems(), 1);
    expect(populationColumns(t)).toEqual({
      answerable: Uint8Array.from([1, 1, 0, 0, 1, 1]),
      unanswerable: Uint8Array.from([0, 0, 1, 1, 0, 0]),
    });
  });

  it('a failing column holds only the members of the metric’s population that fail it', () => {
    const t = tally(Uint8Array.from(ANSWERABLE), sixItems(), 1);
    // precision: shipped r0 r2 r5, of which r2 (no CORRECT) and r5 fail; under_refusal: unanswerable and
    // shipped, r2; over_refusal: answerable and refused, r1; chr: shipped without HIT, r2.
    expect(failingColumns(GROUNDED_METRICS, t)).toEqual({
      precision: Uint8Array.from([0, 0, 1, 0, 0, 1]),
      chr: Uint8Array.from([0, 0, 1, 0, 0, 0]),
      under_refusal: Uint8Array.from([0, 0, 1, 0, 0, 0]),
      over_refusal: Uint8Array.from([0, 1, 0, 0, 0, 0]),
    });
  });

  it('the suite’s paired populations: gold-decided, every item (left out), or no paired gate', () => {
    expect(pairedPopulations(GROUNDED_METRICS)).toEqual({
      under_refusal: 'unanswerable',
      over_refusal: 'answerable',
      'recall@{k}': null,
      scu_violations: null,
      constraint_integrity: null,
      coverage: null,
    });
  });

  it('the metrics each misread warning puts in doubt, in table order', () => {
    expect(doubted(GROUNDED_METRICS, 'qid')).toEqual([
      'precision',
      'chr',
      'under_refusal',
      'over_refusal',
      'recall@*',
      'chr@*_upper_bound',
      'coverage',
    ]);
    expect(doubted(GROUNDED_METRICS, 'citations')).toEqual(['precision', 'chr', 'chr@*_upper_bound']);
  });

  it('the SCU metrics: from the constrained answers when scu is on, not computable when off', () => {
    const t = tally(Uint8Array.from(ANSWERABLE), sixItems(), 1);
    const on = metricValues(GROUNDED_METRICS, t, options());
    // Constrained: r0 (kept), r5 (violated).
    expect(on.scu_violations).toEqual({ value: 1 });
    expect(on.constraint_integrity).toEqual({ value: 0.5, numerator: 1, denominator: 2 });
    const off = metricValues(GROUNDED_METRICS, t, options({ scuRules: null }));
    expect(off.scu_violations).toEqual({ value: null, reason: 'scu not enabled' });
  });
});

// The paired-gate example's shape (test/paired-gate.test.ts): 20 items, q16–q20 unanswerable.
const ids = Array.from({ length: 20 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
const unanswerable = new Set(ids.slice(15));
const gold = ids.map((qid) => ({
  qid,
  question: `what of ${qid}?`,
  answerable: !unanswerable.has(qid),
  gold_claim_substr: unanswerable.has(qid) ? [] : [`answer ${qid}`],
  gold_citations: unanswerable.has(qid) ? [] : [`doc#${qid}`],
}));

/** Every answerable item answered right, except those `astray`, whose retriever found another doc. */
const traces = (astray: readonly string[] = []) =>
  jsonl(
    ids.map((qid) =>
      unanswerable.has(qid)
        ? { qid, retrieved_ids: ['doc#none'], answer_json: { claim: 'not in context', citations: [] } }
        : {
            qid,
            retrieved_ids: [astray.includes(qid) ? 'doc#other' : `doc#${qid}`],
            answer_json: { claim: `answer ${qid}`, citations: [`doc#${qid}`] },
          },
    ),
  );

/** A toy metric: answerable items whose gold citation was retrieved at all (the EVIDENCE flag). */
const evidence: GroundedMetric = {
  name: 'evidence_rate',
  direction: 'higher',
  unit: 'ratio',
  description: 'Answerable items with a gold citation anywhere in retrieved_ids, over all answerable items',
  population: 'answerable',
  empty: 'gold has no answerable items',
  counts: (item) => (item & EVIDENCE) !== 0,
  fails: (item) => (item & EVIDENCE) === 0,
  doubts: ['qid', 'retrieved'],
};

describe('a grounded-qa metric registered in the table', () => {
  it('is a metric of the suite, computed, gated (level and paired), and gone once taken out', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'traces.jsonl': traces(),
      'gates.yaml': `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    refusal_token: 'not in context'
    gates:
      evidence_rate: { min: 0.9, max_new_failures: 1 }
`,
    });
    const config = path.join(dir, 'gates.yaml');
    const unregister = registerGroundedMetric(evidence);
    try {
      // After the table's others (the token and cost metrics, from cost/usage-metrics.ts, follow the table).
      expect(
        suiteKind('grounded-qa')!
          .metrics.map((m) => m.name)
          .filter((name) => !name.startsWith('tokens') && !name.startsWith('cost'))
          .at(-1),
      ).toBe('evidence_rate');
      const baseline = path.join(dir, 'base.json');
      writeFileSync(baseline, serializeReport((await run({ config })).report));
      writeFileSync(path.join(dir, 'traces.jsonl'), traces(['q02', 'q03', 'q04']));
      const { report } = await run({ config, baseline });
      const qa = report.suites.qa!;
      // Reported after the table's other metrics: 12 of 15 answerable items retrieved their gold doc.
      expect(Object.keys(qa.metrics).slice(-2)).toEqual(['coverage', 'evidence_rate']);
      expect(qa.metrics.evidence_rate).toMatchObject({ value: 12 / 15, numerator: 12, denominator: 15 });
      const gated = report.gates.filter((g) => g.metric === 'evidence_rate');
      expect(gated[0]).toMatchObject({ op: '>=', threshold: 0.9, passed: false });
      // Paired within the answerable items: q02–q04 passed before and fail now, 3 > 1.
      expect(gated[1]).toMatchObject({
        op: 'max_new_failures',
        passed: false,
        paired: { population: 'answerable', items: 15, new_failures: 3, fixes: 0 },
      });
    } finally {
      unregister();
    }
    expect(GROUNDED_METRICS.map((m) => m.name)).not.toContain('evidence_rate');
    await expect(run({ config })).rejects.toThrow(/evidence_rate/);
  });

  it('refuses a name the table has already', () => {
    expect(() => registerGroundedMetric({ ...evidence, name: 'precision' })).toThrow(
      'grounded-qa metric precision is registered already',
    );
  });
});
