import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizedEditDistance } from '../src/metrics/edit-distance.js';
import { intersectionOverUnion } from '../src/metrics/set-overlap.js';
import { run } from '../src/run.js';
import type { GoldItem } from '../src/grounded-answer/contract.js';
import { DEFAULT_THRESHOLDS, type StabilityRun } from '../src/suites/stability/contract.js';
import {
  canonicalClaim,
  medianPairwiseDistance,
  scoreQuestion,
  scoreStability,
  tally,
  unstableQuestions,
  type StabilityOptions,
} from '../src/suites/stability/score.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

describe('normalized edit distance, set overlap, canonical claims', () => {
  it('divides Levenshtein by the longer length', () => {
    expect(normalizedEditDistance('kitten', 'sitting')).toBe(3 / 7);
    expect(normalizedEditDistance('same', 'same')).toBe(0);
    expect(normalizedEditDistance('', '')).toBe(0);
    expect(normalizedEditDistance('abc', '')).toBe(1);
    expect(normalizedEditDistance('x rejects null keys', 'x accepts null keys')).toBe(4 / 19);
  });

  it('takes |∩| / |∪| over all sets', () => {
    expect(
      intersectionOverUnion([
        ['a', 'b'],
        ['a', 'b', 'c'],
      ]),
    ).toBe(2 / 3);
    expect(
      intersectionOverUnion([
        ['a', 'b', 'c'],
        ['a', 'b', 'c'],
        ['a', 'b', 'c', 'd'],
      ]),
    ).toBe(0.75);
    expect(intersectionOverUnion([['a'], ['b']])).toBe(0);
    expect(intersectionOverUnion([['a', 'a', 'b']])).toBe(1);
    expect(intersectionOverUnion([[], []])).toBe(1); // equal (empty) sets
    expect(intersectionOverUnion([['a'], []])).toBe(0);
    expect(() => intersectionOverUnion([])).toThrow(RangeError);
  });

  it("canonicalizes claims as the seed's reference does", () => {
    expect(canonicalClaim('  X rejects,  null\tkeys!  ')).toBe('x rejects null keys');
    // Trimming happens before punctuation goes, so a space before a final "." survives, as in the reference.
    expect(canonicalClaim('Done .')).toBe('done ');
    expect(canonicalClaim('p1#2 (ok)')).toBe('p12 ok');
  });

  it('takes the median over every pair of claims', () => {
    expect(medianPairwiseDistance([])).toBeUndefined();
    expect(medianPairwiseDistance(['only one'])).toBeUndefined();
    expect(medianPairwiseDistance(['same', 'same', 'same'])).toBe(0);
    // Pairs: (1,2) 0, (1,3) 1/4, (2,3) 1/4 → median 1/4.
    expect(medianPairwiseDistance(['abcd', 'abcd', 'abce'])).toBe(0.25);
    // Four claims, six pairs: 0, 0, 1/4 ×4 → median of an even count interpolates: (1/4 + 1/4)/2.
    expect(medianPairwiseDistance(['abcd', 'abcd', 'abce', 'abce'])).toBe(0.25);
    // Three equal claims and one other: 0 ×3, 1/4 ×3 → (0 + 1/4)/2.
    expect(medianPairwiseDistance(['abcd', 'abcd', 'abcd', 'abce'])).toBe(0.125);
  });
});

let line = 0;
function gold(qid: string, answerable: boolean, constraints: string[] = []): GoldItem {
  return {
    qid,
    answerable,
    claimSubstrings: answerable ? ['rejects null keys'] : [],
    citations: answerable ? ['p1'] : [],
    constraints,
    source: { file: 'gold.jsonl', line: ++line, offset: 0, length: 0 },
  };
}
function runOf(
  qid: string,
  claim: string,
  citations: string[],
  retrieved: string[],
  echo?: string[],
): StabilityRun {
  return {
    qid,
    claim,
    citations,
    retrieved,
    constraintsEcho: echo,
    source: { file: 'runs.jsonl', line: ++line },
  };
}
const options: StabilityOptions = {
  refusalToken: 'not in context',
  thresholds: DEFAULT_THRESHOLDS,
  minRuns: 2,
};
const LOCK = 'X rejects null keys.';

