import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../src/report/html.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { serializeReport, type SuiteReport } from '../src/report/schema.js';
import { renderText } from '../src/report/text.js';
import { run } from '../src/run.js';
import { runCli } from './helpers/process.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

const PROPERTY_RUNS = Number(process.env.FUZZ_RUNS ?? 150);

const config = path.join(REPO, 'gates.yaml');
const regressed = [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }];

const stages = (s: SuiteReport) =>
  Object.fromEntries(s.offenders.filter((o) => o.stage).map((o) => [o.id, o.stage]));

/** The counts must add up to the metrics they split. */
function expectConsistent(s: SuiteReport): void {
  const t = s.triage!;
  const wrong = Object.values(t.answered_wrong).reduce((a, b) => a + b, 0);
  const over = Object.values(t.over_refused).reduce((a, b) => a + b, 0);
  const p = s.metrics.precision!;
  const failures = p.denominator === undefined ? 0 : p.denominator - p.numerator!;
  // Precision's failures on answerable items: all of them but the under-refusals (unanswerable, answered).
  expect(wrong).toBe(failures - s.metrics.under_refusal!.numerator!);
  expect(over).toBe(s.metrics.over_refusal!.numerator);
}

describe('triage: where grounded-qa failures come from', () => {
  it("attributes the example's regressed run, item by item, as worked out by hand", async () => {
    const { report } = await run({ config, suites: ['qa'], inputs: regressed });
    const qa = report.suites.qa!;
    /*
     * precision 16/32: 16 failures, 3 of them under-refusals (FM004, FM028, FM044: unanswerable, answered),
     * so 13 answerable items fail it; over_refusal 5/35.
     * - retrieval 2: FM015 (gold keys#4 not among limits#1, faq#2, keys#5, cli#2, keys#6; it cites keys#4
     *   anyway), FM018 (gold keys#5 not retrieved; cites cli#2).
     * - citation 5: FM022 (retention#1 retrieved, cites retention#2), FM031, FM035, FM042, FM046.
     * - containment 4: FM003 (install#5 retrieved and cited; "port 7421" where gold says "port 7420"),
     *   FM011, FM023, FM038.
     * - constraint 2: FM002 ("accepts null keys" against the lock "rejects null keys"), FM029.
     * - over-refused: FM037 with its evidence (cli#1 retrieved first, refused); FM005, FM009, FM026, FM043
     *   without it.
     */
    expect(qa.triage).toEqual({
      answered_wrong: { retrieval: 2, citation: 5, containment: 4, constraint: 2 },
      over_refused: { not_retrieved: 4, retrieved: 1 },
    });
    expect(stages(qa)).toEqual({
      FM002: 'constraint',
      FM029: 'constraint',
      FM015: 'retrieval',
      FM018: 'retrieval',
      FM022: 'citation',
      FM031: 'citation',
      FM035: 'citation',
      FM042: 'citation',
      FM046: 'citation',
      FM003: 'containment',
      FM011: 'containment',
      FM023: 'containment',
      FM038: 'containment',
      FM005: 'over_refused.not_retrieved',
      FM009: 'over_refused.not_retrieved',
      FM026: 'over_refused.not_retrieved',
      FM037: 'over_refused.retrieved',
      FM043: 'over_refused.not_retrieved',
    });
    // Under-refusals and the missing trace carry no stage.
    expect(qa.offenders.filter((o) => !o.stage).map((o) => o.id)).toEqual([
      'FM004',
      'FM028',
      'FM044',
      'FM033',
    ]);
    expectConsistent(qa);

    const clean = (await run({ config, suites: ['qa'] })).report.suites.qa!;
    expect(clean.triage).toEqual({
      answered_wrong: { retrieval: 0, citation: 1, containment: 2, constraint: 0 },
      over_refused: { not_retrieved: 2, retrieved: 0 },
    });
    expectConsistent(clean);
  });

  it('hits every stage: superseded runs, refusal variants, citations outside retrieved_ids, SCU contradictions and echoes', async () => {
    const gold = (qid: string, extra: object = {}) => ({
      qid,
      question: `${qid}?`,
      answerable: true,
      gold_claim_substr: ['port 7420'],
      gold_citations: ['g1'],
      ...extra,
    });
    const lock = ['Ferrymark rejects null keys.'];
    const answer = (
      qid: string,
      retrieved: string[],
      claim: string,
      citations: string[],
      extra: object = {},
    ) => ({
      qid,
      retrieved_ids: retrieved,
      answer_json: { claim, citations, ...extra },
    });
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    scu: true\n',
      'gold.jsonl': jsonl([
        gold('R1'),
        gold('C1'),
        gold('C2'),
        gold('T1'),
        gold('K1', { constraints: lock }),
        gold('K2', { constraints: lock }),
        gold('O1'),
        gold('O2'),
        gold('S1'),
        gold('S2'),
        gold('U1', { answerable: false, gold_claim_substr: [], gold_citations: [] }),
        gold('P1'),
        gold('M1'),
      ]),
      'traces.jsonl': jsonl([
        // Retrieval: no gold id anywhere in retrieved_ids.
        answer('R1', ['x1', 'x2'], 'It listens on port 7420.', ['x1']),
        // Citation: g1 retrieved, the answer cites another retrieved id...
        answer('C1', ['x1', 'g1'], 'It listens on port 7420.', ['x1']),
        // ...or cites g1 and an id it was never given.
        answer('C2', ['g1', 'x1'], 'It listens on port 7420.', ['g1', 'zz']),
        // Containment: grounded and cited, wrong claim.
        answer('T1', ['x1', 'g1'], 'It listens on port 7421.', ['g1']),
        // Constraint: a contradiction of the lock, with the echo right...
        answer('K1', ['g1'], 'Port 7420; Ferrymark accepts null keys.', ['g1'], { constraints_echo: lock }),
        // ...or no contradiction but no echo.
        answer('K2', ['g1'], 'Port 7420.', ['g1']),
        // Refusals, the token in other case and spacing: with the evidence (anywhere, here past k), and without.
        answer('O1', ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'g1'], '  NOT IN CONTEXT ', []),
        answer('O2', ['x1'], 'Not in context', []),
        // Superseded runs: only the winner by ts is judged.
        { ts: 1, ...answer('S1', ['x1'], 'wrong', ['x1']) },
        { ts: 2, ...answer('S1', ['g1'], 'It listens on port 7420.', ['g1']) },
        { ts: 2, ...answer('S2', ['g1'], 'It listens on port 7420.', ['g1']) },
        { ts: 3, ...answer('S2', ['g1'], 'It listens on port 9999.', ['g1']) },
        // Under-refusal: not a stage.
        answer('U1', ['x1'], 'Something.', ['x1']),
        answer('P1', ['g1'], 'It listens on port 7420.', ['g1']),
      ]),
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    const qa = report.suites.qa!;
    expect(qa.triage).toEqual({
      answered_wrong: { retrieval: 1, citation: 2, containment: 2, constraint: 2 },
      over_refused: { not_retrieved: 1, retrieved: 1 },
    });
    expect(stages(qa)).toEqual({
      R1: 'retrieval',
      C1: 'citation',
      C2: 'citation',
      T1: 'containment',
      S2: 'containment',
      K1: 'constraint',
      K2: 'constraint',
      O1: 'over_refused.retrieved',
      O2: 'over_refused.not_retrieved',
    });
    expectConsistent(qa);
  });

  it(
    'adds up to the metrics it splits, on any traces (fast-check)',
    async () => {
      const dir = tmpTree({
        'gates.yaml':
          'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    scu: true\n    k: 2\n',
      });
      const ids = ['g0', 'g1', 'g2', 'x'];
      const item = fc.record({
        answerable: fc.boolean(),
        cites: fc.subarray(['g0', 'g1', 'g2'], { minLength: 1 }),
        constrained: fc.boolean(),
      });
      const runArb = fc.record({
        item: fc.nat(9),
        ts: fc.option(fc.nat(3), { nil: undefined }),
        retrieved: fc.subarray(ids),
        cited: fc.subarray(ids),
        claim: fc.constantFrom(
          'fact one',
          'FACT ONE here',
          'other',
          ' not in context ',
          'Not In Context',
          'allows null keys, fact one',
        ),
        echo: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(item, { minLength: 10, maxLength: 10 }),
          fc.array(runArb, { maxLength: 30 }),
          async (items, runs) => {
            const lock = ['Ferrymark rejects null keys.'];
            writeFileSync(
              path.join(dir, 'gold.jsonl'),
              jsonl(
                items.map((it, i) => ({
                  qid: `Q${i}`,
                  question: 'q',
                  answerable: it.answerable,
                  gold_claim_substr: it.answerable ? ['fact one'] : [],
                  gold_citations: it.answerable ? it.cites : [],
                  ...(it.constrained ? { constraints: lock } : {}),
                })),
              ),
            );
            writeFileSync(
              path.join(dir, 'traces.jsonl'),
              jsonl(
                runs.map((r) => ({
                  qid: `Q${r.item}`,
                  ...(r.ts === undefined ? {} : { ts: r.ts }),
                  retrieved_ids: r.retrieved,
                  answer_json: {
                    claim: r.claim,
                    citations: r.cited,
                    ...(r.echo ? { constraints_echo: lock } : {}),
                  },
                })),
              ),
            );
            const { report } = await run({ config: path.join(dir, 'gates.yaml') });
            const qa = report.suites.qa!;
            const s = qa.triage!;
            const wrong = Object.values(s.answered_wrong).reduce((a, b) => a + b, 0);
            const p = qa.metrics.precision!;
            expect(wrong).toBe(
              (p.denominator ?? 0) - (p.numerator ?? 0) - qa.metrics.under_refusal!.numerator!,
            );
            expect(s.over_refused.not_retrieved + s.over_refused.retrieved).toBe(
              qa.metrics.over_refusal!.numerator,
            );
            // Every offender with a stage is counted at that stage, and every count has its offenders.
            const byStage = new Map<string, number>();
            for (const o of qa.offenders)
              if (o.stage) byStage.set(o.stage as string, (byStage.get(o.stage as string) ?? 0) + 1);
            for (const [k, v] of Object.entries(s.answered_wrong)) expect(byStage.get(k) ?? 0).toBe(v);
            for (const [k, v] of Object.entries(s.over_refused))
              expect(byStage.get(`over_refused.${k}`) ?? 0).toBe(v);
          },
        ),
        // The nightly fuzz job (npm run fuzz) sets both; fast-check takes a 32-bit seed.
        { numRuns: PROPERTY_RUNS, seed: Number(process.env.FUZZ_SEED ?? 424242) % 2 ** 31 },
      );
      // About 15 ms a run here: the nightly 10,000 take minutes.
    },
    Math.max(120_000, 60 * PROPERTY_RUNS),
  );

  it('shows "Where it fails" in the comment, the terminal and the HTML report, with deltas against a baseline', async () => {
    const dir = tmpTree({});
    const base = path.join(dir, 'base.json');
    writeFileSync(base, serializeReport((await run({ config, suites: ['qa'] })).report));
    const { report } = await run({ config, suites: ['qa'], inputs: regressed, baseline: base });
    const qa = report.suites.qa!;
    expect(qa.triage!.baseline).toEqual({
      answered_wrong: { retrieval: 0, citation: 1, containment: 2, constraint: 0 },
      over_refused: { not_retrieved: 2, retrieved: 0 },
    });

    const md = renderMarkdown(report, { offenders: 5 });
    expect(md).toContain(
      [
        '**Where it fails** (13 answered wrong, 5 over-refused)',
        '',
        '| stage | items | Δ base | what to do next | first offenders |',
        '|---|---:|---:|---|---|',
        '| citation | 5 | +4 | the gold chunk was retrieved, but the answer cites chunks it was not given or misses the gold one: check how citations are produced from the retrieved ids | `FM022`, `FM031`, `FM035` |',
      ].join('\n'),
    );
    // The largest first; equal counts in pipeline order; the regressed items lead each stage's offenders.
    const order = [...md.matchAll(/^\| ([a-z -]+) \| (\d+) \| ([+−±]\d+) \|/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]}`,
    );
    expect(order).toEqual([
      'citation 5 +4',
      'containment 4 +2',
      'over-refused without the evidence 4 +2',
      'retrieval 2 +2',
      'constraint 2 +2',
      'over-refused with the evidence 1 +1',
    ]);
    expect(md).toContain('| retrieval | 2 | +2 | no gold chunk reached the model');
    expect(md).toMatch(/\| containment \| 4 \| \+2 \| .* \| `FM003`, `FM038`, `FM011` \|/);

    const text = renderText(report, { offenders: 0 });
    expect(text).toContain(
      '  where it fails (13 answered wrong, 5 over-refused):\n    citation 5 (+4): the gold chunk',
    );
    expect(text).toContain('    retrieval 2 (+2): no gold chunk reached the model');

    const html = renderHtml(report);
    expect(html).toContain('<h3>Where it fails <small>13 answered wrong, 5 over-refused</small></h3>');
    expect(html).toMatch(
      /<tr><td>retrieval<\/td><td class="num">2<\/td><td><span class="bar" style="width:40px"><\/span><\/td><td class="num">\+2<\/td>/,
    );

    // Nothing failing: no section.
    const passing = (
      await run({
        config,
        suites: ['qa'],
        inputs: [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa.trace.jsonl') }],
      })
    ).report;
    passing.suites.qa!.triage = {
      answered_wrong: { retrieval: 0, citation: 0, containment: 0, constraint: 0 },
      over_refused: { not_retrieved: 0, retrieved: 0 },
    };
    expect(renderMarkdown(passing, { offenders: 0 })).not.toContain('Where it fails');
  });

  it("the bundled CLI's HTML report of the regressed example holds the section (dist/cli/index.js)", () => {
    const dir = tmpTree({});
    const html = path.join(dir, 'r.html');
    const r = runCli([
      '--suite',
      'qa',
      '--input',
      'qa.traces=runs/qa-regressed.trace.jsonl',
      '--format',
      'html',
      '--out',
      html,
    ]);
    expect(r.status).toBe(1);
    expect(readFileSync(html, 'utf8')).toContain(
      '<h3>Where it fails <small>13 answered wrong, 5 over-refused</small></h3>',
    );
  });
});
