import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { canonicalJson } from '../src/gold/canonical.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { REPO, tmpTree } from './helpers/tmp.js';

const config = path.join(REPO, 'gates.yaml');
const regressed = [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }];

describe('--baseline', () => {
  it('adds baseline values and deltas, and evaluates max_drop in the metric direction', async () => {
    const dir = tmpTree({});
    const basePath = path.join(dir, 'base.json');
    writeFileSync(basePath, serializeReport((await run({ config, suites: ['qa'] })).report));

    const { report } = await run({ config, suites: ['qa'], inputs: regressed, baseline: basePath });
    const qa = report.suites.qa!;
    // recall@5 fell from 32/35 to 26/35: a drop of 6/35 ≈ 0.1714 against max_drop 0.02.
    expect(qa.metrics['recall@5']).toMatchObject({
      value: 26 / 35,
      numerator: 26,
      denominator: 35,
      baseline: 32 / 35,
      delta: 26 / 35 - 32 / 35,
    });
    expect(qa.metrics.scu_violations).toEqual({ value: 2, baseline: 0, delta: 2 });
    expect(report.gates.find((g) => g.op === 'max_drop')).toEqual({
      suite: 'qa',
      metric: 'recall@5',
      op: 'max_drop',
      threshold: 0.02,
      value: 26 / 35,
      baseline: 32 / 35,
      passed: false,
      line: 21,
    });
    const md = renderMarkdown(report, { offenders: 0 });
    expect(md).toContain('| metric | value | n | Δ base | gate | |');
    expect(md).toContain('| recall@5 | 0.7429 | 26/35 | −0.1714 | >= 0.85 | ❌ |');
    expect(md).toContain('| scu_violations | 2 |  | +2 | == 0 | ❌ |');

    // Same traces as the baseline: every delta is zero and max_drop passes.
    const same = (await run({ config, suites: ['qa'], baseline: basePath })).report;
    expect(same.gates.find((g) => g.op === 'max_drop')).toMatchObject({ passed: true, baseline: 32 / 35 });
    expect(
      Object.values(same.suites.qa!.metrics).every(
        (m) => m.delta === 0 || (m.delta === null && m.value === null),
      ),
    ).toBe(true);
  });

  it('refuses a baseline that is missing, not JSON or not a groundgate report of this schema version', async () => {
    const dir = tmpTree({
      'bad.json': '{"schema_version": "9"}',
      'text.json': 'not json',
      'other.json': '{"results": []}',
    });
    for (const [file, why] of [
      ['missing.json', 'baseline not found; expected a report.json written by groundgate'],
      [
        'bad.json',
        'baseline is not a groundgate report: schema_version: expected "1" (found "9"); expected a report.json',
      ],
      ['text.json', 'baseline is not JSON (unexpected token'],
      ['other.json', 'baseline is not a groundgate report: '],
      ['', 'baseline cannot be read (EISDIR)'],
    ] as const) {
      const err = await run({ config, suites: ['qa'], baseline: path.join(dir, file) }).catch(
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).detail).toContain(why);
    }
  });

  it('with baselineMissingOk (the Action), a missing baseline is a warning and max_drop gates show as skipped', async () => {
    const dir = tmpTree({ 'bad.json': '{"schema_version": "9"}' });
    const outcome = await run({
      config,
      suites: ['qa'],
      baseline: path.join(dir, 'missing.json'),
      baselineMissingOk: true,
    });
    expect(outcome.warnings[0]).toMatch(
      /^baseline .*missing\.json not found; no deltas, max_drop gates skipped$/,
    );
    expect(outcome.report.gates.find((g) => g.op === 'max_drop')).toMatchObject({
      passed: true,
      skipped: true,
      reason: 'baseline report not found',
    });
    expect(renderMarkdown(outcome.report, { offenders: 0 })).toContain(
      '### ✅ groundgate: PASS — 7 of 8 gates passed, 1 skipped',
    );
    expect(renderMarkdown(outcome.report, { offenders: 0 })).toContain(
      '|  |  |  | drop ≤ 0.02 | ⏭️ baseline report not found |',
    );
    // An invalid one is still an error.
    await expect(
      run({ config, suites: ['qa'], baseline: path.join(dir, 'bad.json'), baselineMissingOk: true }),
    ).rejects.toThrow(/baseline is not a groundgate report/);
  });
});

describe('report items', () => {
  const gold = (qid: string, fact: string) => ({
    qid,
    question: 'q',
    answerable: true,
    gold_claim_substr: [fact],
    gold_citations: ['d1'],
  });
  const trace = (qid: string, claim: string) => ({
    qid,
    retrieved_ids: ['d1'],
    answer_json: { claim, citations: ['d1'] },
  });
  it('lists every item in id order with the first 64 bits of its gold digest, whatever the gold order', async () => {
    const rows = [gold('c', 'gamma ray'), gold('a', 'alpha wave'), gold('b', 'beta test')];
    const dir = tmpTree({
      'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n`,
      'gold.jsonl': rows.map((r) => JSON.stringify(r)).join('\n') + '\n',
      'traces.jsonl': [trace('a', 'an alpha wave'), trace('c', 'no')]
        .map((t) => JSON.stringify(t))
        .join('\n'),
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    const sha = (r: object) => createHash('sha256').update(canonicalJson(r)).digest('hex').slice(0, 16);
    const items = report.suites.qa!.items!.toJSON();
    expect(Object.keys(items)).toEqual(['a', 'b', 'c']);
    expect(items).toEqual({
      a: { pass: true, gold: sha(rows[1]!) },
      b: { pass: false, gold: sha(rows[2]!) },
      c: { pass: false, gold: sha(rows[0]!) },
    });
  });
});
