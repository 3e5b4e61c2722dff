import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

/** The seed's three-item worked example (fixtures/wfgy), scored as its reference scorer did. */
async function scoreExample(scu: boolean) {
  const dir = tmpTree({
    'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: trace.jsonl\n    scu: ${scu}\n    gates:\n      precision: ">= 0.80"\n      chr: ">= 0.75"\n      under_refusal: "<= 0.05"\n      over_refusal: "<= 0.10"\n`,
  });
  for (const f of ['gold.jsonl', 'trace.jsonl'])
    copyFileSync(path.join(FIXTURES, 'wfgy', f), path.join(dir, f));
  return (await run({ config: path.join(dir, 'gates.yaml') })).report;
}

describe('the seed worked example', () => {
  it('matches the reference scorer output with scu off', async () => {
    const expected = JSON.parse(
      readFileSync(path.join(FIXTURES, 'wfgy', 'score_eval_expected_output.json'), 'utf8'),
    );
    const report = await scoreExample(false);
    const qa = report.suites.qa!;
    expect(qa.metrics.precision!.value).toBe(expected.precision);
    expect(qa.metrics.chr!.value).toBe(expected.chr);
    expect(qa.metrics.under_refusal!.value).toBe(expected.under_refusal);
    expect(qa.metrics.over_refusal!.value).toBe(expected.over_refusal);
    expect(qa.metrics[`recall@${expected.k}`]!.value).toBe(expected['recall@k']);
    expect(qa.counts).toMatchObject({
      answered: expected.answered,
      refused: expected.refused,
      answerable: expected.answerable,
      unanswerable: expected.unanswerable,
    });
    expect(report.verdict).toBe(expected.pass ? 'pass' : 'fail');
    expect(qa.metrics.scu_violations).toEqual({ value: null, reason: 'scu not enabled' });
  });

  it('counts the missing constraints_echo of A0001 as an SCU violation with scu on', async () => {
    const report = await scoreExample(true);
    const qa = report.suites.qa!;
    expect(qa.metrics.precision).toMatchObject({ value: 0.5, numerator: 1, denominator: 2 });
    expect(qa.metrics.chr!.value).toBe(1);
    expect(qa.metrics.scu_violations).toEqual({ value: 1 });
    expect(qa.metrics.constraint_integrity).toMatchObject({ value: 0, numerator: 0, denominator: 1 });
    expect(qa.offenders.map((o) => [o.id, o.labels])).toEqual([['A0001', ['scu_violation']]]);
    expect(qa.offenders[0]).toMatchObject({ constraints: ['X rejects null keys.'], constraints_echo: null });
    expect(report.verdict).toBe('fail');
    expect(report.gates.find((g) => g.metric === 'precision')).toMatchObject({
      value: 0.5,
      passed: false,
      line: 9,
    });
  });
});
