import { notComputable, type MetricValue } from './spec.js';

/**
 * Cohen's kappa of two raters from their confusion matrix (row: the first rater's label, column: the
 * second's): κ = (pₒ − pₑ) / (1 − pₑ), with pₒ = Σ diagonal / n and pₑ = Σ_ℓ row_ℓ · col_ℓ / n².
 * Computed as (n·diagonal − Σ row·col) / (n² − Σ row·col) in integers, so pₑ = 1 is detected exactly.
 * pₑ = 1 happens only when both raters gave every item one and the same label: κ is then 0/0, and the
 * honest answer is "not computable", not the 0 or 1 that implementations pick.
 */
export function cohensKappa(matrix: readonly (readonly number[])[]): MetricValue {
  const size = matrix.length;
  let n = 0;
  let diagonal = 0;
  const rows = new Array<number>(size).fill(0);
  const cols = new Array<number>(size).fill(0);
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      const cell = matrix[i]![j]!;
      n += cell;
      rows[i] = rows[i]! + cell;
      cols[j] = cols[j]! + cell;
      if (i === j) diagonal += cell;
    }
  }
  if (n === 0) return notComputable('no items rated by both raters');
  let chance = 0;
  for (let i = 0; i < size; i++) chance += rows[i]! * cols[i]!;
  if (chance === n * n) {
    return notComputable(
      'expected agreement is 1: both raters gave every item the same single label, so kappa is 0/0',
    );
  }
  return { value: (n * diagonal - chance) / (n * n - chance) };
}