/*
 * G1, answerable, with a constraint. Four runs:
 *   r1 "X rejects null keys."  cites p1      echo ok      C H
 *   r2 "X rejects null keys!"  cites p1 p2   echo ok      C H
 *   r3 "X accepts null keys."  cites p2      echo ok      ¬C ¬H (no gold id)
 *   r4 refusal                 cites —       no echo      ¬C ¬H
 * acr 2/4, cghc 2/4; css: ∩ of {p1} {p1,p2} {p2} {} is ∅ → 0; rcr 3/4; scu_cons 0 (r4 echoes nothing);
 * ned50 over the three shipped claims, canonical "x rejects null keys" ×2 and "x accepts null keys":
 * 0, 4/19, 4/19 → 4/19 = 0.2105 > 0.20.
 */
const g1 = gold('G1', true, [LOCK]);
const g1Runs = [
  runOf('G1', 'X rejects null keys.', ['p1'], ['p1', 'p2'], [LOCK]),
  runOf('G1', 'X rejects null keys!', ['p1', 'p2'], ['p1', 'p2'], [LOCK]),
  runOf('G1', 'X accepts null keys.', ['p2'], ['p1', 'p2'], [LOCK]),
  runOf('G1', 'not in context', [], ['p1']),
];

describe('scoreQuestion', () => {
  it('computes every per-question value by hand and fails the thresholds it misses', () => {
    const q = scoreQuestion(g1, g1Runs, options);
    expect(q.values).toEqual({
      refusal_consistency: 0.75,
      constraint_echo_consistency: 0,
      containment_rate: 0.5,
      citation_hit_rate: 0.5,
      citation_stability: 0,
      claim_edit_distance_median: 4 / 19,
    });
    // Refusal consistency is the unanswerable questions' check; an answerable one is judged on the rest.
    expect(q.labels).toEqual([
      'constraint_echo_consistency',
      'containment_rate',
      'citation_hit_rate',
      'citation_stability',
      'claim_edit_distance_median',
    ]);
  });

  it('uses the configured thresholds', () => {
    const lenient = {
      ...options,
      thresholds: {
        ...DEFAULT_THRESHOLDS,
        constraint_echo_consistency: 0, // off
        containment_rate: 0.5,
        citation_hit_rate: 0.5,
        citation_stability: 0,
        claim_edit_distance_median: 4 / 19,
      },
    };
    expect(scoreQuestion(g1, g1Runs, lenient).labels).toEqual([]);
    expect(
      scoreQuestion(g1, g1Runs, {
        ...lenient,
        thresholds: { ...lenient.thresholds, claim_edit_distance_median: 0.21 },
      }).labels,
    ).toEqual(['claim_edit_distance_median']);
  });

  it('scores one run: trivially consistent, no pairs to compare, too few runs by default', () => {
    const one = [runOf('G', 'X rejects null keys.', ['p1'], ['p1'])];
    const q = scoreQuestion(gold('G', true), one, options);
    expect(q.values).toEqual({
      refusal_consistency: 1,
      constraint_echo_consistency: null,
      containment_rate: 1,
      citation_hit_rate: 1,
      citation_stability: 1,
      claim_edit_distance_median: null,
    });
    expect(q.labels).toEqual(['too_few_runs']);
    expect(scoreQuestion(gold('G', true), one, { ...options, minRuns: 1 }).labels).toEqual([]);
  });

  it('finds identical runs perfectly stable', () => {
    const same = [1, 2, 3].map(() => runOf('G', 'X rejects null keys.', ['p1'], ['p1', 'p9'], [LOCK]));
    const q = scoreQuestion(gold('G', true, [LOCK]), same, options);
    expect(q.values).toEqual({
      refusal_consistency: 1,
      constraint_echo_consistency: 1,
      containment_rate: 1,
      citation_hit_rate: 1,
      citation_stability: 1,
      claim_edit_distance_median: 0,
    });
    expect(q.labels).toEqual([]);
  });

  it('scores all-refused runs: stable refusals, but an answerable question fails containment', () => {
    const refusals = [1, 2, 3].map(() => runOf('G', 'Not In Context', [], ['p1']));
    const answerable = scoreQuestion(gold('G', true), refusals, options);
    expect(answerable.values).toMatchObject({
      refusal_consistency: 1,
      containment_rate: 0,
      citation_hit_rate: 0,
      citation_stability: 1, // all cite nothing: equal sets
      claim_edit_distance_median: null, // no shipped claim
    });
    expect(answerable.labels).toEqual(['containment_rate', 'citation_hit_rate']);
    const unanswerable = scoreQuestion(gold('U', false), refusals, options);
    expect(unanswerable.values).toMatchObject({
      refusal_consistency: 1,
      containment_rate: null,
      citation_hit_rate: null,
    });
    expect(unanswerable.labels).toEqual([]);
  });

  it('judges an unanswerable question on refusal consistency only, ties included', () => {
    const refusal = () => runOf('U', 'not in context', [], []);
    const answer = () => runOf('U', 'made up', ['p9'], ['p9']);
    expect(
      scoreQuestion(gold('U', false), [refusal(), refusal(), refusal(), answer()], options),
    ).toMatchObject({
      values: { refusal_consistency: 0.75 },
      labels: ['refusal_consistency'],
    });
    expect(scoreQuestion(gold('U', false), [refusal(), answer()], options).values.refusal_consistency).toBe(
      0.5,
    );
    // Consistently answering is consistent: under-refusal is the grounded-qa suite's question, not this one's.
    expect(scoreQuestion(gold('U', false), [answer(), answer()], options).labels).toEqual([]);
  });
});

