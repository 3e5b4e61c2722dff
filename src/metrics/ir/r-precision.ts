import { hits, type Judged } from './judge.js';

/**
 * R-precision (trec_eval Rprec): relevant docs in the top R over R. A ranking shorter than R counts as padded
 * with non-relevant docs; 0 when R = 0 or nothing was retrieved.
 */
export function rPrecision(j: Judged): number {
  if (j.numRel === 0 || j.relevant.length === 0) return 0;
  return hits(j, j.numRel) / j.numRel;
}
