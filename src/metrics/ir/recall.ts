import { hits, type Judged } from './judge.js';

/** recall@k (trec_eval recall_k): relevant docs in the top k over all judged relevant R; 0 when R = 0. */
export function recallAt(j: Judged, k: number): number {
  return j.numRel === 0 ? 0 : hits(j, k) / j.numRel;
}