describe('scoreStability', () => {
  const golds = [g1, gold('G2', true), gold('G3', false), gold('G4', true)];
  const runs = new Map([
    ['G1', g1Runs],
    ['G2', [1, 2].map(() => runOf('G2', 'X rejects null keys.', ['p1'], ['p1']))],
    [
      'G3',
      [
        runOf('G3', 'not in context', [], []),
        runOf('G3', 'not in context', [], []),
        runOf('G3', 'not in context', [], []),
        runOf('G3', 'made up', ['d'], ['d']),
      ],
    ],
  ]);

  it('aggregates the share of stable questions and the means over questions with runs', () => {
    const s = scoreStability(golds, runs, options);
    expect(s.counts).toEqual({ gold: 4, answerable: 2, unanswerable: 1, stable: 1, unstable: 2, missing: 1 });
    expect(s.metrics.stable_rate).toEqual({ value: 1 / 3, numerator: 1, denominator: 3 });
    expect(s.metrics.unstable_questions).toEqual({ value: 2 });
    expect(s.metrics.coverage).toEqual({ value: 0.75, numerator: 3, denominator: 4 });
    // containment and citation hits: answerable G1 (0.5) and G2 (1).
    expect(s.metrics.containment_rate).toEqual({ value: 0.75 });
    expect(s.metrics.citation_hit_rate).toEqual({ value: 0.75 });
    // css: G1 0, G2 1, G3 0 ({} ×3 and {d}); ned50: G1 4/19, G2 0 (G3 has one shipped claim).
    expect(s.metrics.citation_stability!.value).toBeCloseTo(1 / 3, 15);
    expect(s.metrics.claim_edit_distance_median!.value).toBeCloseTo(2 / 19, 15);
    // rcr: G1 0.75, G2 1, G3 0.75; scu_cons: only G1 has constraints.
    expect(s.metrics.refusal_consistency!.value).toBeCloseTo(2.5 / 3, 15);
    expect(s.metrics.constraint_echo_consistency).toEqual({ value: 0 });
    expect(unstableQuestions(s.questions).map((q) => `${q.gold.qid}:${q.labels.join('+')}`)).toEqual([
      'G3:refusal_consistency',
      'G1:constraint_echo_consistency+containment_rate+citation_hit_rate+citation_stability+claim_edit_distance_median',
      'G4:missing_runs',
    ]);
  });

  it('is not computable when no question has runs', () => {
    const s = scoreStability(golds, new Map(), options);
    expect(s.metrics.stable_rate).toMatchObject({ value: null, reason: 'no gold question has runs' });
    expect(s.metrics.unstable_questions).toEqual({ value: null, reason: 'no gold question has runs' });
    expect(s.metrics.claim_edit_distance_median).toEqual({
      value: null,
      reason: 'no question has two shipped claims to compare',
    });
    expect(s.metrics.coverage).toEqual({ value: 0, numerator: 0, denominator: 4 });
  });

  it('tallies distinct values side by side, most frequent first', () => {
    expect(tally(['b', 'a', 'b', 'c', 'a', 'b'])).toEqual(['3× b', '2× a', '1× c']);
    expect(tally(['x', 'y', 'z'], 2)).toEqual(['1× x', '1× y', '… 1 more']);
  });
});

