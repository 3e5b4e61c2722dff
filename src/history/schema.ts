import { z } from 'zod';

/** One line of eval/history.jsonl: a run's metrics and gates, small enough to keep forever. */
export const historyEntrySchema = z.strictObject({
  /** When the entry was appended (UTC, ISO-8601; SOURCE_DATE_EPOCH overrides). */
  recorded: z.string(),
  /** A short name for the x axis: a commit, a release, a date. */
  label: z.string(),
  verdict: z.enum(['pass', 'fail']),
  /** "suite.metric" → value (null when not computable). */
  metrics: z.record(z.string(), z.number().nullable()),
  /** "suite.metric" → its threshold checks. */
  gates: z.record(z.string(), z.array(z.strictObject({ op: z.string(), threshold: z.number() }))),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
