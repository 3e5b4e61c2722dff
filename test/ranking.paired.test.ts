import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNCONFINED } from '../src/io/confine.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderText } from '../src/report/text.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { REPO, tmpTree } from './helpers/tmp.js';

/*
 * A degraded run made from test/fixtures/trec (see ranking.trec-eval.test.ts): six queries lose every
 * relevant doc from the run, so their ndcg@10 falls from trec_eval's printed value to exactly 0 and every
 * other query keeps its value.
 */
const FIXTURE = path.join(REPO, 'test', 'fixtures', 'trec');
const DEGRADED = ['113', '125', '127', '132', 'q2', 'q47'];

/** trec_eval -q's printed value of `measure` for each query (4 decimals). */
function trecEval(measure: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(path.join(FIXTURE, 'expected.trec_eval.txt'), 'utf8')
    .trimEnd()
    .split('\n')) {
    const [name, qid, value] = line.split('\t').map((s) => s.trim()) as [string, string, string];
    if (name === measure && qid !== 'all') out.set(qid, Number(value));
  }
  return out;
}

/** Each qrels query's docs judged relevant (grade ≥ 1). */
function relevant(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of readFileSync(path.join(FIXTURE, 'small.qrels'), 'utf8').split('\n')) {
    const [qid, , docid, grade] = line.trim().split(/\s+/);
    if (!qid) continue;
    if (!out.has(qid)) out.set(qid, new Set());
    if (Number(grade) >= 1) out.get(qid)!.add(docid!);
  }
  return out;
}

/** A query judged with nothing relevant (`zz`, one doc of grade 0), which can never score, is added to both runs. */
const UNSCORABLE_QRELS = 'zz 0 dz 0\n';
const UNSCORABLE_RUN = 'zz Q0 dz 1 1.5 gg\n';

function setup(gate: string) {
  const rel = relevant();
  const original = readFileSync(path.join(FIXTURE, 'small.run'), 'utf8');
  const degraded = original
    .split('\n')
    .filter((line) => {
      const [qid, , docid] = line.trim().split(/\s+/);
      return !(DEGRADED.includes(qid!) && rel.get(qid!)?.has(docid!));
    })
    .join('\n');
  const dir = tmpTree({
    'gates.yaml': [
      'version: 1',
      'suites:',
      '  r:',
      '    kind: ranking',
      '    qrels: small.qrels',
      '    run: small.run',
      '    complete: true',
      '    gates:',
      `      ndcg@10: ${gate}`,
      "      P@5: '>= 0'",
      '',
    ].join('\n'),
    'small.qrels': readFileSync(path.join(FIXTURE, 'small.qrels'), 'utf8') + UNSCORABLE_QRELS,
    'small.run': original + UNSCORABLE_RUN,
    'degraded.run': degraded + UNSCORABLE_RUN,
  });
  return { dir, config: path.join(dir, 'gates.yaml'), rel };
}

async function baselineAndDegraded(gate: string) {
  const { dir, config, rel } = setup(gate);
  const base = await run({ scope: UNCONFINED, config });
  const baseline = path.join(dir, 'base.json');
  writeFileSync(baseline, serializeReport(base.report));
  const now = await run({
    scope: UNCONFINED,
    config,
    baseline,
    inputs: [{ key: 'run', path: path.join(dir, 'degraded.run') }],
  });
  return { base: base.report, now: now.report, rel };
}

