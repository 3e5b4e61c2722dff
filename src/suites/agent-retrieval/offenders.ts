import { compareCodeUnits } from '../../io/files.js';
import type { Offender } from '../types.js';
import { taskValue, type TaskRecord } from './aggregate.js';

const LISTED = 10;

/**
 * Tasks with ground truth whose file recall is below 1, lowest first (then lowest MRR, then id), each with
 * the ground-truth files it never retrieved and the irrelevant files it did.
 */
export function offenders(records: readonly TaskRecord[], relative: (file: string) => string): Offender[] {
  const recall = (r: TaskRecord) => taskValue(r, 'file_recall').value ?? 1;
  const mrr = (r: TaskRecord) => taskValue(r, 'mrr').value ?? 0;
  return records
    .filter((r) => r.score.taxonomy && recall(r) < 1)
    .sort((a, b) => recall(a) - recall(b) || mrr(a) - mrr(b) || compareCodeUnits(a.id, b.id))
    .map((r) => {
      const t = r.score.taxonomy!;
      const missed = t.files.missed_key_evidence;
      const irrelevant = t.files.irrelevant_retrieval;
      const labels = [recall(r) === 0 ? 'no_relevant_retrieved' : 'missed_key_evidence'];
      if (irrelevant.length > 0) labels.push('irrelevant_retrieval');
      return {
        id: r.id,
        labels,
        fields: {
          file_recall: recall(r),
          mrr: mrr(r),
          retrieved: r.score.fileLevel.retrieved.length,
          ground_truth: r.score.fileLevel.relevant.length,
          missed: missed.slice(0, LISTED),
          irrelevant: irrelevant.slice(0, LISTED),
          ...(irrelevant.length > LISTED ? { irrelevant_total: irrelevant.length } : {}),
          trace_source: r.doc.coverage.trace_source,
          ...(r.doc.coverage.degraded_reason ? { degraded_reason: r.doc.coverage.degraded_reason } : {}),
          ...(r.trial ? { trial: relative(r.trial) } : {}),
        },
        ...(r.file ? { source: { file: relative(r.file), line: 1 } } : {}),
      };
    });
}
