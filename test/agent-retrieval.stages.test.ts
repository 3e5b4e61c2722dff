import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventDocument, RetrievalEvent } from '../src/suites/agent-retrieval/contract.js';
import { candidateSetSize } from '../src/suites/agent-retrieval/stages/taxonomy.js';
import { scoreTask } from '../src/suites/agent-retrieval/stages/task.js';
import { FIXTURES } from './helpers/tmp.js';

type Ev = Partial<RetrievalEvent> & Pick<RetrievalEvent, 'tool_name' | 'tool_category' | 'target_files'>;

function doc(
  events: Ev[],
  groundTruth: Partial<EventDocument['ground_truth']>,
  coverage: Partial<EventDocument['coverage']> = {},
): EventDocument {
  return {
    schema_version: '1.0',
    generated_at: '2026-03-01T00:00:00Z',
    provenance: { run_id: 'r', task_name: 't', config_name: 'c', benchmark: 'b' },
    coverage: {
      has_trajectory: true,
      has_transcript: false,
      has_ground_truth: (groundTruth.files ?? []).length > 0,
      has_chunk_ground_truth: (groundTruth.chunks ?? []).length > 0,
      trace_source: 'trajectory',
      degraded_reason: null,
      ...coverage,
    },
    ground_truth: { files: [], ...groundTruth },
    events: events.map((e, i) => ({ step_index: i, timestamp: null, is_mcp: false, ...e })),
  };
}

/*
 * Task A. Ground truth: src/a.go, src/b.go, lib/c.go, d.go (|GT| = 4); edit targets src/A.go, lib/c.go.
 *   0 Glob  → src/x.go, src/a.go       (3.5 s, 1000 tokens)
 *   1 Read  src/a.go
 *   2 Grep  → src/b.go, pkg/y.go
 *   3 Read  z.go
 *   4 Edit  src/a.go
 *   5 Write lib/w.go
 *   6 Edit  src/b.go
 * Retrieved, first occurrence kept: x, a, b, y, z, w (6); relevant at ranks 2 and 3.
 */
const A_EVENTS: Ev[] = [
  {
    tool_name: 'Glob',
    tool_category: 'file_search',
    target_files: ['src/x.go', 'src/a.go'],
    elapsed_seconds: 3.5,
    cumulative_tokens: 1000,
  },
  {
    tool_name: 'Read',
    tool_category: 'file_read',
    target_files: ['/workspace/src/a.go'],
    elapsed_seconds: 5,
    cumulative_tokens: 2000,
  },
  { tool_name: 'Grep', tool_category: 'code_search', target_files: ['src/b.go', 'pkg/y.go'] },
  { tool_name: 'Read', tool_category: 'file_read', target_files: ['z.go'] },
  { tool_name: 'Edit', tool_category: 'file_write', target_files: ['src/a.go'] },
  { tool_name: 'Write', tool_category: 'file_write', target_files: ['lib/w.go'] },
  { tool_name: 'Edit', tool_category: 'file_write', target_files: ['SRC/B.go'] },
];
const A_TRUTH = {
  files: ['src/a.go', 'src/b.go', 'lib/c.go', 'd.go'],
  expected_edit_files: ['src/A.go', 'lib/c.go'],
  chunks: [
    { file: 'src/a.go', line_start: 1, line_end: 5 },
    { file: 'lib/c.go', line_start: 2, line_end: 3 },
    { file: 'src/b.go', line_start: 10, line_end: 12 },
  ],
};
const L3 = 1 / Math.log2(3);
const L5 = 1 / Math.log2(5);