describe('ranking against a baseline, query by query', () => {
  it("writes each query's gated values into items, equal to trec_eval -q's", async () => {
    const { base } = await baselineAndDegraded('{ min: 0 }');
    const items = base.suites.r!.items!;
    const ndcg = trecEval('ndcg_cut_10');
    const p5 = trecEval('P_5');
    expect(items.size).toBe(51);
    expect(items.value('zz', 'ndcg@10')).toBe(0);
    for (const [qid, value] of ndcg) {
      expect(items.value(qid, 'ndcg@10')!.toFixed(4)).toBe(value.toFixed(4));
      expect(items.value(qid, 'P@5')!.toFixed(4)).toBe(p5.get(qid)!.toFixed(4));
    }
    // A query passes when it reaches its ideal ndcg@10: 1 exactly.
    for (const qid of ndcg.keys()) expect(items.get(qid)!.pass).toBe(ndcg.get(qid) === 1);
    expect(items.get('zz')!.pass).toBe(false);
  });

  it('gives every ranking metric its n and 95% t-interval over the queries', async () => {
    const { base } = await baselineAndDegraded('{ min: 0 }');
    const m = base.suites.r!.metrics['ndcg@10']!;
    const values = [...trecEval('ndcg_cut_10').values(), 0]; // and zz's 0
    const mean = values.reduce((a, b) => a + b, 0) / 51;
    const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / 50);
    // t(0.975, 50) = 2.008559 (t tables); values printed to 4 decimals move the bounds by < 1e-4.
    expect(m.n).toBe(51);
    expect(m.ci95![0]).toBeCloseTo(mean - (2.008559 * sd) / Math.sqrt(51), 4);
    expect(m.ci95![1]).toBeCloseTo(mean + (2.008559 * sd) / Math.sqrt(51), 4);
    expect(renderText(base, { offenders: 0 })).toMatch(/ndcg@10\s+0\.0661\s+51\s/);
  });

  it('pairs the queries: mean Δ, its interval, the exact randomization p and the t-test p', async () => {
    const { now } = await baselineAndDegraded('{ min: 0 }');
    const ndcg = trecEval('ndcg_cut_10');
    const paired = now.suites.r!.metrics['ndcg@10']!.paired!;
    const lost = DEGRADED.reduce((a, q) => a + ndcg.get(q)!, 0);
    expect(paired.items).toBe(51);
    expect(paired.mean_delta).toBeCloseTo(-lost / 51, 4);
    // Six nonzero differences, all negative: only all-plus and all-minus reach the observed |sum|: 2 / 2^6.
    expect(paired).toMatchObject({ randomization: 'exact', randomization_p: 2 / 64 });
    expect(paired.ci95[0]).toBeLessThan(paired.mean_delta);
    expect(paired.ci95[1]).toBeGreaterThan(paired.mean_delta);
    expect(paired.t_p).toBeGreaterThan(0.01);
    expect(paired.t_p).toBeLessThan(0.05);
    // P@5 is paired too (a gated metric); queries that lost their relevant docs lost their P@5 hits.
    expect(now.suites.r!.metrics['P@5']!.paired!.randomization_p).toBeLessThan(0.1);
  });

  it('lists the queries whose metric dropped most as offenders, none unscorable', async () => {
    const { now, rel } = await baselineAndDegraded('{ min: 0 }');
    const ndcg = trecEval('ndcg_cut_10');
    const suite = now.suites.r!;
    const byDrop = [...DEGRADED].sort((a, b) => ndcg.get(b)! - ndcg.get(a)!);
    expect(byDrop).toEqual(['q47', 'q2', '127', '132', '125', '113']);
    expect(suite.offenders.map((o) => o.id)).toEqual(byDrop);
    expect(suite.offenders_total).toBe(6);
    for (const o of suite.offenders) {
      expect(o.labels[0]).toBe('dropped');
      expect((o.before as number).toFixed(4)).toBe(ndcg.get(o.id)!.toFixed(4));
      expect(o.after).toBe(0);
      expect(o.delta).toBe(-(o.before as number));
      // The relevant docs now out of the top 10: all of them (up to 5 shown), since the run lost them all.
      const missed = o.missed as string[];
      expect(missed.length).toBe(Math.min(5, rel.get(o.id)!.size));
      for (const doc of missed) expect(rel.get(o.id)!.has(doc)).toBe(true);
    }
    expect(suite.counts.no_relevant_judged).toBe(1);
    // Without a baseline, the unscorable query is among the offenders below the bar, as before.
    const { base } = await baselineAndDegraded('{ min: 0 }');
    expect(base.suites.r!.offenders.find((o) => o.id === 'zz')?.labels).toEqual(['no_relevant_judged']);
  });

  it('shows p beside the drop of a max_drop gate, in report.json and the terminal', async () => {
    const { now } = await baselineAndDegraded('{ max_drop: 0.01 }');
    const gate = now.gates.find((g) => g.op === 'max_drop')!;
    expect(gate).toMatchObject({ passed: false, p: 2 / 64 });
    expect(gate.reason).toMatch(
      /^drop 0\.0\d{3} over 51 paired items .*; paired randomization p = 0\.0313, t-test p = 0\.0\d{3}$/,
    );
    expect(renderText(now, { offenders: 3 })).toContain('paired randomization p = 0.0313');
    // The pull-request comment: the gate's row, and the dropped queries first among the offenders.
    const comment = renderMarkdown(now, { offenders: 3 });
    expect(comment).toMatch(/\| drop ≤ 0\.01 \| .*paired randomization p = 0\.0313/);
    expect(comment.indexOf('q47')).toBeLessThan(comment.indexOf('q2'));
  });

  it('significance: a drop past the limit fails only when p is below the level', async () => {
    const loose = await baselineAndDegraded('{ max_drop: 0.01, significance: 0.01 }');
    const g1 = loose.now.gates.find((g) => g.op === 'max_drop')!;
    expect(g1).toMatchObject({ passed: true, significance: 0.01, p: 2 / 64 });
    expect(g1.reason).toMatch(/; not significant at 0\.01: passes$/);
    const strict = await baselineAndDegraded('{ max_drop: 0.01, significance: 0.05 }');
    expect(strict.now.gates.find((g) => g.op === 'max_drop')).toMatchObject({
      passed: false,
      significance: 0.05,
    });
  });
});
