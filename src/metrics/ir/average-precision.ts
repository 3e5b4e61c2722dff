import type { Judged } from './judge.js';

/**
 * AP (trec_eval map), or AP cut at rank k (map_cut_k): the precision at each relevant retrieved doc,
 * summed in rank order and divided by all judged relevant R (not min(R, k)): relevant docs never
 * retrieved count as precision 0. 0 when R = 0.
 */
export function averagePrecision(j: Judged, k = Infinity): number {
  if (j.numRel === 0) return 0;
  const end = Math.min(k, j.relevant.length);
  let found = 0;
  let sum = 0;
  for (let i = 0; i < end; i++) {
    if (!j.relevant[i]) continue;
    found++;
    sum += found / (i + 1);
  }
  return sum / j.numRel;
}
