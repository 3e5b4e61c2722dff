/**
 * Per-item verdicts, most severe first. Offenders sort by their most severe label, then by qid; this order
 * is part of the report contract (docs/metrics.md).
 */
export const FAILURE_LABELS = [
  'under_refusal',
  'scu_violation',
  'citation_out_of_scope',
  'citation_miss',
  'claim_miss',
  'over_refusal',
  'missing_trace',
] as const;

export const PASS_LABELS = ['ok', 'refusal_ok'] as const;

export type FailureLabel = (typeof FAILURE_LABELS)[number];
export type Label = FailureLabel | (typeof PASS_LABELS)[number];

export function severity(label: Label): number {
  const i = (FAILURE_LABELS as readonly string[]).indexOf(label);
  return i === -1 ? FAILURE_LABELS.length : i;
}
