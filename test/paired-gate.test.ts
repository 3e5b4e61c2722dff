import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { loadConfig } from '../src/config/load.js';
import { InputError } from '../src/errors.js';
import { round } from '../src/init/calibrate.js';
import { itemsForMeaningfulBound, pairedAllowance } from '../src/init/detectable.js';
import { noiseWarnings } from '../src/gates/noise.js';
import { wilson } from '../src/metrics/wilson.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { renderJunit } from '../src/report/junit.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { serializeReport, type Report } from '../src/report/schema.js';
import { renderText } from '../src/report/text.js';
import { run } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// The issue's own case: 20 gold items, of which 5 (q16–q20) are unanswerable.
const ids = Array.from({ length: 20 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
const unanswerable = new Set(ids.slice(15));
const gold = ids.map((qid) =>
  unanswerable.has(qid)
    ? { qid, question: `what of ${qid}?`, answerable: false, gold_claim_substr: [], gold_citations: [] }
    : {
        qid,
        question: `what of ${qid}?`,
        answerable: true,
        gold_claim_substr: [`answer ${qid}`],
        gold_citations: [`doc#${qid}`],
      },
);

/** Every item right, except: `answered` unanswerable items answered, `missed` answerable ones with a wrong claim. */
function traces({ answered = [] as string[], missed = [] as string[] } = {}): string {
  return jsonl(
    ids.map((qid) => {
      const refuse = unanswerable.has(qid) && !answered.includes(qid);
      const claim = refuse ? 'not in context' : missed.includes(qid) ? 'something else' : `answer ${qid}`;
      return {
        qid,
        retrieved_ids: [`doc#${qid}`],
        answer_json: { claim, citations: refuse || unanswerable.has(qid) ? [] : [`doc#${qid}`] },
      };
    }),
  );
}

const gates = (qa: string) => `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    refusal_token: 'not in context'
    gates:
${qa}
`;

/** The report of `now` against a baseline report of `before`, under the given gates. */
async function against(before: string | undefined, now: string, qaGates: string): Promise<Report> {
  const dir = tmpTree({
    'gold.jsonl': jsonl(gold),
    'traces.jsonl': before ?? now,
    'gates.yaml': gates(qaGates),
  });
  const config = path.join(dir, 'gates.yaml');
  if (before === undefined) return (await run({ config })).report;
  const baseline = path.join(dir, 'base.json');
  writeFileSync(baseline, serializeReport((await run({ config })).report));
  writeFileSync(path.join(dir, 'traces.jsonl'), now);
  return (await run({ config, baseline })).report;
}

const levelAndPaired = `      under_refusal: { max: 0.4345, max_new_failures: 1 }
      precision: { max_new_failures: 1 }`;

describe('max_new_failures: the paired gate', () => {
  it("catches the issue's regression (2 of 5 unanswerable answered) that the level gate lets pass", async () => {
    const report = await against(traces(), traces({ answered: ['q16', 'q17'] }), levelAndPaired);
    const under = report.gates.filter((g) => g.metric === 'under_refusal');
    // 2/5 = 0.40 is under the Wilson 95% upper bound of 0/5 (0.4345): the level gate passes.
    expect(under[0]).toMatchObject({ op: '<=', threshold: 0.4345, value: 0.4, passed: true });
    // mcnemarExact(2, 0) = 2 · (1/2)² = 0.5.
    expect(under[1]).toEqual({
      suite: 'qa',
      metric: 'under_refusal',
      op: 'max_new_failures',
      threshold: 1,
      value: 0.4,
      passed: false,
      reason:
        '2 new failures (q16, q17), 0 fixes among 5 paired unanswerable items; exact McNemar p = 0.5000',
      paired: {
        population: 'unanswerable',
        items: 5,
        new_failures: 2,
        fixes: 0,
        first: ['q16', 'q17'],
        mcnemar_p: 0.5,
      },
      line: 9,
    });
    expect(report.verdict).toBe('fail');
    const text = renderText(report, { offenders: 0, color: false });
    expect(text).toContain(
      '  ✗ qa.under_refusal = 0.4000, wanted new failures ≤ 1 — 2 new failures (q16, q17), 0 fixes among 5 paired unanswerable items; exact McNemar p = 0.5000',
    );
    expect(renderMarkdown(report, { offenders: 0 })).toContain('new failures ≤ 1');
    expect(renderJunit(report)).toContain('<testcase classname="qa" name="under_refusal new failures ≤ 1">');
  });

  it('does not let a fix elsewhere offset a new failure', async () => {
    // The baseline misses q01's claim; now q01 is right and q16, q17 are answered.
    const report = await against(
      traces({ missed: ['q01'] }),
      traces({ answered: ['q16', 'q17'] }),
      levelAndPaired,
    );
    const paired = report.gates.filter((g) => g.op === 'max_new_failures');
    // precision counts every item: 2 new failures and 1 fix, p = 2 · (1 + 3) / 8 = 1.
    expect(paired.find((g) => g.metric === 'precision')).toMatchObject({
      passed: false,
      paired: { population: 'all', items: 20, new_failures: 2, fixes: 1, mcnemar_p: 1 },
      reason: '2 new failures (q16, q17), 1 fix among 20 paired items; exact McNemar p = 1.0000',
    });
    // under_refusal counts the unanswerable items only: q01's fix is not among them.
    expect(paired.find((g) => g.metric === 'under_refusal')).toMatchObject({
      passed: false,
      paired: { population: 'unanswerable', items: 5, new_failures: 2, fixes: 0 },
    });
  });

  it("counts a metric's own failures only: a claim miss is precision's, not chr's, over_refusal's or under_refusal's", async () => {
    const report = await against(
      traces(),
      traces({ missed: ['q02', 'q03'] }),
      `      under_refusal: { max_new_failures: 0 }
      precision: { max_new_failures: 1 }
      chr: { max_new_failures: 0 }
      over_refusal: { max_new_failures: 0 }`,
    );
    const paired = Object.fromEntries(
      report.gates.filter((g) => g.op === 'max_new_failures').map((g) => [g.metric, g]),
    );
    expect(paired.under_refusal).toMatchObject({
      passed: true,
      reason: '0 new failures, 0 fixes among 5 paired unanswerable items; exact McNemar p = 1.0000',
    });
    expect(paired.precision).toMatchObject({ passed: false, paired: { new_failures: 2, items: 20 } });
    // q02 and q03 still cite their gold chunk: chr holds (15/15), and nothing was refused.
    expect(report.suites.qa!.metrics.chr).toMatchObject({ numerator: 15, denominator: 15 });
    expect(paired.chr).toMatchObject({ passed: true, paired: { new_failures: 0, items: 20 } });
    expect(paired.over_refusal).toMatchObject({
      passed: true,
      paired: { population: 'answerable', items: 15, new_failures: 0 },
    });
  });

  it('has no paired gate for recall@k: an item passes with its retrieval missed, so a baseline cannot tell', async () => {
    await expect(against(undefined, traces(), '      recall@5: { max_new_failures: 1 }')).rejects.toThrow(
      "gates.recall@5: max_new_failures, but an item's verdict does not tell recall@5's failures",
    );
  });

  it('is skipped, not passed, when no item of the baseline is paired (ids renamed, another gold set)', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'traces.jsonl': traces({ answered: ['q16', 'q17'] }),
      'gates.yaml': gates('      under_refusal: { max_new_failures: 1 }'),
    });
    const other = tmpTree({
      'gold.jsonl': jsonl(gold.map((g) => ({ ...g, qid: `x${g.qid}` }))),
      'traces.jsonl': traces().replace(/"qid":"/g, '"qid":"x'),
      'gates.yaml': gates('      under_refusal: { max_new_failures: 1 }'),
    });
    const baseline = path.join(other, 'base.json');
    writeFileSync(baseline, serializeReport((await run({ config: path.join(other, 'gates.yaml') })).report));
    const report = (await run({ config: path.join(dir, 'gates.yaml'), baseline })).report;
    expect(report.gates).toEqual([
      expect.objectContaining({
        metric: 'under_refusal',
        op: 'max_new_failures',
        passed: true,
        skipped: true,
        reason: 'no unanswerable item is in the baseline report with the same gold',
      }),
    ]);
  });

  it('is skipped without a baseline, as max_drop is', async () => {
    const report = await against(undefined, traces({ answered: ['q16', 'q17'] }), levelAndPaired);
    expect(report.gates.find((g) => g.op === 'max_new_failures')).toEqual({
      suite: 'qa',
      metric: 'under_refusal',
      op: 'max_new_failures',
      threshold: 1,
      value: 0.4,
      passed: true,
      skipped: true,
      reason: 'no baseline report given',
      line: 9,
    });
  });

  it('leaves out items whose gold changed since the baseline', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'traces.jsonl': traces(),
      'gates.yaml': gates('      under_refusal: { max_new_failures: 0 }'),
    });
    const config = path.join(dir, 'gates.yaml');
    const baseline = path.join(dir, 'base.json');
    writeFileSync(baseline, serializeReport((await run({ config })).report));
    // q16's question is edited, and it is answered now: a different question, no new failure.
    const edited = gold.map((g) => (g.qid === 'q16' ? { ...g, question: 'what else?' } : g));
    writeFileSync(path.join(dir, 'gold.jsonl'), jsonl(edited));
    writeFileSync(path.join(dir, 'traces.jsonl'), traces({ answered: ['q16'] }));
    const { report } = await run({ config, baseline });
    expect(report.gates[0]).toMatchObject({
      passed: true,
      paired: { items: 4, new_failures: 0 },
    });
  });

  it('counts the same over merged partials as over one run', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'traces.jsonl': traces(),
      'gates.yaml': gates(levelAndPaired),
    });
    const config = path.join(dir, 'gates.yaml');
    const baseline = path.join(dir, 'base.json');
    writeFileSync(baseline, serializeReport((await run({ config })).report));
    const lines = traces({ answered: ['q16', 'q17'] })
      .trimEnd()
      .split('\n');
    const parts: string[] = [];
    for (const [k, slice] of [lines.slice(0, 10), lines.slice(10)].entries()) {
      const file = path.join(dir, `shard-${k}.jsonl`);
      writeFileSync(file, slice.join('\n') + '\n');
      const part = path.join(dir, `part-${k}.partial`);
      await writePartialRun(part, { config, inputs: [{ key: 'traces', path: file }] });
      parts.push(part);
    }
    const merged = (await mergeRun(parts, { config, baseline })).report;
    expect(
      merged.gates.find((g) => g.metric === 'under_refusal' && g.op === 'max_new_failures'),
    ).toMatchObject({
      passed: false,
      paired: { population: 'unanswerable', items: 5, new_failures: 2, fixes: 0, first: ['q16', 'q17'] },
    });
  });

  it('is refused in gates.yaml where it cannot count: a negative or fractional N, a kind without item verdicts', () => {
    const dir = tmpTree({
      'a.yaml': gates('      under_refusal: { max_new_failures: -1 }'),
      'b.yaml': gates('      under_refusal: { max_new_failures: 1.5 }'),
      'd.yaml': gates('      coverage: { min: 1, max_new_failures: 0 }'),
      'c.yaml': `version: 1
suites:
  retrieval:
    kind: ranking
    qrels: q.qrels
    run: r.run
    gates:
      ndcg@10: { min: 0.5, max_new_failures: 1 }
`,
    });
    const error = (file: string) => {
      try {
        loadConfig(path.join(dir, file));
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        return (e as Error).message;
      }
      throw new Error('loaded');
    };
    expect(error('a.yaml')).toMatch(
      /a\.yaml:9:42: suite "qa": gates\.under_refusal\.max_new_failures: expected a whole number of items, 0 or more$/,
    );
    expect(error('b.yaml')).toMatch(/max_new_failures: expected a whole number of items, 0 or more$/);
    expect(error('d.yaml')).toMatch(
      /gates\.coverage: max_new_failures, but an item's verdict does not tell coverage's failures; expected it on another metric \(see docs\/statistics\.md\)$/,
    );
    expect(error('c.yaml')).toMatch(
      'c.yaml:8:7: suite "retrieval": gates.ndcg@10: max_new_failures, but kind ranking counts no new failures against a baseline; expected it only in suites of kind grounded-qa, consistency',
    );
  });
});

