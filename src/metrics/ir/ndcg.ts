import type { Judged } from './judge.js';

/**
 * DCG of the first `n` gains: Σ gain / log2(rank + 1), summed in rank order as trec_eval does, so the
 * doubles come out bit-identical.
 */
function dcg(gains: readonly number[], n = Infinity): number {
  const end = Math.min(n, gains.length);
  let sum = 0;
  for (let i = 0; i < end; i++) {
    const gain = gains[i]!;
    if (gain > 0) sum += gain / Math.log2(i + 2);
  }
  return sum;
}

/**
 * nDCG, cut at rank k (trec_eval ndcg_cut_k) or over the whole ranking (ndcg): linear gains (gain = grade),
 * divided by the DCG of every judged grade > 0 sorted highest first and cut at the same k, retrieved or
 * not. 0 when the query has no grade > 0.
 */
export function ndcg(j: Judged, k = Infinity): number {
  const ideal = dcg(j.idealGains, k);
  return ideal > 0 ? dcg(j.gains, k) / ideal : 0;
}
