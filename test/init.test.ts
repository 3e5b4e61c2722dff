import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bootstrap, calibrate, round, zFor } from '../src/init/calibrate.js';
import { HEADLINE } from '../src/init/plan.js';
import { PINNED } from '../src/init/render.js';
import { resolveMetric } from '../src/metrics/spec.js';
import { SUITE_KINDS } from '../src/suites/registry.js';
import { normalQuantile } from '../src/metrics/normal-quantile.js';
import { wilson, Z95 } from '../src/metrics/wilson.js';
import { ACTION_REPOSITORY } from '../src/version.js';
import { gatesOf, listing, qaRepo, REGRESSED } from './helpers/init.js';
import { runCli } from './helpers/process.js';
import { FIXTURES, REPO, tmpTree } from './helpers/tmp.js';

describe('groundgate init (dist/cli as a process)', () => {
  it('writes a gates.yaml that check accepts and passes, that fails the regressed traces, at the Wilson bounds', () => {
    const dir = qaRepo();
    const r = runCli(['init'], dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('qa (grounded-qa): gold/qa.gold.jsonl + runs/qa.trace.jsonl');
    expect(r.stdout).toContain(
      'wrote gates.yaml, .github/workflows/groundgate.yml: 13 gates, calibrated at 95%',
    );

    const config = gatesOf(dir);
    expect(config.suites.qa).toMatchObject({
      kind: 'grounded-qa',
      gold: 'gold/qa.gold.jsonl',
      traces: 'runs/qa.trace.jsonl',
    });
    // The example's counts (report.json of the same data): precision 30/33, chr 32/33, under 0/12, over 2/35,
    // recall@5 32/35, coverage 47/47. Wilson 95% bounds, hand-computed, to 4 decimals away from failing:
    // 30/33: centre (30/33 + z²/66)/(1 + z²/33) = 0.86643, half-width 0.10216 → 0.76427 → 0.7642.
    // Each proportion with a population gets a paired gate: N = max(1, floor(0.02 × n)) = 1 for n ≤ 99.
    expect(config.suites.qa!.gates).toEqual({
      precision: { min: 0.7642, max_drop: 0.02, max_new_failures: 1 },
      chr: { min: 0.8468, max_new_failures: 1 },
      under_refusal: { max: 0.2425, max_new_failures: 1 },
      over_refusal: { max: 0.1861, max_new_failures: 1 },
      // recall@k has no paired gate: an item passes with its retrieval missed.
      'recall@5': { min: 0.7762, max_drop: 0.02 },
      scu_violations: '<= 0',
      coverage: '>= 0.9244',
    });
    // The same from the formula, so a change to either shows.
    expect(round(wilson(30, 33)[0], true)).toBe(0.7642);
    expect(round(wilson(2, 35)[1], false)).toBe(0.1861);
    expect(round(wilson(47, 47)[0], true)).toBe(0.9244);
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(
      '      # chr: 33 items: a level gate cannot catch less than −0.15 (it fails from 27/33, past its bound 0.8468); the paired gate catches 2 new failures among its 47 items\n' +
        '      chr: { min: 0.8468, max_new_failures: 1 } # measured 0.9697 (32/33); Wilson 95% lower bound; max_new_failures: max(1, floor(0.02 × 47 items)) = 1: one new failure is run-to-run noise unless the set is large\n',
    );

    const ok = runCli(['check'], dir);
    expect(ok.status).toBe(0);
    // The two max_drop gates and the four paired gates compare with the baseline init committed: none skipped.
    expect(ok.stdout).toContain('PASS — 13 of 13 gates passed');
    expect(ok.stdout).toContain('Compared with the committed baseline .groundgate/baseline.jsonl, made ');
    const bad = runCli(['check', '--input', `qa.traces=${REGRESSED}`, '--allow-outside-workspace'], dir);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/✗ qa\.precision = 0\.5000, wanted >= 0\.7642/);
  });

  it('writes the workflows with pinned actions and least permissions, and --release freezes the gold', () => {
    const dir = qaRepo();
    const r = runCli(['init', '--fork-comments', '--release', '--branch', 'trunk'], dir);
    expect(r.status).toBe(0);
    // package.json names no repository (ACTION_REPOSITORY): the workflows run the copy npm ci installed.
    expect(ACTION_REPOSITORY).toBeUndefined();
    expect(r.stdout).toContain(
      'note: package.json of groundgate names no repository: the workflow runs the copy installed by npm ci (uses: ./node_modules/groundgate)\n',
    );
    const check = parse(readFileSync(path.join(dir, '.github/workflows/groundgate.yml'), 'utf8'));
    const comment = parse(readFileSync(path.join(dir, '.github/workflows/groundgate-comment.yml'), 'utf8'));
    const uses = (w: { jobs: Record<string, { steps: { uses?: string }[] }> }) =>
      Object.values(w.jobs).flatMap((j) => j.steps.flatMap((s) => (s.uses ? [s.uses] : [])));
    const [checkout, setupNode, upload] = [PINNED.checkout, PINNED.setupNode, PINNED.uploadArtifact].map(
      (p) => p.split(' ')[0],
    );
    expect(uses(check)).toEqual([checkout, setupNode, './node_modules/groundgate', upload]);
    expect(uses(comment)).toEqual([checkout, setupNode, './node_modules/groundgate']);
    for (const u of [...uses(check), ...uses(comment)].filter((x) => x.startsWith('actions/')))
      expect(u).toMatch(/@[0-9a-f]{40}$/);
    expect(check.permissions).toEqual({ contents: 'read', actions: 'read', 'pull-requests': 'write' });
    expect(comment.permissions).toEqual({ actions: 'read', contents: 'read', 'pull-requests': 'write' });
    expect(check.on).toEqual({ pull_request: null, push: { branches: ['trunk'] } });
    const steps = check.jobs.gate.steps;
    expect(steps[2].run).toBe('npm ci');
    expect(steps[3].with).toEqual({
      config: 'gates.yaml',
      baseline: 'auto',
      history: 'auto',
      release: true,
    });
    // The comment job runs with a writable token: it checks out the default branch (never the fork's head),
    // keeps no credentials in .git and runs no package's scripts.
    const job = comment.jobs.comment.steps;
    expect(job[0].with).toEqual({
      ref: '${{ github.event.repository.default_branch }}',
      'persist-credentials': false,
    });
    expect(job[2].run).toBe('npm ci --ignore-scripts');
    expect(job[3].with).toMatchObject({ mode: 'comment' });
    // The lock is written, and check --release accepts the gold set it locks.
    expect(existsSync(path.join(dir, 'gold/qa.gold.lock.json'))).toBe(true);
    expect(runCli(['check', '--release'], dir).status).toBe(0);
  });

  it('--dry-run prints and writes nothing; an existing file is kept unless --force', () => {
    const dir = qaRepo();
    const before = listing(dir);
    const dry = runCli(['init', '--dry-run'], dir);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('--- gates.yaml (dry run: not written)');
    expect(dry.stdout).toContain('--- .github/workflows/groundgate.yml (dry run: not written)');
    expect(listing(dir)).toEqual(before);

    writeFileSync(path.join(dir, 'gates.yaml'), '# mine\n');
    const kept = runCli(['init'], dir);
    expect(kept.status).toBe(2);
    expect(kept.stdout).toBe('');
    expect(kept.stderr).toMatch(
      /^groundgate: gates\.yaml already exists; --force overwrites, --dry-run shows what would be written/,
    );
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toBe('# mine\n');
    expect(existsSync(path.join(dir, '.github'))).toBe(false);
    expect(runCli(['init', '--force'], dir).status).toBe(0);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toMatch(
      /^# groundgate gates, written by groundgate init/,
    );
  });

  it('is deterministic: the same data gives the same files, bootstrap bounds included', () => {
    const repo = () => {
      const dir = qaRepo();
      for (const f of ['ferrymark.qrels', 'bm25.run'])
        cpSync(path.join(REPO, 'examples/ranking', f), path.join(dir, f));
      return dir;
    };
    const [a, b] = [repo(), repo()];
    for (const dir of [a, b])
      expect(runCli(['init'], dir, { SOURCE_DATE_EPOCH: '1767225600' }).status).toBe(0);
    expect(readFileSync(path.join(a, 'gates.yaml'), 'utf8')).toContain('bootstrap 95% lower bound');
    for (const file of ['gates.yaml', '.github/workflows/groundgate.yml'])
      expect(readFileSync(path.join(a, file), 'utf8')).toBe(readFileSync(path.join(b, file), 'utf8'));
  });

  it('ranking: bootstrap bounds of the means, below today, and check passes', () => {
    const dir = tmpTree({});
    for (const f of ['ferrymark.qrels', 'bm25.run'])
      cpSync(path.join(REPO, 'examples/ranking', f), path.join(dir, f));
    const r = runCli(['init', '--no-workflow'], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('retrieval (ranking): ferrymark.qrels + bm25.run');
    const gates = gatesOf(dir).suites.retrieval!.gates as Record<string, unknown>;
    expect(Object.keys(gates)).toEqual(['ndcg@10', 'recall@10', 'mrr']);
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    // trec_eval's values for this run (test/ranking.suite.test.ts): ndcg_cut_10 0.9181, recip_rank 0.8969.
    expect(text).toMatch(
      /ndcg@10: \{ min: 0\.8\d{1,3}, max_drop: 0\.02 \} # measured 0\.9181 \(n 35\); bootstrap 95% lower bound, 2000 resamples/,
    );
    expect(text).toMatch(/mrr: '>= 0\.\d{1,4}' # measured 0\.8969 \(n 35\); bootstrap 95% lower bound/);
    expect(runCli(['check'], dir).status).toBe(0);
  });

  it('the shared fixtures: ContextBench mini-eval, without repos (file metrics by Wilson; what cannot be gated, said)', () => {
    const dir = tmpTree({});
    for (const f of ['gold.jsonl', 'pred.jsonl'])
      cpSync(path.join(FIXTURES, 'contextbench/mini-eval', f), path.join(dir, f));
    const r = runCli(['init', '--no-workflow'], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('context (context): gold.jsonl + pred.jsonl');
    // Files are the items: 5 of the 6 gold files found, 5 of the 8 predicted ones gold (test/context.mini-eval).
    expect(gatesOf(dir).suites.context!.gates).toEqual({
      'file.coverage': `>= ${round(wilson(5, 6)[0], true)}`,
      'file.precision': `>= ${round(wilson(5, 8)[0], true)}`,
    });
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      '# not gated: span.coverage: not computable today',
    );
    expect(runCli(['check'], dir).status).toBe(0);
  });

  it('the shared fixtures: the WFGY worked example', () => {
    const dir = tmpTree({});
    for (const f of ['gold.jsonl', 'trace.jsonl']) cpSync(path.join(FIXTURES, 'wfgy', f), path.join(dir, f));
    const r = runCli(['init', '--no-workflow'], dir);
    expect(r.status).toBe(0);
    // Three items. The gold locks a constraint, so init turns SCU on, and one answer contradicts it:
    // precision 1/2 (the project's own scorer, which has no SCU, prints 1.0 for 2/2). The interval is wide.
    const gates = gatesOf(dir).suites.qa!.gates;
    // Its Wilson lower bound, 0.0945, is 0.41 under the value, on 2 items: no level gate, a paired one.
    expect(round(wilson(1, 2)[0], true)).toBe(0.0945);
    expect(gates.precision).toEqual({ max_drop: 0.02, max_new_failures: 1 });
    expect(gates.scu_violations).toBe('<= 1');
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      '      # precision: 2 items: a level gate cannot catch less than −0.50 (it fails from 0/2, past its bound 0.0945), too little to catch a regression: no level gate; one needs about',
    );
    expect(runCli(['check'], dir).status).toBe(0);
  });

  it('no inputs: exit 2 naming what it looked for; several ways to read them: exit 2 with the flags to pick', () => {
    const empty = tmpTree({ 'README.md': '# nothing here\n', 'notes.json': '{"a": 1}\n' });
    const none = runCli(['init'], empty);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(
      /^groundgate: .*: no inputs found to calibrate gates from \(looked at 1 files: .*; for grounded-answer gold set, repeated runs \(seeds, prompt jitters\), Scholar\/Auditor verdict pairs, grounded-answer traces, .*retrieval-event documents\); notes\.json: traces\? no "qid", "retrieved_ids", "answer_json\.claim", "answer_json\.citations": its records have a; name them with --suite KIND --gold FILE --traces FILE\n$/,
    );

    const dir = qaRepo();
    cpSync(REGRESSED, path.join(dir, 'runs/qa-regressed.trace.jsonl'));
    const two = runCli(['init'], dir);
    expect(two.status).toBe(2);
    expect(two.stderr).toContain(
      'gold/qa.gold.jsonl is answered by 2 traces files (runs/qa-regressed.trace.jsonl, runs/qa.trace.jsonl): pick one with --suite grounded-qa --gold gold/qa.gold.jsonl --traces runs/qa-regressed.trace.jsonl',
    );
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
    const picked = runCli(
      ['init', '--suite', 'grounded-qa', '--gold', 'gold/qa.gold.jsonl', '--traces', 'runs/qa.trace.jsonl'],
      dir,
    );
    expect(picked.status).toBe(0);
    expect(runCli(['check'], dir).status).toBe(0);
  });

  it('unreadable data is the loaders’ one-line error', () => {
    const dir = qaRepo();
    writeFileSync(path.join(dir, 'runs/bad.jsonl'), '{"qid": "FM001", "retrieved_ids": "x"}\n');
    const r = runCli(
      ['init', '--suite', 'grounded-qa', '--gold', 'gold/qa.gold.jsonl', '--traces', 'runs/bad.jsonl'],
      dir,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^groundgate: runs\/bad\.jsonl:1: /);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });
});

describe('calibration', () => {
  it('every suite kind has headline metrics, each a metric of its kind', () => {
    for (const kind of SUITE_KINDS) {
      const headline = HEADLINE[kind.kind];
      expect(headline, kind.kind).toBeDefined();
      for (const m of [...headline!.gates, ...headline!.maxDrop, ...(headline!.maxIncrease ?? [])])
        expect(resolveMetric(m.replace('{k}', '5'), kind.metrics), `${kind.kind}: ${m}`).toBeDefined();
    }
  });

  it('z of a confidence level', () => {
    expect(zFor(0.95)).toBeCloseTo(Z95, 8);
    expect(normalQuantile(0.995)).toBeCloseTo(2.5758293035489, 8);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 8);
  });

  it('rounds away from failing today, and keeps clean values', () => {
    expect(round(0.76427, true)).toBe(0.7642);
    expect(round(0.18601, false)).toBe(0.1861);
    expect(round(0.75, true)).toBe(0.75);
    expect(round(0.1 + 0.2, false)).toBe(0.3);
  });

  it('a count keeps its value; a metric with neither counts nor resampler gets no gate', () => {
    const count = { name: 'scu_violations', direction: 'lower', unit: 'count', description: '' } as const;
    expect(calibrate('scu_violations', { value: 2 }, count, 0.95)).toEqual({
      metric: 'scu_violations',
      op: '<=',
      threshold: 2,
      note: "measured 2; a count: today's value, no slack",
    });
    const kappa = { name: 'kappa', direction: 'higher', unit: 'ratio', description: '' } as const;
    expect(calibrate('kappa', { value: 0.81234 }, kappa, 0.95)).toEqual({
      skipped: 'kappa: measured 0.8123, and it has no interval to calibrate from; add a gate by hand',
    });
    expect(calibrate('kappa', { value: null, reason: 'no pairs' }, kappa, 0.95)).toEqual({
      skipped: 'kappa: not computable today (no pairs)',
    });
  });

  it('no gate where the data cannot set one: a bootstrap with no spread, a bound at the end of the scale', () => {
    const ratio = { name: 'line.f1', direction: 'higher', unit: 'ratio', description: '' } as const;
    const same = { items: 4, metric: () => 1 };
    expect(calibrate('editloc.precision', { value: 1 }, ratio, 0.95, same)).toEqual({
      skipped:
        'editloc.precision: measured 1 (n 4), and every resample gives the same value: no spread to set a gate from',
    });
    const wide = { items: 4, metric: (_: string, pick: Uint32Array) => (pick.includes(0) ? 0 : 0.4) };
    expect(calibrate('line.f1', { value: 0.3 }, ratio, 0.95, wide)).toEqual({
      skipped: 'line.f1: measured 0.3000 (n 4), and its bound is 0: too few items for a gate',
    });
    expect(calibrate('precision', { value: 0, numerator: 0, denominator: 3 }, ratio, 0.95)).toEqual({
      skipped: 'precision: measured 0 (0/3), and its bound is 0: too few items for a gate',
    });
  });

  it('the bootstrap of a mean is reproducible and brackets it', () => {
    const values = Array.from({ length: 50 }, (_, i) => (i % 7) / 6);
    const resampler = {
      items: values.length,
      metric: (_: string, pick: Uint32Array) =>
        Array.from(pick, (i) => values[i]!).reduce((a, b) => a + b, 0) / pick.length,
    };
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const [lo, hi] = bootstrap('m', resampler, 0.95)!;
    expect(bootstrap('m', resampler, 0.95)).toEqual([lo, hi]);
    expect(lo).toBeLessThan(mean);
    expect(hi).toBeGreaterThan(mean);
    // Close to the normal interval of a mean: ± 1.96 · sd / √n.
    const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
    const normal = (Z95 * sd) / Math.sqrt(values.length);
    expect(Math.abs(mean - lo - normal) / normal).toBeLessThan(0.15);
    expect(Math.abs(hi - mean - normal) / normal).toBeLessThan(0.15);
  });
});