const wfgyGold = () => readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8');
const seedRun = () =>
  JSON.parse(readFileSync(path.join(REPO, 'examples/stability/stability_run_example.json'), 'utf8'));
const expected = () =>
  JSON.parse(readFileSync(path.join(REPO, 'examples/stability/stability_expected_output.json'), 'utf8'));

async function runIn(runs: unknown[], extra = '') {
  const dir = tmpTree({
    'gates.yaml': `version: 1\nsuites:\n  st:\n    kind: stability\n    gold: gold.jsonl\n    runs: runs.jsonl\n${extra}`,
    'gold.jsonl': wfgyGold(),
    'runs.jsonl': jsonl(runs),
  });
  return (await run({ config: path.join(dir, 'gates.yaml') })).report.suites.st!;
}

/** A run of A0001 as the seed's runner writes it. */
const a0001 = (
  seed: number,
  jitter: string,
  claim: string,
  citations: string[],
  retrieved = ['p1#1', 'p1#2', 'p2#1'],
) => ({
  qid: 'A0001',
  run_id: `A0001#seed=${seed};j=${jitter}`,
  seed,
  jitter,
  answer_json: { claim, citations, constraints_echo: ['X rejects null keys.'] },
  retrieved_ids: retrieved,
});

describe("the seed's stability sample", () => {
  it('uses the reference scorer gates as default thresholds', () => {
    const { gates } = expected();
    expect(gates).toEqual({
      acr: DEFAULT_THRESHOLDS.containment_rate,
      cghc: DEFAULT_THRESHOLDS.citation_hit_rate,
      css: DEFAULT_THRESHOLDS.citation_stability,
      ned50: DEFAULT_THRESHOLDS.claim_edit_distance_median,
      rcr: DEFAULT_THRESHOLDS.refusal_consistency,
    });
  });

  it('scores the one published run line: what one run can show matches the expected details', async () => {
    const st = await runIn([seedRun()], '    min_runs: 1\n');
    const details = expected().details.A0001;
    expect(st.metrics.containment_rate!.value).toBe(details.acr);
    expect(st.metrics.citation_hit_rate!.value).toBe(details.cghc);
    expect(st.metrics.refusal_consistency!.value).toBe(details.rcr);
    expect(st.metrics.constraint_echo_consistency!.value).toBe(details.scu_cons);
    // The expected css 0.75 and ned50 0.08 come from a sweep of several runs that was not published: one
    // run's citation set equals itself (css 1), and one claim has no pair to compare (ned50 not computable,
    // where the reference scorer prints 0.0).
    expect(details).toMatchObject({ css: 0.75, ned50: 0.08 });
    expect(st.metrics.citation_stability!.value).toBe(1);
    expect(st.metrics.claim_edit_distance_median).toEqual({
      value: null,
      reason: 'no question has two shipped claims to compare',
    });
    // The expected totals cover a 30-question sweep; here A0002 and A0003 have no runs.
    expect(st.counts).toMatchObject({ gold: 3, answerable: 1, unanswerable: 0, stable: 1, missing: 2 });
    // With the default min_runs: 2 a single run says nothing about stability.
    const strict = await runIn([seedRun()]);
    expect(strict.offenders.map((o) => `${o.id}:${o.labels.join('+')}`)).toEqual([
      'A0001:too_few_runs',
      'A0002:missing_runs',
      'A0003:missing_runs',
    ]);
  });

  it('reproduces every expected A0001 detail from runs that fit the definitions', async () => {
    // Citation sets {p1#1, p1#2, p2#1} ×3 and that plus p3#1: css = 3/4. Claims, canonical, of 46 and 50
    // characters at edit distance 4: pairs 0, 0, 4/50 ×4 → ned50 = 0.08.
    const st = await runIn([
      a0001(1, 'none', 'X always rejects null keys and preserves order.', ['p1#2', 'p1#1', 'p2#1']),
      a0001(1, 'punct', 'X always rejects null keys and preserves order.', ['p1#2', 'p1#1', 'p2#1']),
      a0001(2, 'none', 'X always rejects null keys and preserves its order.', ['p1#2', 'p1#1', 'p2#1']),
      a0001(
        2,
        'punct',
        'X always rejects null keys, and preserves its order!',
        ['p1#2', 'p1#1', 'p2#1', 'p3#1'],
        ['p1#1', 'p1#2', 'p2#1', 'p3#1'],
      ),
    ]);
    const details = expected().details.A0001;
    expect({
      acr: st.metrics.containment_rate!.value,
      cghc: st.metrics.citation_hit_rate!.value,
      css: st.metrics.citation_stability!.value,
      ned50: st.metrics.claim_edit_distance_median!.value,
      rcr: st.metrics.refusal_consistency!.value,
      scu_cons: st.metrics.constraint_echo_consistency!.value,
    }).toEqual(details);
    // css 0.75 and ned50 0.08 pass the seed's thresholds (0.70, 0.20): A0001 is stable.
    expect(st.offenders.map((o) => o.id)).toEqual(['A0002', 'A0003']);
  });
});