describe('init: a paired gate beside each level gate, and what the gold set can detect', () => {
  it('computes the calibration figures by hand', () => {
    // Wilson 95% upper bound of 0/5: z²/(n + z²) = 3.8415/8.8415 = 0.43448 → 0.4345 (rounded up).
    expect(round(wilson(0, 5)[1], false)).toBe(0.4345);
    // A level gate on a rate of 0 is meaningful from n = 35: 3.8415/38.8415 = 0.0989 ≤ 0.10 < 3.8415/37.8415.
    expect(itemsForMeaningfulBound(0, false, 0.95)).toBe(35);
    // At 0.9 the lower bound is 0.9 − 0.09947 at n = 62 and 0.9 − 0.10047 at n = 61.
    expect(0.9 - wilson(0.9 * 62, 62)[0]).toBeCloseTo(0.09947, 5);
    expect(0.9 - wilson(0.9 * 61, 61)[0]).toBeCloseTo(0.10047, 5);
    expect(itemsForMeaningfulBound(0.9, true, 0.95)).toBe(62);
    // N = max(1, floor(max_drop × n)), below n so that the gate can fail.
    expect([1, 2, 5, 20, 99, 100, 1000].map((n) => pairedAllowance(0.02, n))).toEqual([0, 1, 1, 1, 1, 2, 20]);
  });

  it("writes the issue's small set a paired gate only for under_refusal; check passes, the regressed copy fails it", async () => {
    const dir = tmpTree({ 'gold/qa.gold.jsonl': jsonl(gold), 'runs/qa.trace.jsonl': traces() });
    let out = '';
    const io = {
      stdout: (t: string) => (out += t),
      stderr: (t: string) => (out += t),
      isTty: false,
      env: {},
    };
    expect(await main(['init', '-C', dir, '--no-workflow'], io)).toBe(0);
    expect(out).toContain(
      '  qa.under_refusal: 5 items: a level gate cannot catch less than +0.60 (it fails from 3/5, past its bound 0.4345), too little to catch a regression: no level gate; one needs about 35 items (the smallest n at which the Wilson 95% upper bound of the same rate, 0, lies within 0.1 of it); the paired gate catches 2 new failures\n',
    );
    // 15/15 with its bound at 0.7961: 12/15 = 0.8 still passes, 11/15 fails, a change of 4/15 = 0.27.
    expect(out).toContain(
      "  qa.recall@5: 15 items: a level gate cannot catch less than −0.27 (it fails from 11/15, past its bound 0.7961); no paired gate: an item's verdict does not tell this metric's failures\n",
    );
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(
      '      under_refusal: { max_new_failures: 1 } # measured 0 (0/5); max_new_failures: max(1, floor(0.02 × 5 items)) = 1: one new failure is run-to-run noise unless the set is large\n',
    );
    expect(text).toContain(
      '      precision: { min: 0.7961, max_drop: 0.02, max_new_failures: 1 } # measured 1 (15/15); Wilson 95% lower bound; may drop at most 0.02 against the base branch; max_new_failures: max(1, floor(0.02 × 20 items)) = 1',
    );

    const config = path.join(dir, 'gates.yaml');
    const today = (await run({ config })).report;
    expect(today.verdict).toBe('pass');
    const baseline = path.join(dir, 'base.json');
    writeFileSync(baseline, serializeReport(today));
    writeFileSync(path.join(dir, 'runs/qa.trace.jsonl'), traces({ answered: ['q16', 'q17'] }));
    const regressed = (await run({ config, baseline })).report;
    expect(regressed.verdict).toBe('fail');
    // precision fell from 15/15 to 15/17 (a drop of 0.1176 > 0.02); coverage has no paired gate.
    expect(regressed.gates.filter((g) => !g.passed).map((g) => `${g.metric} ${g.op}`)).toEqual([
      'precision max_drop',
      'precision max_new_failures',
      'chr max_new_failures',
      'under_refusal max_new_failures',
    ]);
    // Without a baseline the regressed copy passes: only paired gates see it on 5 items.
    expect((await run({ config, committedBaseline: false })).report.verdict).toBe('pass');
    // The baseline init committed is one: with no --baseline the same gates fail against it.
    const local = (await run({ config })).report;
    expect(local.baseline).toEqual({ source: 'committed', file: '.groundgate/baseline.jsonl', commit: null });
    expect(local.gates.filter((g) => !g.passed).map((g) => `${g.metric} ${g.op}`)).toEqual([
      'precision max_drop',
      'precision max_new_failures',
      'chr max_new_failures',
      'under_refusal max_new_failures',
    ]);
  });
});

