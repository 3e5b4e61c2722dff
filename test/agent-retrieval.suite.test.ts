import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNCONFINED } from '../src/io/confine.js';
import { run } from '../src/run.js';
import { normalizeRun } from '../src/suites/agent-retrieval/normalize/run.js';
import { FIXTURES, REPO, tmpTree } from './helpers/tmp.js';

const EXAMPLE = path.join(REPO, 'examples', 'agent-retrieval');
const EVENTS = `${EXAMPLE}/runs/staging/*/retrieval_events/**/*.retrieval_events.json`;
const OUTCOMES = `${EXAMPLE}/runs/staging/*/*/*/*/result.json`;
const CSB = path.join(FIXTURES, 'csb');

/** A gates.yaml with one agent-retrieval suite `ar` (extra lines indented under it). */
function gates(lines: string, files: Record<string, string> = {}): string {
  const dir = tmpTree({
    ...files,
    'gates.yaml': `version: 1\nsuites:\n  ar:\n    kind: agent-retrieval\n${lines}`,
  });
  return path.join(dir, 'gates.yaml');
}

async function error(config: string): Promise<string> {
  try {
    await run({ scope: UNCONFINED, config });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

describe('the repository example (gates.yaml, examples/agent-retrieval)', () => {
  it('passes its gates with the numbers derived by hand', async () => {
    const { report } = await run({
      scope: UNCONFINED,
      config: path.join(REPO, 'gates.yaml'),
      suites: ['agent-retrieval'],
    });
    const s = report.suites['agent-retrieval']!;
    expect(report.verdict).toBe('pass');
    expect(report.gates.map((g) => [g.metric, g.passed])).toEqual([
      ['file_recall', true],
      ['mrr', true],
      ['ndcg@10', true],
      ['delta.file_recall', true],
    ]);
    /*
     * 14 documents; 11 scored (kv-onboarding-001 has no ground truth in either config, mcp's
     * kv-compaction-debug-001 no trace). File recall per task — baseline: ttl ⅔ (store/ttl_test.go never
     * seen), race 1 (api/handlers.go via the subagent), api 1, compaction ½ (internal/wal/segment.go
     * missed), snapshot 1, docs 1; mcp: ttl 1, race ⅔ (store/store.go missed), api 1, snapshot 1, docs 1.
     * Sum 59/6 over 11 tasks = 59/66. MRR — baseline 1, 1, 1, ½ (wal.go first), ⅓ (snapshot.go third in
     * the Glob), ½ (README.md first); mcp 1 × 5: 28/3 over 11 = 28/33.
     */
    expect(s.metrics.file_recall!.value).toBeCloseTo(59 / 66, 12);
    expect(s.metrics.mrr!.value).toBeCloseTo(28 / 33, 12);
    /*
     * Matched: ttl, race, api, snapshot, docs (5). File recall deltas +⅓, −⅓, 0, 0, 0: mean 0, one win,
     * one loss, three ties. MRR deltas 0, 0, 0, +⅔, +½: mean 7/30. Rewards (baseline → mcp) 0.8 → 1,
     * 0.5 → 0.7, 1 → 1, 1 → 1, 0.4 → 0.5: mean delta 0.5/5 = 0.1.
     */
    expect(s.metrics['delta.file_recall']!.value).toBeCloseTo(0, 12);
    expect(s.metrics['delta.mrr']!.value).toBeCloseTo(7 / 30, 12);
    expect(s.metrics['delta.reward']!.value).toBeCloseTo(0.1, 12);
    expect(s.counts).toEqual({
      documents: 14,
      scored: 11,
      no_ground_truth: 2,
      no_trace: 1,
      chunk_level: 2,
      slice_small: 10,
      slice_medium: 1,
      slice_large: 0,
      slice_local: 6,
      slice_mcp: 5,
      matched_tasks: 5,
      file_recall_wins: 1,
      file_recall_losses: 1,
      file_recall_ties: 3,
    });
    expect(s.offenders.map((o) => [o.id, o.labels, o.missed])).toEqual([
      [
        'baseline-local-direct/kv-compaction-debug-001',
        ['missed_key_evidence', 'irrelevant_retrieval'],
        ['internal/wal/segment.go'],
      ],
      [
        'baseline-local-direct/kv-ttl-fix-001',
        ['missed_key_evidence', 'irrelevant_retrieval'],
        ['store/ttl_test.go'],
      ],
      [
        'mcp-remote-direct/kv-race-review-001',
        ['missed_key_evidence', 'irrelevant_retrieval'],
        ['store/store.go'],
      ],
    ]);
    expect(s.offenders[0]).toMatchObject({
      file_recall: 0.5,
      irrelevant: ['internal/wal/wal.go'],
      trace_source: 'transcript',
      source: {
        file: 'examples/agent-retrieval/runs/staging/fix_sonnet_20260301_090000/retrieval_events/baseline-local-direct/kv-compaction-debug-001.retrieval_events.json',
        line: 1,
      },
    });
    expect(s.warnings).toEqual([
      '2 of 14 tasks without ground truth, not scored: baseline-local-direct/kv-onboarding-001, mcp-remote-direct/kv-onboarding-001',
      '1 of 14 tasks without a usable trace (degraded: no events), not scored: mcp-remote-direct/kv-compaction-debug-001',
      'compare: 2 tasks not matched: kv-compaction-debug-001 (not scored in mcp-remote-direct: no usable trace: no agent/trajectory.json or agent/claude-code.txt), kv-onboarding-001 (not scored in baseline-local-direct: no ground truth (coverage.has_ground_truth is false))',
    ]);
  });

  it('has the documents groundgate normalize writes for its runs (README: the command)', async () => {
    const runDir = path.join(EXAMPLE, 'runs', 'staging', 'fix_sonnet_20260301_090000');
    const { tasks } = await normalizeRun(runDir, {
      tasksDir: path.join(EXAMPLE, 'tasks'),
      generatedAt: '2026-03-01T12:00:00Z',
    });
    expect(tasks).toHaveLength(14);
    for (const task of tasks) {
      expect(readFileSync(task.file, 'utf8')).toBe(`${JSON.stringify(task.doc, null, 2)}\n`);
    }
  });

  it('scopes the metrics to one config with config_name', async () => {
    const config = gates(`    events: ${EVENTS}\n    config_name: mcp-remote-direct\n    k: [10]\n`);
    const s = (await run({ scope: UNCONFINED, config })).report.suites.ar!;
    // mcp file recall 1, ⅔, 1, 1, 1 over its five scored tasks
    expect(s.metrics.file_recall!.value).toBeCloseTo(14 / 15, 12);
    expect(s.counts).toMatchObject({ documents: 14, in_config: 7, scored: 5 });
    // without outcomes nothing is paired: the seed needs a result.json reward in both configs
    expect(s.metrics['delta.file_recall']).toEqual({
      value: null,
      reason: 'no compare: configs named in gates.yaml',
    });
  });
});

describe('stage 5 artifacts', () => {
  it('are written only when the suite names a folder', async () => {
    const quiet = gates(`    events: ${EVENTS}\n`);
    await run({ scope: UNCONFINED, config: quiet });
    expect(readdirSync(path.dirname(quiet))).toEqual(['gates.yaml']);

    const config = gates(
      `    events: ${EVENTS}\n    outcomes: ${OUTCOMES}\n    artifacts: out\n    compare: { baseline: baseline-local-direct, candidate: mcp-remote-direct }\n`,
    );
    await run({ scope: UNCONFINED, config });
    const out = path.join(path.dirname(config), 'out');
    expect(readdirSync(out).sort()).toEqual([
      'baseline-local-direct',
      'mcp-remote-direct',
      'run_retrieval_summary.json',
    ]);
    expect(readdirSync(path.join(out, 'mcp-remote-direct')).sort()).toEqual([
      'kv-api-rename-001.retrieval_metrics.json',
      'kv-compaction-debug-001.retrieval_metrics.json',
      'kv-docs-001.retrieval_metrics.json',
      'kv-onboarding-001.retrieval_metrics.json',
      'kv-race-review-001.retrieval_metrics.json',
      'kv-snapshot-fix-001.retrieval_metrics.json',
      'kv-ttl-fix-001.retrieval_metrics.json',
    ]);

    const task = JSON.parse(
      readFileSync(path.join(out, 'mcp-remote-direct', 'kv-race-review-001.retrieval_metrics.json'), 'utf8'),
    );
    expect(task.file_level_metrics).toMatchObject({
      computable: true,
      values: {
        'P@1': 1,
        'recall@10': 2 / 3,
        mrr: 1,
        file_recall: 2 / 3,
        context_efficiency: 0.5,
        ttfr_seconds: null,
      },
      reasons: { ttfr_seconds: 'the trace has no timestamps' },
      n_retrieved: 4,
      n_ground_truth: 3,
      n_overlap: 2,
      retrieved: ['store/lock.go', 'api/handlers.go', 'store/snapshot.go', 'review.md'],
    });
    expect(task.chunk_level_metrics).toEqual({
      resolution: 'chunk_level',
      validity: 'file_match_only',
      chunks_total: 3,
      chunks_hit: 2,
      chunk_recall: 2 / 3,
    });
    expect(task.error_taxonomy.labels).toEqual({
      irrelevant_retrieval: 2,
      missed_key_evidence: 1,
      wrong_evidence_used: 1,
      unused_correct_retrieval: 2,
      ambiguity_near_miss: 1,
    });
    expect(task.outcome).toMatchObject({ reward: 0.7, cost_usd: 0.38 });

    const summary = JSON.parse(readFileSync(path.join(out, 'run_retrieval_summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      total_event_files: 14,
      computable_tasks: 11,
      skipped_no_ground_truth: 2,
      skipped_no_trace: 1,
      chunk_capable_tasks: 2,
      degraded_tasks: 1,
    });
    // baseline file recall ⅔, 1, 1, ½, 1, 1: mean 31/36, median 1, sample stdev √((2·(7/36)² + … )/5)
    const baseline = [2 / 3, 1, 1, 1 / 2, 1, 1];
    const m = 31 / 36;
    const sd = Math.sqrt(baseline.reduce((s, x) => s + (x - m) ** 2, 0) / 5);
    expect(summary.by_config['baseline-local-direct'].metrics.file_recall).toEqual({
      mean: expect.closeTo(m, 12),
      stdev: expect.closeTo(sd, 12),
      median: 1,
      n: 6,
    });
    expect(summary.pooled.metrics.file_recall).toMatchObject({
      mean: expect.closeTo(59 / 66, 12),
      median: 1,
      n: 11,
    });
    expect(summary.pooled.metrics.chunk_recall).toEqual({
      mean: expect.closeTo((1 + 2 / 3) / 2, 12),
      stdev: expect.closeTo(Math.sqrt(1 / 18), 12),
      median: expect.closeTo(5 / 6, 12),
      n: 2,
    });
    expect(summary.calibration_slices.evidence_type.mcp.tasks).toBe(5);
    expect(summary.comparison).toMatchObject({
      baseline: 'baseline-local-direct',
      candidate: 'mcp-remote-direct',
      matched_tasks: 5,
      tasks: [
        'kv-api-rename-001',
        'kv-docs-001',
        'kv-race-review-001',
        'kv-snapshot-fix-001',
        'kv-ttl-fix-001',
      ],
    });
    expect(summary.comparison.metrics.file_recall).toMatchObject({
      n: 5,
      wins: 1,
      losses: 1,
      ties: 3,
      baseline_median: 1,
    });
    expect(summary.correlations.method).toMatch(/association only/);
    expect(summary.correlations.by_config['baseline-local-direct'].file_recall.reward.n).toBe(6);
  });
});

describe('raw runs (runs: a run folder, normalized in memory)', () => {
  it('gives the numbers of the event documents, and writes nothing into the run', async () => {
    const dir = tmpTree({});
    const runDir = path.join(dir, 'fix_haiku_20260223_171232');
    cpSync(path.join(CSB, 'runs', 'staging', 'fix_haiku_20260223_171232'), runDir, { recursive: true });
    const config = gates(
      `    runs: ${runDir}\n    tasks: ${path.join(CSB, 'tasks')}\n    k: [1, 3]\n    gates:\n      file_recall: '>= 0.6'\n`,
    );
    const { report } = await run({ scope: UNCONFINED, config });
    const s = report.suites.ar!;
    expect(report.verdict).toBe('pass');
    expect([s.metrics['P@3']!.value, s.metrics.file_recall!.value, s.metrics.ttfr_seconds!.value]).toEqual([
      2 / 3,
      2 / 3,
      172.62,
    ]);
    expect(s.counts).toMatchObject({ documents: 2, scored: 1, no_trace: 1 });
    expect(s.offenders[0]).toMatchObject({
      id: 'baseline-local-direct/flipt-eval-latency-fix-001',
      trial: expect.stringContaining('flipt-eval-latency-fix-001__dSKQeTz'),
    });
    expect(existsSync(path.join(runDir, 'retrieval_events'))).toBe(false);
  });
});

describe('configuration and input errors', () => {
  it('suggests the key meant', async () => {
    expect(await error(gates(`    event: x.json\n`))).toMatch(
      /gates\.yaml:5:5: suite "ar": unknown key "event"; did you mean "events"\?/,
    );
  });

  it('needs exactly one of events and runs', async () => {
    expect(await error(gates(`    k: [10]\n`))).toMatch(/suite "ar": expected either events: .* or runs: /);
    expect(await error(gates(`    events: x.json\n    runs: r\n`))).toMatch(/expected either events/);
  });

  it('names unknown configs', async () => {
    expect(await error(gates(`    events: ${EVENTS}\n    config_name: mcp\n`))).toMatch(
      /suite "ar": config_name "mcp" is not a config of the documents; expected one of "baseline-local-direct", "mcp-remote-direct"$/,
    );
    expect(
      await error(
        gates(`    events: ${EVENTS}\n    compare: { baseline: base, candidate: mcp-remote-direct }\n`),
      ),
    ).toMatch(/compare\.baseline "base" is not a config/);
  });

  it('rejects the same task twice in one run and config', async () => {
    const doc = readFileSync(
      path.join(
        EXAMPLE,
        'runs/staging/fix_sonnet_20260301_090000/retrieval_events/mcp-remote-direct/kv-docs-001.retrieval_events.json',
      ),
      'utf8',
    );
    const config = gates(`    events: '*.json'\n`, { 'a.json': doc, 'b.json': doc });
    expect(await error(config)).toMatch(
      /b\.json: task "kv-docs-001" of config "mcp-remote-direct" in run "fix_sonnet_20260301_090000" is also in .*a\.json; expected one document per task, config and run$/,
    );
  });

  it('keeps normalize-only keys with runs:', async () => {
    expect(await error(gates(`    events: ${EVENTS}\n    tasks: t\n`))).toMatch(
      /tasks and registry belong with runs:/,
    );
  });

  it('a gate on a metric no task can compute fails with the reason', async () => {
    const real = gates(
      `    runs: ${path.join(CSB, 'runs', 'staging', 'fix_haiku_20260223_171232')}\n    gates:\n      chunk_recall: '>= 0.5'\n`,
    );
    const { report } = await run({ scope: UNCONFINED, config: real });
    expect(report.gates[0]).toMatchObject({
      metric: 'chunk_recall',
      passed: false,
      value: null,
      reason: 'not computable: no task is computable (2 without ground truth, 0 without a usable trace)',
    });
  });
});