describe('stability suite', () => {
  it('keeps the last line of a repeated run_id and warns about unknown qids', async () => {
    const st = await runIn(
      [
        a0001(1, 'none', 'X says nothing.', ['p1#1']),
        a0001(2, 'none', 'X rejects null keys.', ['p1#2']),
        a0001(1, 'none', 'X rejects null keys.', ['p1#2']), // the sweep appended again: replaces line 1
        { ...a0001(3, 'none', 'X rejects null keys.', ['p1#2']), run_id: undefined },
        { ...a0001(3, 'none', 'anything', []), qid: 'Z9' },
      ],
      '    gates:\n      unstable_questions: "== 0"\n',
    );
    expect(st.counts).toMatchObject({ run_lines: 5, superseded_runs: 1, unknown_qids: 1, stable: 1 });
    expect(st.warnings).toEqual([
      '1 run qid not in gold (1 line) not scored: Z9',
      '2 of 3 gold questions have no runs',
    ]);
  });

  it('shows the differing claims of an unstable question side by side', async () => {
    const st = await runIn([
      a0001(1, 'none', 'X rejects null keys.', ['p1#2']),
      a0001(1, 'punct', 'X rejects null keys.', ['p1#2']),
      a0001(2, 'none', 'X accepts null keys.', ['p1#1']),
    ]);
    expect(st.offenders[0]).toEqual({
      id: 'A0001',
      labels: ['containment_rate', 'citation_hit_rate', 'citation_stability', 'claim_edit_distance_median'],
      question: 'Does X support null keys?',
      runs: 3,
      refusal_consistency: 1,
      constraint_echo_consistency: 1,
      containment_rate: 2 / 3,
      citation_hit_rate: 2 / 3,
      citation_stability: 0,
      claim_edit_distance_median: 4 / 19,
      claims: ['2× X rejects null keys.', '1× X accepts null keys.'],
      citation_sets: ['2× [p1#2]', '1× [p1#1]'],
      gold_claim_substr: ['rejects null keys'],
      gold_citations: ['p1#2'],
      source: { file: 'gold.jsonl', line: 1 },
    });
  });

  it('names file and line of a malformed run', async () => {
    const error = await runIn([{ qid: 'A0001', retrieved_ids: [] }]).then(
      () => 'no error',
      (e: Error) => e.message.replace(/^.*?runs\.jsonl/, 'runs.jsonl'),
    );
    expect(error).toBe(
      'runs.jsonl:1: missing field "answer_json" (a stability run {qid, run_id?, answer_json: {claim, citations}, retrieved_ids}); expected object',
    );
  });
});

describe('repository example (gates.yaml: stability)', () => {
  it('finds all three questions stable', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['stability'] });
    const st = report.suites.stability!;
    // A0001: canonical claims "x rejects null keys" ×3 and "x always rejects null keys" (26 characters,
    // 7 edits away): pairs 0 ×3, 7/26 ×3 → median 7/52. A0003: identical claims, 0. Mean 7/104.
    expect(st.metrics.claim_edit_distance_median!.value).toBeCloseTo(7 / 104, 15);
    expect(st.metrics.stable_rate).toMatchObject({ value: 1, numerator: 3, denominator: 3 });
    expect(st.counts).toMatchObject({ gold: 3, answerable: 2, unanswerable: 1, stable: 3, unstable: 0 });
    expect(st.offenders).toEqual([]);
    expect(report.verdict).toBe('pass');
  });
});
