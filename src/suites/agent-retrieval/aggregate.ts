import { compareCodeUnits } from '../../io/files.js';
import { notComputable, type MetricValue } from '../../metrics/spec.js';
import { summarize, type StatSummary } from '../../metrics/summary-stats.js';
import type { EventDocument } from './contract.js';
import type { Outcome } from './outcomes.js';
import type { TaskScore } from './stages/task.js';

/** A document as the suite scores it. */
export interface TaskRecord {
  /** `config/task` (with `run/` first when documents come from several runs). */
  id: string;
  doc: EventDocument;
  /** The document's file; undefined for a document normalized in memory (`runs:`). */
  file?: string;
  /** The trial folder a document normalized in memory came from. */
  trial?: string;
  score: TaskScore;
  /** Its trial's outcome, when outcomes were given and name its trial. */
  outcome?: Outcome;
}

/** A task's value of a metric; a task without ground truth has none, for the reason it has none. */
export function taskValue(record: TaskRecord, name: string): MetricValue {
  return (
    record.score.metrics[name] ?? notComputable(record.score.fileLevel.reason ?? 'not computed for this task')
  );
}

/** The computable values of a metric, in the records' order. */
function values(records: readonly TaskRecord[], name: string): number[] {
  return records.flatMap((r) => {
    const v = taskValue(r, name).value;
    return v === null ? [] : [v];
  });
}

/** Why no task has a value: no task is computable (no ground truth, no trace), or the per-task reasons. */
function emptyReason(records: readonly TaskRecord[], name: string): string {
  if (records.length === 0) return 'no task documents';
  if (records.every((r) => r.score.fileLevel.reason !== undefined)) {
    const noTrace = records.filter((r) => r.score.fileLevel.missing === 'trace').length;
    return `no task is computable (${records.length - noTrace} without ground truth, ${noTrace} without a usable trace)`;
  }
  const reasons = [
    ...new Set(
      records
        .filter((r) => r.score.fileLevel.reason === undefined)
        .map((r) => taskValue(r, name).reason ?? ''),
    ),
  ].sort(compareCodeUnits);
  return `${reasons.join('; ')} (in every task with ground truth and a trace)`;
}

/** Mean over the tasks where the metric is computable (tasks without ground truth or trace never count as 0). */
export function mean(records: readonly TaskRecord[], name: string): MetricValue {
  const s = summarize(values(records, name));
  return s ? { value: s.mean } : notComputable(emptyReason(records, name));
}

export type Summary = StatSummary | { value: null; reason: string };

/** Mean, sample standard deviation, median and n of a metric, for the stage-5 summary. */
export function summary(records: readonly TaskRecord[], name: string): Summary {
  return summarize(values(records, name)) ?? { value: null, reason: emptyReason(records, name) };
}
