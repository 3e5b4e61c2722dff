import { describe, expect, it } from 'vitest';
import { populationFlips } from '../src/gates/paired.js';
import type { MetricSpec } from '../src/metrics/spec.js';
import { ItemRecord } from '../src/report/item-record.js';
import type { Comparison } from '../src/report/schema.js';
import type { ItemVerdicts, SuiteKind } from '../src/suites/types.js';

// populationFlips (src/gates/paired.ts): what a max_new_failures gate counts, on eight items written here.
//
//   id  baseline        now             unanswerable  fails precision now
//   a   pass, gold g    fail            1             1
//   b   pass            fail            0             1
//   c   fail            pass            1             0
//   d   pass            pass            1             0
//   e   pass            fail            1             0   (fails another metric only)
//   f   pass, gold old  fail, gold new  0             1   (gold changed: not paired)
//   g   —               fail            0             1   (added: not paired)
//   h   pass            fail            0             1
const IDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const bits = (...b: number[]) => Uint8Array.from(b);
const BASE = ItemRecord.fromRecord({
  a: { pass: true, gold: 'g' },
  b: { pass: true, gold: 'g' },
  c: { pass: false, gold: 'g' },
  d: { pass: true, gold: 'g' },
  e: { pass: true, gold: 'g' },
  f: { pass: true, gold: 'old' },
  h: { pass: true, gold: 'g' },
});
const NOW = ItemRecord.fromRecord({
  a: { pass: false, gold: 'g' },
  b: { pass: false, gold: 'g' },
  c: { pass: true, gold: 'g' },
  d: { pass: true, gold: 'g' },
  e: { pass: false, gold: 'g' },
  f: { pass: false, gold: 'new' },
  g: { pass: false, gold: 'g' },
  h: { pass: false, gold: 'g' },
});
const VERDICTS: ItemVerdicts = {
  ids: IDS,
  pass: bits(0, 0, 1, 1, 0, 0, 0, 0),
  populations: { unanswerable: bits(1, 0, 1, 1, 1, 0, 0, 0), answerable: bits(0, 1, 0, 0, 0, 1, 1, 0) },
  failing: { precision: bits(1, 1, 0, 0, 0, 1, 1, 1) },
};
const KIND = {
  kind: 'test-kind',
  populations: { under_refusal: 'unanswerable', over_refusal: 'answerable', precision: null },
} as unknown as SuiteKind;
const spec = (name: string) => ({ name }) as MetricSpec;
const flipsOf = (verdicts: ItemVerdicts | undefined, base: ItemRecord | undefined) =>
  populationFlips(KIND, verdicts, NOW, base, 'no baseline report');

describe('populationFlips', () => {
  it("counts a metric's new failures among every item: those that fail that metric now", () => {
    // Paired: a b c d e h. Passed before, fail now: a b e h; of them failing precision: a b h. Fixed: c.
    // McNemar, 3 against 1: 2 · (C(4,0) + C(4,1)) / 2^4 = 10/16.
    expect(flipsOf(VERDICTS, BASE)(spec('precision'))).toEqual({
      population: 'all',
      paired: 6,
      regressed: ['a', 'b', 'h'],
      fixed: ['c'],
      mcnemar_p: 0.625,
    });
  });

  it('counts within the metric’s population; without a failing column every regression is its own', () => {
    // Unanswerable and paired: a c d e. Regressed a e, fixed c: 2 · (1 + 3) / 8 = 1.
    expect(flipsOf(VERDICTS, BASE)(spec('under_refusal'))).toEqual({
      population: 'unanswerable',
      paired: 4,
      regressed: ['a', 'e'],
      fixed: ['c'],
      mcnemar_p: 1,
    });
    // Answerable: b (paired, regressed), f (gold changed), g (added). 2 · 1/2 = 1.
    expect(flipsOf(VERDICTS, BASE)(spec('over_refusal'))).toEqual({
      population: 'answerable',
      paired: 1,
      regressed: ['b'],
      fixed: [],
      mcnemar_p: 1,
    });
  });

  it("takes the suite's own comparison of every item for the population all", () => {
    const whole: Comparison = {
      gold_changes: { added: [], removed: [], changed: [] },
      paired: 2,
      regressed: ['b', 'h'],
      fixed: [],
      mcnemar_p: 0.5,
    };
    // Both regressions fail precision: 2 against 0, 2 · 1/4.
    expect(populationFlips(KIND, VERDICTS, NOW, BASE, '', whole)(spec('precision'))).toEqual({
      population: 'all',
      paired: 2,
      regressed: ['b', 'h'],
      fixed: [],
      mcnemar_p: 0.5,
    });
  });

  it('is skipped, saying why, without verdicts, without a baseline, or with nothing paired', () => {
    expect(flipsOf(undefined, BASE)(spec('precision'))).toEqual({
      skipped: 'suite kind test-kind reports no item verdicts',
    });
    expect(flipsOf(VERDICTS, undefined)(spec('precision'))).toEqual({
      skipped: 'no baseline report',
    });
    const renamed = ItemRecord.fromRecord({ z: { pass: true, gold: 'g' } });
    expect(flipsOf(VERDICTS, renamed)(spec('under_refusal'))).toEqual({
      skipped: 'no unanswerable item is in the baseline report with the same gold',
    });
    expect(flipsOf(VERDICTS, renamed)(spec('precision'))).toEqual({
      skipped: 'no item is in the baseline report with the same gold',
    });
  });

  it('throws on a population the verdicts do not hold (a bug, not an input error)', () => {
    const kind = { kind: 'k', populations: { recall: 'refused' } } as unknown as SuiteKind;
    expect(() => populationFlips(kind, VERDICTS, NOW, BASE, '')(spec('recall'))).toThrow(
      "population refused is not among the suite's item verdicts",
    );
  });
});
