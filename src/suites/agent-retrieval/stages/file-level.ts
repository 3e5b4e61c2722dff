import { averagePrecision, judge, ndcg, precisionAt, recallAt, reciprocalRank } from '../../../metrics/ir.js';
import { notComputable, type MetricValue } from '../../../metrics/spec.js';
import type { EventDocument, RetrievalEvent } from '../contract.js';
import { taskMetrics } from '../metrics.js';
import { normalizePath } from '../paths.js';

/** Stage 1: file-level IR metrics of one task. */
export interface FileLevel {
  /** Why the task is not computable (no ground truth, or no usable trace); undefined when it is. */
  reason?: string;
  missing?: 'ground_truth' | 'trace';
  /** Every event's target files in event order, first occurrence kept. */
  retrieved: string[];
  /** The ground-truth files, normalized, once each. */
  relevant: string[];
  metrics: Record<string, MetricValue>;
  /** The step of the first event that reaches a ground-truth file. */
  firstHitStep: number | null;
}

function retrievedFiles(events: readonly RetrievalEvent[]): string[] {
  const seen = new Set<string>();
  for (const e of events) {
    for (const f of e.target_files) {
      const p = normalizePath(f);
      if (p !== '') seen.add(p);
    }
  }
  return [...seen];
}

/** The normalized ground truth, or why the task has none: the coverage flag decides, as the seed requires. */
function relevantFiles(doc: EventDocument): { files: string[] } | { reason: string } {
  if (!doc.coverage.has_ground_truth)
    return { reason: 'no ground truth (coverage.has_ground_truth is false)' };
  const files = [...new Set(doc.ground_truth.files.map(normalizePath).filter((p) => p !== ''))];
  return files.length > 0 ? { files } : { reason: 'no ground truth (ground_truth.files is empty)' };
}

const value = (v: number): MetricValue => ({ value: v });

/**
 * Computable when the task has ground truth and a trace (`trace_source` not null).
 * P@k (÷ k), recall@k, F1@k, nDCG@k (binary gains, ideal DCG over min(k, |GT|) positions), MRR, MAP
 * (÷ |GT|) through the shared IR core with every ground-truth file graded 1; file recall (ground truth
 * found anywhere), context efficiency (retrieved files that are relevant), and time and tokens to the first
 * relevant file.
 */
export function fileLevel(doc: EventDocument, cutoffs: readonly number[]): FileLevel {
  const retrieved = retrievedFiles(doc.events);
  const truth = relevantFiles(doc);
  const none = (reason: string): Record<string, MetricValue> =>
    Object.fromEntries(
      taskMetrics(cutoffs)
        .filter((m) => m.stage === 1)
        .map((m) => [m.name, notComputable(reason)]),
    );
  if ('reason' in truth) {
    const reason = truth.reason;
    return {
      reason,
      missing: 'ground_truth',
      retrieved,
      relevant: [],
      metrics: none(reason),
      firstHitStep: null,
    };
  }
  // Without a trace nothing is known about what the agent retrieved: a recall of 0 would be made up.
  if (doc.coverage.trace_source === null) {
    const reason = `no usable trace${doc.coverage.degraded_reason ? `: ${doc.coverage.degraded_reason}` : ''}`;
    return {
      reason,
      missing: 'trace',
      retrieved,
      relevant: truth.files,
      metrics: none(reason),
      firstHitStep: null,
    };
  }
  const relevant = truth.files;
  const qrels = new Map(relevant.map((f) => [f, 1]));
  const j = judge(retrieved, qrels);
  const metrics: Record<string, MetricValue> = {};
  for (const k of cutoffs) {
    const p = precisionAt(j, k);
    const r = recallAt(j, k);
    metrics[`P@${k}`] = value(p);
    metrics[`recall@${k}`] = value(r);
    metrics[`f1@${k}`] = value(p + r === 0 ? 0 : (2 * p * r) / (p + r));
    metrics[`ndcg@${k}`] = value(ndcg(j, k));
  }
  const found = retrieved.filter((f) => qrels.has(f)).length;
  metrics.mrr = value(reciprocalRank(j));
  metrics.map = value(averagePrecision(j));
  metrics.file_recall = { value: found / relevant.length, numerator: found, denominator: relevant.length };
  metrics.context_efficiency =
    retrieved.length === 0
      ? notComputable('no file retrieved')
      : { value: found / retrieved.length, numerator: found, denominator: retrieved.length };

  const first = doc.events.find((e) => e.target_files.some((f) => qrels.has(normalizePath(f))));
  if (!first) {
    metrics.ttfr_seconds = notComputable('no ground-truth file retrieved');
    metrics.ttfr_tokens = notComputable('no ground-truth file retrieved');
  } else {
    const seconds = first.elapsed_seconds ?? null;
    const tokens = first.cumulative_tokens ?? null;
    metrics.ttfr_seconds = seconds === null ? notComputable('the trace has no timestamps') : value(seconds);
    metrics.ttfr_tokens = tokens === null ? notComputable('the trace has no token counts') : value(tokens);
  }
  return { retrieved, relevant, metrics, firstHitStep: first?.step_index ?? null };
}
