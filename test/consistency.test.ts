import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cohensKappa } from '../src/metrics/kappa.js';
import { run } from '../src/run.js';
import type { Pair, Verdict } from '../src/suites/consistency/contract.js';
import { arbitrate, scoreConsistency } from '../src/suites/consistency/score.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

describe("Cohen's kappa", () => {
  it('matches the textbook example', () => {
    // 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    // pₒ = 35/50 = 0.7; pₑ = 25/50·30/50 + 25/50·20/50 = 0.5; κ = (0.7 − 0.5)/(1 − 0.5) = 0.4.
    expect(
      cohensKappa([
        [20, 5],
        [10, 15],
      ]),
    ).toEqual({ value: 0.4 });
  });

  it('is 1 for perfect agreement, 0 at chance, negative below it', () => {
    expect(
      cohensKappa([
        [3, 0],
        [0, 2],
      ]),
    ).toEqual({ value: 1 });
    // Each rater constant, on different labels: pₒ = 0 and pₑ = 0.
    expect(
      cohensKappa([
        [0, 4],
        [0, 0],
      ]),
    ).toEqual({ value: 0 });
    // Always opposite: pₒ = 0, pₑ = 0.5 → −1.
    expect(
      cohensKappa([
        [0, 5],
        [5, 0],
      ]),
    ).toEqual({ value: -1 });
  });

  it('is not computable when expected agreement is 1 or nothing was rated', () => {
    // Both raters gave every item the same single label: pₒ = pₑ = 1, κ = 0/0.
    expect(
      cohensKappa([
        [0, 0],
        [0, 7],
      ]),
    ).toEqual({
      value: null,
      reason: 'expected agreement is 1: both raters gave every item the same single label, so kappa is 0/0',
    });
    expect(cohensKappa([[1]]).value).toBeNull();
    expect(
      cohensKappa([
        [0, 0],
        [0, 0],
      ]),
    ).toEqual({ value: null, reason: 'no items rated by both raters' });
  });
});

let line = 0;
function pair(qid: string, s: Verdict, a: Verdict, extra: Partial<Pair> = {}): Pair {
  const source = { file: 'p.jsonl', line: ++line };
  return {
    qid,
    scholar: { label: s, source },
    auditor: { label: a, source },
    redFlag: false,
    citationOutOfScope: false,
    ...extra,
  };
}

/*
 * Twelve pairs, every arbitration rule and both kinds of abstention.
 * Confusion (rows scholar, columns auditor, order VALID NOT_IN_CONTEXT REJECT ABSTAIN):
 *   VALID           3 1 1 0   (5)
 *   NOT_IN_CONTEXT  1 1 0 0   (2)
 *   REJECT          2 0 1 0   (3)
 *   ABSTAIN         1 0 0 1   (2)
 *   columns         7 2 2 1
 * Agreement 6/12. Σ row·col = 35 + 4 + 6 + 2 = 47; κ = (12·6 − 47)/(144 − 47) = 25/97.
 * Abstain: P08 (scholar only) and P09 (both) = 2/12.
 */
const pairs = [
  pair('P01', 'VALID', 'VALID'),
  pair('P02', 'VALID', 'VALID'),
  pair('P03', 'NOT_IN_CONTEXT', 'NOT_IN_CONTEXT'),
  pair('P04', 'REJECT', 'REJECT'),
  pair('P05', 'VALID', 'REJECT'),
  pair('P06', 'REJECT', 'VALID'),
  pair('P07', 'NOT_IN_CONTEXT', 'VALID'),
  pair('P08', 'ABSTAIN', 'VALID'),
  pair('P09', 'ABSTAIN', 'ABSTAIN'),
  pair('P10', 'VALID', 'VALID', { redFlag: true }),
  pair('P11', 'VALID', 'NOT_IN_CONTEXT', { citationOutOfScope: true }),
  pair('P12', 'REJECT', 'VALID', { redFlag: true }),
];

