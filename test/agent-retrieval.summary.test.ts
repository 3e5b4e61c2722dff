import { describe, expect, it } from 'vitest';
import { averageRanks, pearson, spearman } from '../src/metrics/spearman.js';
import { median, summarize } from '../src/metrics/summary-stats.js';
import { mean, summary, type TaskRecord } from '../src/suites/agent-retrieval/aggregate.js';
import { compareValues, matchTasks } from '../src/suites/agent-retrieval/compare.js';
import type { EventDocument } from '../src/suites/agent-retrieval/contract.js';
import { correlate } from '../src/suites/agent-retrieval/correlate.js';
import { EMPTY_OUTCOME, type Outcome } from '../src/suites/agent-retrieval/outcomes.js';
import { scoreTask } from '../src/suites/agent-retrieval/stages/task.js';

describe('summary statistics', () => {
  it('mean, sample standard deviation (n − 1), median, n', () => {
    // deviations from 0.5: 0.5, 0, −0.25, −0.25 → squares 0.375 / 3 = 0.125
    expect(summarize([1, 0.5, 0.25, 0.25])).toEqual({
      mean: 0.5,
      stdev: Math.sqrt(0.125),
      median: 0.375,
      n: 4,
    });
    expect(summarize([2, 9, 4])).toEqual({ mean: 5, stdev: Math.sqrt((9 + 16 + 1) / 2), median: 4, n: 3 });
    expect(summarize([0.7])).toEqual({ mean: 0.7, stdev: null, median: 0.7, n: 1 });
    expect(summarize([])).toBeUndefined();
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });
});

describe("Spearman's rho", () => {
  it('averages the ranks of ties', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([5, 5, 5])).toEqual([2, 2, 2]);
    expect(averageRanks([3, 1, 2])).toEqual([3, 1, 2]);
  });

  it('is Pearson on the ranks: exact with ties, where 1 − 6Σd²/(n(n²−1)) is not', () => {
    // x ranks 1..5; y = 5, 6, 7, 8, 7 ranks 1, 2, 3.5, 5, 3.5. Centred: dx = −2 −1 0 1 2,
    // dy = −2 −1 0.5 2 0.5; Σdx·dy = 8, Σdx² = 10, Σdy² = 9.5 → ρ = 8/√95 = 0.820783 (the shortcut gives 0.825).
    expect(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(8 / Math.sqrt(95), 12);
    expect(spearman([1, 2, 3, 4, 5], [50, 40, 30, 20, 10])).toBeCloseTo(-1, 12);
    expect(spearman([1, 2, 3, 4, 5], [1, 4, 9, 16, 25])).toBeCloseTo(1, 12); // monotone, not linear
    expect(spearman([1, 2, 3], [7, 7, 7])).toBeUndefined(); // a constant has no rank order
    expect(pearson([1, 2], [1])).toBeUndefined();
  });
});

function record(
  config: string,
  task: string,
  events: EventDocument['events'],
  truth: string[],
  outcome?: Partial<Outcome>,
  model = 'm',
): TaskRecord {
  const doc: EventDocument = {
    schema_version: '1.0',
    generated_at: '2026-03-01T00:00:00Z',
    provenance: { run_id: 'r', task_name: task, config_name: config, benchmark: 'b', model },
    coverage: {
      has_trajectory: true,
      has_transcript: true,
      has_ground_truth: truth.length > 0,
      trace_source: 'merged',
      degraded_reason: null,
    },
    ground_truth: { files: truth },
    events,
  };
  return {
    id: `${config}/${task}`,
    doc,
    score: scoreTask(doc, [10]),
    ...(outcome ? { outcome: { ...EMPTY_OUTCOME, ...outcome } } : {}),
  };
}
const read = (...files: string[]): EventDocument['events'] =>
  files.map((f, i) => ({
    step_index: i,
    timestamp: null,
    tool_name: 'Read',
    tool_category: 'file_read',
    is_mcp: false,
    target_files: [f],
  }));

describe('aggregates over tasks', () => {
  it('the mean leaves out tasks where a metric is not computable', () => {
    const records = [
      record('c', 't1', read('a', 'b'), ['a', 'c']), // recall 1/2, efficiency 1/2
      record('c', 't2', read('a'), ['a']), // recall 1, efficiency 1
      record('c', 't3', [], ['a']), // recall 0, efficiency not computable
      record('c', 't4', read('a'), []), // no ground truth
    ];
    expect(mean(records, 'file_recall')).toEqual({ value: 0.5 });
    expect(mean(records, 'context_efficiency')).toEqual({ value: 0.75 });
    expect(summary(records, 'file_recall')).toEqual({ mean: 0.5, stdev: 0.5, median: 0.5, n: 3 });
    expect(mean([records[3]!], 'mrr')).toEqual({
      value: null,
      reason: 'no task is computable (1 without ground truth, 0 without a usable trace)',
    });
    expect(mean([records[2]!], 'context_efficiency')).toEqual({
      value: null,
      reason: 'no file retrieved (in every task with ground truth and a trace)',
    });
  });
});

