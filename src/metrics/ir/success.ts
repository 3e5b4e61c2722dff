import { hits, type Judged } from './judge.js';

/** success@k (trec_eval success_k): 1 when a relevant doc is in the top k, else 0. */
export function successAt(j: Judged, k: number): number {
  return hits(j, k) > 0 ? 1 : 0;
}
