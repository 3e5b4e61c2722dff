import type { Judged } from './judge.js';

/** RR (trec_eval recip_rank): 1 / rank of the first relevant doc, over the whole ranking; 0 when none is retrieved. */
export function reciprocalRank(j: Judged): number {
  const i = j.relevant.indexOf(true);
  return i === -1 ? 0 : 1 / (i + 1);
}