describe('matched comparison', () => {
  it('means, medians, deltas and win-loss-tie counts over pairs with values', () => {
    // (baseline, candidate): deltas 0.5, 0, −0.1, 0.5
    expect(
      compareValues(
        [
          [0.5, 1],
          [1, 1],
          [0.2, 0.1],
          [0, 0.5],
        ],
        'higher',
      ),
    ).toEqual({
      n: 4,
      baseline_mean: 0.425,
      candidate_mean: 0.65,
      baseline_median: 0.35,
      candidate_median: 0.75,
      delta_mean: expect.closeTo(0.225, 12) as number,
      delta_median: 0.25,
      wins: 2,
      losses: 1,
      ties: 1,
    });
    // for a lower-is-better metric a negative delta wins
    expect(
      compareValues(
        [
          [10, 5],
          [10, 20],
          [10, 10],
        ],
        'lower',
      ),
    ).toMatchObject({ wins: 1, losses: 1, ties: 1, delta_mean: expect.closeTo(5 / 3, 12) as number });
    expect(
      compareValues(
        [
          [1, 1],
          [1, null],
          [null, 1],
          [0, 1],
        ],
        'higher',
      ),
    ).toEqual({
      value: null,
      n: 2,
      reason: '2 matched tasks with a value (needs ≥ 3)',
    });
  });

  it('pairs a task only when the seed allows it', () => {
    const ok = { reward: 1 };
    const records = [
      record('base', 'same', read('a'), ['a'], ok),
      record('cand', 'same', read('a'), ['a'], ok),
      record('base', 'only-base', read('a'), ['a'], ok),
      record('cand', 'no-truth', read('a'), [], ok),
      record('base', 'no-truth', read('a'), [], ok),
      record('base', 'models', read('a'), ['a'], ok, 'm1'),
      record('cand', 'models', read('a'), ['a'], ok, 'm2'),
      record('base', 'harness', read('a'), ['a'], { reward: 1, harness: 'claude-code 2.1' }),
      record('cand', 'harness', read('a'), ['a'], { reward: 1, harness: 'claude-code 2.2' }),
      record('base', 'no-reward', read('a'), ['a'], ok),
      record('cand', 'no-reward', read('a'), ['a']),
    ];
    const m = matchTasks(records, 'base', 'cand');
    expect(m.pairs.map((p) => p.task)).toEqual(['same']);
    expect(m.excluded).toEqual([
      { task: 'harness', reason: 'different harness versions (claude-code 2.1, claude-code 2.2)' },
      { task: 'models', reason: 'different models (m1, m2)' },
      { task: 'no-reward', reason: 'no result.json reward in both configs' },
      {
        task: 'no-truth',
        reason: 'not scored in base: no ground truth (coverage.has_ground_truth is false)',
      },
      { task: 'only-base', reason: 'only in base' },
    ]);
  });
});

describe('correlation with outcomes', () => {
  const tasks = (rewards: number[], hits: boolean[]) =>
    rewards.map((reward, i) =>
      record('c', `t${i}`, read(hits[i] ? 'a' : 'x', 'b'), ['a', 'b'], { reward, tokens: 100 }),
    );

  it("is Spearman's rho over the tasks with both values, n ≥ 5", () => {
    // file recall 1 (hit) or 0.5 (miss): ranks with ties; rewards 0.1..0.5 rank 1..5
    const records = tasks([0.1, 0.2, 0.3, 0.4, 0.5], [false, false, true, false, true]);
    // recall ranks: misses 2, 2, 2 (three tied 0.5s), hits 4.5, 4.5 → centred −1 −1 1.5 −1 1.5;
    // reward centred −2 −1 0 1 2 → Σ = 2 + 1 + 0 − 1 + 3 = 5; Σdx² = 7.5, Σdy² = 10 → 5/√75
    expect(correlate(records, 'file_recall', 'reward')).toEqual({
      rho: expect.closeTo(5 / Math.sqrt(75), 12) as number,
      n: 5,
    });
    expect(correlate(records, 'file_recall', 'tokens')).toEqual({
      rho: null,
      n: 5,
      reason: 'no variation in tokens',
    });
    expect(correlate(records, 'file_recall', 'cost_usd')).toEqual({
      rho: null,
      n: 0,
      reason: '0 tasks with both values (needs ≥ 5)',
    });
    expect(correlate(records.slice(0, 4), 'file_recall', 'reward')).toMatchObject({ rho: null, n: 4 });
  });
});
