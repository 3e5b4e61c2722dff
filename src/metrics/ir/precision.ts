import { hits, type Judged } from './judge.js';

/** P@k (trec_eval P_k): relevant docs in the top k over k. The denominator stays k when fewer were retrieved. */
export function precisionAt(j: Judged, k: number): number {
  return hits(j, k) / k;
}