describe('stage 1: file-level IR metrics, by hand', () => {
  it('task A', () => {
    const { metrics: m, fileLevel } = scoreTask(doc(A_EVENTS, A_TRUTH), [1, 3, 5, 10]);
    expect(fileLevel.retrieved).toEqual(['src/x.go', 'src/a.go', 'src/b.go', 'pkg/y.go', 'z.go', 'lib/w.go']);
    const v = (name: string) => m[name]!.value!;
    // P@k = hits / k: 0/1, 2/3, 2/5, 2/10
    expect([v('P@1'), v('P@3'), v('P@5'), v('P@10')]).toEqual([0, 2 / 3, 2 / 5, 2 / 10]);
    // recall@k = hits / 4
    expect([v('recall@1'), v('recall@3'), v('recall@5'), v('recall@10')]).toEqual([0, 0.5, 0.5, 0.5]);
    // F1: 0; 2·⅔·½/(⅔+½) = 4/7; 2·0.4·0.5/0.9 = 4/9; 2·0.2·0.5/0.7 = 2/7
    expect(v('f1@1')).toBe(0);
    expect(v('f1@3')).toBeCloseTo(4 / 7, 12);
    expect(v('f1@5')).toBeCloseTo(4 / 9, 12);
    expect(v('f1@10')).toBeCloseTo(2 / 7, 12);
    // DCG = 1/log2 3 + 1/log2 4; ideal over min(k, 4) ranks
    expect(v('ndcg@1')).toBe(0);
    expect(v('ndcg@3')).toBeCloseTo((L3 + 0.5) / (1 + L3 + 0.5), 12);
    expect(v('ndcg@5')).toBeCloseTo((L3 + 0.5) / (1 + L3 + 0.5 + L5), 12);
    expect(v('ndcg@10')).toBeCloseTo(v('ndcg@5'), 12);
    expect(v('mrr')).toBe(1 / 2);
    expect(v('map')).toBeCloseTo((1 / 2 + 2 / 3) / 4, 12); // 7/24: divided by |GT|, not by hits
    expect(m.file_recall).toEqual({ value: 0.5, numerator: 2, denominator: 4 });
    expect(m.context_efficiency).toEqual({ value: 2 / 6, numerator: 2, denominator: 6 });
    // the Glob at step 0 already returns src/a.go
    expect([v('ttfr_seconds'), v('ttfr_tokens')]).toEqual([3.5, 1000]);
  });

  it('a task that retrieved nothing: zeros where the definition gives 0, not computable where it divides by nothing', () => {
    const m = scoreTask(
      doc([{ tool_name: 'Bash', tool_category: 'other', target_files: [] }], { files: ['a.go'] }),
      [5],
    ).metrics;
    expect([
      m['P@5']!.value,
      m['recall@5']!.value,
      m['ndcg@5']!.value,
      m.mrr!.value,
      m.map!.value,
      m.file_recall!.value,
    ]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(m.context_efficiency).toEqual({ value: null, reason: 'no file retrieved' });
    expect(m.ttfr_seconds).toEqual({ value: null, reason: 'no ground-truth file retrieved' });
  });

  it('matches the k8s task verifier’s own IR numbers (precision 0.8, recall 0.5, F1 0.6154, root-cause MRR 1)', () => {
    const verifier = JSON.parse(
      readFileSync(
        path.join(FIXTURES, 'csb', 'k8s-dra-scheduler-event-fix-001_mcp_verifier', 'ir_metrics.json'),
        'utf8',
      ),
    ) as {
      files_examined: string[];
      files_relevant: string[];
      precision: number;
      recall: number;
      f1: number;
      root_cause_mrr: number;
    };
    const d = doc(
      verifier.files_examined.map((f) => ({
        tool_name: 'Read',
        tool_category: 'file_read' as const,
        target_files: [f],
      })),
      { files: verifier.files_relevant },
    );
    const m = scoreTask(d, [10]).metrics;
    const efficiency = m.context_efficiency!.value!;
    const recall = m.file_recall!.value!;
    expect(efficiency).toBe(verifier.precision);
    expect(recall).toBe(verifier.recall);
    expect(((2 * efficiency * recall) / (efficiency + recall)).toFixed(4)).toBe(verifier.f1.toFixed(4));
    expect(m.mrr!.value).toBe(verifier.root_cause_mrr);
  });
});

describe('not computable, never zero', () => {
  it('no ground truth: every stage says why', () => {
    const s = scoreTask(doc(A_EVENTS, { files: [] }), [10]);
    const reason = 'no ground truth (coverage.has_ground_truth is false)';
    expect(s.fileLevel.reason).toBe(reason);
    for (const name of [
      'P@10',
      'mrr',
      'map',
      'file_recall',
      'ttfr_seconds',
      'irrelevant_retrieval',
      'util_read_overlap_with_relevant_files',
    ]) {
      expect([name, s.metrics[name]]).toEqual([
        name,
        { value: null, reason: name.startsWith('util') ? 'no ground truth' : reason },
      ]);
    }
    expect(s.taxonomy).toBeUndefined();
    expect(s.utilization.probe_available).toBe(false);
    expect(scoreTask(doc(A_EVENTS, { files: [] }, { has_ground_truth: true }), [10]).fileLevel.reason).toBe(
      'no ground truth (ground_truth.files is empty)',
    );
  });

  it('no usable trace (degraded): not scored, even with ground truth', () => {
    const s = scoreTask(
      doc([], A_TRUTH, {
        trace_source: null,
        degraded_reason: 'no agent/trajectory.json or agent/claude-code.txt',
      }),
      [10],
    );
    expect(s.fileLevel).toMatchObject({
      missing: 'trace',
      reason: 'no usable trace: no agent/trajectory.json or agent/claude-code.txt',
    });
    expect(s.metrics.file_recall!.value).toBeNull();
    expect(s.taxonomy).toBeUndefined();
  });
});

describe('stage 2: chunk recall at file-match granularity', () => {
  it('counts chunks whose file was accessed', () => {
    // chunks in src/a.go (retrieved), lib/c.go (not), src/b.go (retrieved): 2/3
    expect(scoreTask(doc(A_EVENTS, A_TRUTH), [10]).chunkLevel).toEqual({
      resolution: 'chunk_level',
      validity: 'file_match_only',
      chunks_total: 3,
      chunks_hit: 2,
      chunk_recall: { value: 2 / 3, numerator: 2, denominator: 3 },
    });
    const fileOnly = { files: A_TRUTH.files, expected_edit_files: A_TRUTH.expected_edit_files };
    expect(scoreTask(doc(A_EVENTS, fileOnly), [10]).chunkLevel).toEqual({
      resolution: 'file_level_only',
      validity: 'unsupported',
      chunks_total: 0,
      chunks_hit: 0,
      chunk_recall: { value: null, reason: 'no chunk-level ground truth (resolution: file_level_only)' },
    });
  });
});

describe('stage 3: utilization probes', () => {
  it('task A', () => {
    const u = scoreTask(doc(A_EVENTS, A_TRUTH), [10]).utilization;
    expect(u).toEqual({
      probe_available: true,
      expected_edit_probe_available: true,
      files_read: 2, // src/a.go, z.go (file_read events only)
      files_read_relevant: 1,
      files_written: 3, // src/a.go, lib/w.go, src/b.go
      files_written_relevant: 2,
      files_written_expected_edit: 1, // src/a.go of src/a.go, lib/c.go
      metrics: {
        util_read_overlap_with_relevant_files: { value: 1 / 4, numerator: 1, denominator: 4 },
        util_write_overlap_with_relevant_files_proxy: { value: 2 / 4, numerator: 2, denominator: 4 },
        util_write_overlap_with_expected_edit_files: { value: 1 / 2, numerator: 1, denominator: 2 },
        // src/a.go first searched at 0 < written at 4; src/b.go searched at 2 < 6; lib/w.go never read
        util_read_before_write_ratio: { value: 2 / 3, numerator: 2, denominator: 3 },
      },
    });
  });

  it('write probes need writes; the expected-edit probe needs expected edit files', () => {
    const readOnly = A_EVENTS.filter((e) => e.tool_category !== 'file_write');
    const u = scoreTask(doc(readOnly, { files: A_TRUTH.files }), [10]).utilization;
    expect(u.metrics.util_read_overlap_with_relevant_files.value).toBe(1 / 4);
    expect(u.metrics.util_write_overlap_with_relevant_files_proxy).toEqual({
      value: null,
      reason: 'no file writes',
    });
    expect(u.metrics.util_read_before_write_ratio).toEqual({ value: null, reason: 'no file writes' });
    expect(u.expected_edit_probe_available).toBe(false);
    expect(u.metrics.util_write_overlap_with_expected_edit_files).toEqual({
      value: null,
      reason: 'no expected_edit_files (not inferable from high-confidence task metadata)',
    });
  });
});

describe('stage 4: error taxonomy and calibration slices', () => {
  it('task A', () => {
    const s = scoreTask(doc(A_EVENTS, A_TRUTH), [10]);
    expect(s.taxonomy).toEqual({
      files: {
        irrelevant_retrieval: ['lib/w.go', 'pkg/y.go', 'src/x.go', 'z.go'],
        missed_key_evidence: ['d.go', 'lib/c.go'],
        wrong_evidence_used: ['lib/w.go'],
        unused_correct_retrieval: [], // both retrieved ground-truth files were written
        // irrelevant files in a ground-truth folder (src/, lib/); z.go is at the root, near nothing
        ambiguity_near_miss: ['lib/w.go', 'src/x.go'],
      },
      candidate_set_size: 'medium',
      candidate_set_count: 6,
      evidence_type: 'local',
    });
    expect(
      [
        'irrelevant_retrieval',
        'missed_key_evidence',
        'wrong_evidence_used',
        'unused_correct_retrieval',
        'ambiguity_near_miss',
      ].map((l) => s.metrics[l]!.value),
    ).toEqual([4, 2, 1, 0, 2]);
  });

  it('slices: ≤ 5 small, 6–20 medium, more large; any MCP call makes it mcp', () => {
    expect([0, 5, 6, 20, 21].map(candidateSetSize)).toEqual(['small', 'small', 'medium', 'medium', 'large']);
    const mcp = scoreTask(
      doc(
        [
          {
            tool_name: 'mcp__sourcegraph__sg_read_file',
            tool_category: 'file_read',
            is_mcp: true,
            target_files: ['a.go'],
          },
        ],
        { files: ['a.go'] },
      ),
      [10],
    );
    expect(mcp.taxonomy).toMatchObject({
      candidate_set_size: 'small',
      evidence_type: 'mcp',
      files: { unused_correct_retrieval: ['a.go'] },
    });
  });
});