describe("check: a gate whose threshold lies inside today's interval", () => {
  it('warns, naming the gate, the threshold, the interval and n; a bound or a relative gate does not', async () => {
    const report = await against(
      undefined,
      traces(),
      `      under_refusal: '<= 0.2'
      over_refusal: { max: 0.2039, max_new_failures: 1 }
      chr: { min: 0.9, max_new_failures: 1 }
      precision: { min: 0.9, confidence: lower_bound, allow_missing: true }`,
    );
    // 0/5: Wilson 95% [0, 0.4345] holds 0.2; 0/15: [0, 0.2039] ends at the gate (init's bound): not inside.
    // 15/15: [0.7961, 1] holds 0.9, and the metric has its paired gate already: the advice says so.
    expect(report.suites.qa!.warnings).toEqual([
      "gate under_refusal <= 0.2 lies inside today's 95% interval [0.0000, 0.4345] of 0/5: it can pass or fail on noise alone; add a paired gate (max_new_failures) or more gold items (docs/statistics.md)",
      "gate chr >= 0.9 lies inside today's 95% interval [0.7961, 1.0000] of 15/15: it can pass or fail on noise alone; its paired gate (max_new_failures) judges the items; more gold items would make this one meaningful (docs/statistics.md)",
    ]);
    expect(report.verdict).toBe('fail');
  });

  it('says when a metric gated by its paired gate alone went unjudged, and advises more items where no paired gate can be', async () => {
    const report = await against(
      undefined,
      traces({ answered: ['q16', 'q17'] }),
      `      under_refusal: { max_new_failures: 1 }
      coverage: '>= 0.9'`,
    );
    // coverage 20/20: Wilson 95% [0.8389, 1] holds 0.9; coverage has no paired gate to add.
    expect(report.suites.qa!.warnings).toEqual([
      'under_refusal: every gate on it was skipped (no baseline report given): nothing judged it in this run; a baseline report would, or a level gate beside it',
      "gate coverage >= 0.9 lies inside today's 95% interval [0.8389, 1.0000] of 20/20: it can pass or fail on noise alone; more gold items would make it meaningful (docs/statistics.md)",
    ]);
    expect(report.verdict).toBe('pass');
  });

  it('leaves the edges alone: strictly inside only', () => {
    const values = { m: { value: 0.5, numerator: 1, denominator: 2, ci95: [0.1, 0.9] as [number, number] } };
    const gate = (threshold: number) => ({
      metric: 'm',
      op: '>=' as const,
      threshold,
      value: 0.5,
      passed: true,
    });
    expect(noiseWarnings([gate(0.1), gate(0.9), gate(0.95)], values, true)).toEqual([]);
    expect(noiseWarnings([gate(0.11)], values, true)).toHaveLength(1);
  });
});