describe('scoreConsistency on the hand-computed set', () => {
  it('computes agreement, kappa, abstain rate and the confusion matrix', () => {
    const s = scoreConsistency(pairs);
    expect(s.metrics.agreement).toEqual({ value: 0.5, numerator: 6, denominator: 12 });
    expect(s.metrics.kappa!.value).toBeCloseTo(25 / 97, 15);
    expect(s.metrics.abstain_rate).toEqual({ value: 2 / 12, numerator: 2, denominator: 12 });
    expect(s.metrics.disagreements).toEqual({ value: 6 });
    expect(s.confusion).toEqual([
      [3, 1, 1, 0],
      [1, 1, 0, 0],
      [2, 0, 1, 0],
      [1, 0, 0, 1],
    ]);
  });

  it('lists disagreements in arbitration order, then abstentions the agents agreed on', () => {
    const s = scoreConsistency(pairs);
    expect(
      s.flagged.map((f) => [f.pair.qid, f.disagreement, f.abstain, f.arbitration?.final, f.arbitration?.why]),
    ).toEqual([
      ['P12', true, false, 'REJECT', 'hard_flag'],
      ['P11', true, false, 'REJECT', 'citation_out_of_scope'],
      ['P05', true, false, 'REJECT', 'auditor_veto'],
      ['P06', true, false, 'REJECT', 'incoherent_pair'],
      ['P08', true, true, 'REJECT', 'incoherent_pair'],
      ['P07', true, false, 'VALID', 'auditor_ok'],
      ['P09', false, true, undefined, undefined],
    ]);
  });

  it('arbitrates as the seed: flags, scope, auditor veto, then the scholar', () => {
    expect(arbitrate(pair('x', 'VALID', 'VALID', { redFlag: true }))).toEqual({
      final: 'REJECT',
      why: 'hard_flag',
    });
    expect(arbitrate(pair('x', 'VALID', 'VALID'))).toEqual({ final: 'VALID', why: 'auditor_ok' });
    expect(arbitrate(pair('x', 'NOT_IN_CONTEXT', 'VALID'))).toEqual({ final: 'VALID', why: 'auditor_ok' });
    expect(arbitrate(pair('x', 'VALID', 'ABSTAIN'))).toEqual({ final: 'REJECT', why: 'auditor_veto' });
    expect(arbitrate(pair('x', 'REJECT', 'VALID'))).toEqual({ final: 'REJECT', why: 'incoherent_pair' });
  });

  it('is not computable on an empty input', () => {
    const s = scoreConsistency([]);
    const reason = 'no pairs labelled by both scholar and auditor';
    expect(s.metrics).toEqual({
      agreement: { value: null, reason, numerator: 0, denominator: 0 },
      kappa: { value: null, reason },
      abstain_rate: { value: null, reason, numerator: 0, denominator: 0 },
      disagreements: { value: null, reason },
    });
  });

  it('handles a single pair and an all-abstain set', () => {
    const one = scoreConsistency([pair('a', 'REJECT', 'VALID')]);
    expect(one.metrics.agreement!.value).toBe(0);
    expect(one.metrics.kappa).toEqual({ value: 0 }); // pₒ = 0, pₑ = 0
    const abstained = scoreConsistency([pair('a', 'ABSTAIN', 'ABSTAIN'), pair('b', 'ABSTAIN', 'ABSTAIN')]);
    expect(abstained.metrics.agreement!.value).toBe(1);
    expect(abstained.metrics.abstain_rate!.value).toBe(1);
    expect(abstained.metrics.kappa!.value).toBeNull();
  });
});

const gates = (inputs: string, gateLines = '') =>
  `version: 1\nsuites:\n  cons:\n    kind: consistency\n${inputs}${gateLines ? `    gates:\n${gateLines}` : ''}`;
const seedGates = '      agreement: ">= 0.90"\n      kappa: ">= 0.75"\n      abstain_rate: "<= 0.02"\n';

async function runIn(files: Record<string, string>) {
  const dir = tmpTree(files);
  return (await run({ config: path.join(dir, 'gates.yaml') })).report;
}

async function errorOf(files: Record<string, string>): Promise<string> {
  const dir = tmpTree(files);
  return run({ config: path.join(dir, 'gates.yaml') }).then(
    () => 'no error',
    (e: Error) => e.message.replace(/^.*?(gates\.yaml|\w+\.jsonl)/, '$1'),
  );
}

const judgment = (qid: string, label: string, reason?: string) => ({
  qid,
  label,
  ...(reason ? { reason } : {}),
});

describe('consistency suite', () => {
  it("scores the seed's example pair: full agreement, kappa not computable (the reference prints 0)", async () => {
    const example = JSON.parse(
      readFileSync(path.join(REPO, 'examples/consistency/consistency_pair_example.json'), 'utf8'),
    );
    const report = await runIn({
      'gates.yaml': gates('    pairs: p.jsonl\n', seedGates),
      'p.jsonl': jsonl([example]),
    });
    const cons = report.suites.cons!;
    expect(cons.metrics.agreement).toMatchObject({ value: 1, numerator: 1, denominator: 1 });
    // One pair, both VALID: pₑ = 1. The reference scorer returns kappa 0.0 here (and so fails its own gate);
    // groundgate says why it has no number. Either way the kappa gate fails on a single pair.
    expect(cons.metrics.kappa).toEqual({
      value: null,
      reason: 'expected agreement is 1: both raters gave every item the same single label, so kappa is 0/0',
    });
    expect(cons.metrics.abstain_rate).toMatchObject({ value: 0, numerator: 0, denominator: 1 });
    expect(cons.metrics.disagreements).toEqual({ value: 0 });
    expect(cons.counts).toMatchObject({ pairs: 1 });
    expect(cons.tables).toEqual([
      {
        title: 'confusion matrix (rows: Scholar, columns: Auditor)',
        columns: ['scholar \\ auditor', 'VALID', 'NOT_IN_CONTEXT', 'REJECT', 'ABSTAIN'],
        rows: [
          ['VALID', 1, 0, 0, 0],
          ['NOT_IN_CONTEXT', 0, 0, 0, 0],
          ['REJECT', 0, 0, 0, 0],
          ['ABSTAIN', 0, 0, 0, 0],
        ],
      },
    ]);
    expect(cons.offenders).toEqual([]);
    expect(report.gates.map((g) => [g.metric, g.passed])).toEqual([
      ['agreement', true],
      ['kappa', false],
      ['abstain_rate', true],
    ]);
  });

  it('fails every gate on an empty pairs file, with the reason', async () => {
    const report = await runIn({ 'gates.yaml': gates('    pairs: p.jsonl\n', seedGates), 'p.jsonl': '\n' });
    expect(report.gates.map((g) => [g.metric, g.value, g.passed, g.reason])).toEqual([
      ['agreement', null, false, 'not computable: no pairs labelled by both scholar and auditor'],
      ['kappa', null, false, 'not computable: no pairs labelled by both scholar and auditor'],
      ['abstain_rate', null, false, 'not computable: no pairs labelled by both scholar and auditor'],
    ]);
  });

  it('joins a scholar file and an auditor file on qid', async () => {
    const report = await runIn({
      'gates.yaml': gates('    scholar: s.jsonl\n    auditor: a.jsonl\n'),
      's.jsonl': jsonl([
        judgment('q1', 'VALID'),
        judgment('q2', 'REJECT', 'not contained'),
        judgment('q3', 'VALID'),
      ]),
      'a.jsonl': jsonl([
        judgment('q4', 'VALID'),
        judgment('q2', 'VALID', 'provenance ok'),
        judgment('q1', 'VALID'),
      ]),
    });
    const cons = report.suites.cons!;
    expect(cons.counts).toMatchObject({ pairs: 2, scholar_only: 1, auditor_only: 1 });
    expect(cons.metrics.agreement).toMatchObject({ value: 0.5 });
    expect(cons.warnings).toEqual([
      '1 qid labelled by the scholar only (no auditor label) not scored: q3',
      '1 qid labelled by the auditor only (no scholar label) not scored: q4',
    ]);
    expect(cons.offenders).toEqual([
      {
        id: 'q2',
        labels: ['disagreement'],
        scholar: 'REJECT',
        auditor: 'VALID',
        final: 'REJECT',
        arbitration: 'incoherent_pair',
        scholar_reason: 'not contained',
        auditor_reason: 'provenance ok',
        scholar_line: 's.jsonl:2',
        auditor_line: 'a.jsonl:2',
        source: { file: 's.jsonl', line: 2 },
      },
    ]);
  });

  it('treats unknown labels, duplicates and missing raters as input errors', async () => {
    const p = (scholar: string, auditor = 'VALID', qid = 'q1') => ({
      qid,
      scholar: { label: scholar },
      auditor: { label: auditor },
    });
    expect(
      await errorOf({
        'gates.yaml': gates('    pairs: p.jsonl\n'),
        'p.jsonl': jsonl([p('VALID'), p('valid', 'VALID', 'q2')]),
      }),
    ).toBe(
      'p.jsonl:2: field "scholar.label": found "valid"; expected one of VALID, NOT_IN_CONTEXT, REJECT, ABSTAIN',
    );
    expect(
      await errorOf({
        'gates.yaml': gates('    pairs: p.jsonl\n'),
        'p.jsonl': jsonl([p('VALID', 'UNSURE')]),
      }),
    ).toBe(
      'p.jsonl:1: field "auditor.label": found "UNSURE"; expected one of VALID, NOT_IN_CONTEXT, REJECT, ABSTAIN',
    );
    expect(
      await errorOf({
        'gates.yaml': gates('    pairs: p.jsonl\n'),
        'p.jsonl': jsonl([p('VALID'), p('REJECT')]),
      }),
    ).toBe('p.jsonl:2: duplicate qid "q1" (first at line 1); expected one line per qid');
    expect(
      await errorOf({
        'gates.yaml': gates('    pairs: p.jsonl\n'),
        'p.jsonl': jsonl([{ qid: 'q1', scholar: { label: 'VALID' } }]),
      }),
    ).toBe(
      'p.jsonl:1: missing field "auditor" (a pair {qid, scholar: {label}, auditor: {label}}); expected object',
    );
    expect(
      await errorOf({
        'gates.yaml': gates('    scholar: s.jsonl\n    auditor: a.jsonl\n'),
        's.jsonl': jsonl([judgment('q1', 'ABSTAIN')]),
        'a.jsonl': jsonl([judgment('q1', 'Abstain')]),
      }),
    ).toBe(
      'a.jsonl:1: field "label": found "Abstain"; expected one of VALID, NOT_IN_CONTEXT, REJECT, ABSTAIN',
    );
    const expected =
      'gates.yaml:3:3: suite "cons": expected either pairs (one file of scholar/auditor pairs) or both scholar and auditor';
    expect(await errorOf({ 'gates.yaml': gates('    scholar: s.jsonl\n') })).toBe(expected);
    expect(await errorOf({ 'gates.yaml': gates('    pairs: p.jsonl\n    auditor: a.jsonl\n') })).toBe(
      expected,
    );
    expect(await errorOf({ 'gates.yaml': gates('') })).toBe(expected);
  });
});

describe('repository example (gates.yaml: consistency)', () => {
  it('passes the seed gates with one auditor veto', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['consistency'] });
    const cons = report.suites.consistency!;
    // 20 pairs, 19 agree. Rows (scholar) VALID 12, NOT_IN_CONTEXT 5, REJECT 3; columns (auditor) 11, 5, 4.
    // Σ row·col = 132 + 25 + 12 = 169; κ = (20·19 − 169)/(400 − 169) = 211/231.
    expect(cons.metrics.agreement).toMatchObject({ value: 0.95, numerator: 19, denominator: 20 });
    expect(cons.metrics.kappa!.value).toBeCloseTo(211 / 231, 15);
    expect(cons.metrics.abstain_rate).toMatchObject({ value: 0, numerator: 0, denominator: 20 });
    expect(cons.offenders.map((o) => [o.id, o.final, o.arbitration])).toEqual([
      ['A0020', 'REJECT', 'auditor_veto'],
    ]);
    expect(report.verdict).toBe('pass');
  });
});
