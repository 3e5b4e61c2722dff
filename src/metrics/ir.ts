/**
 * The IR core: pure measures over a judged ranking, one per file under ir/ (as trec_eval has one m_<name>.c
 * per measure), and the table that names them. The ranking suite reports them; other suites reuse them
 * with binary qrels (every relevant doc graded 1).
 */
import { averagePrecision } from './ir/average-precision.js';
import type { Judged } from './ir/judge.js';
import { ndcg } from './ir/ndcg.js';
import { precisionAt } from './ir/precision.js';
import { rPrecision } from './ir/r-precision.js';
import { recallAt } from './ir/recall.js';
import { reciprocalRank } from './ir/reciprocal-rank.js';
import { successAt } from './ir/success.js';

export { averagePrecision } from './ir/average-precision.js';
export { judge, type Judged } from './ir/judge.js';
export { ndcg } from './ir/ndcg.js';
export { precisionAt } from './ir/precision.js';
export { printf4 } from './ir/printf.js';
export { rPrecision } from './ir/r-precision.js';
export { recallAt } from './ir/recall.js';
export { reciprocalRank } from './ir/reciprocal-rank.js';
export { successAt } from './ir/success.js';

export interface IrMeasure {
  /** groundgate's name; `{k}` marks a cutoff family. */
  name: string;
  /** What trec_eval prints for it, with the same `{k}`. */
  trecName: string;
  description: string;
  /** The per-query value; `k` is the cutoff of a family and unused otherwise. */
  compute(j: Judged, k: number): number;
}

/** Every IR measure, in the order reports list them. */
export const IR_MEASURES: readonly IrMeasure[] = [
  {
    name: 'map',
    trecName: 'map',
    description: 'Mean average precision: precision at each relevant doc retrieved, over all relevant docs',
    compute: (j) => averagePrecision(j),
  },
  {
    name: 'map@{k}',
    trecName: 'map_cut_{k}',
    description: 'Mean average precision of the top k, still divided by all relevant docs',
    compute: (j, k) => averagePrecision(j, k),
  },
  {
    name: 'P@{k}',
    trecName: 'P_{k}',
    description: 'Mean precision at k: relevant docs in the top k, over k',
    compute: precisionAt,
  },
  {
    name: 'recall@{k}',
    trecName: 'recall_{k}',
    description: 'Mean recall at k: relevant docs in the top k, over all relevant docs',
    compute: recallAt,
  },
  {
    name: 'success@{k}',
    trecName: 'success_{k}',
    description: 'Share of queries with a relevant doc in the top k',
    compute: successAt,
  },
  {
    name: 'ndcg@{k}',
    trecName: 'ndcg_cut_{k}',
    description: 'Mean nDCG at k: linear gains, 1/log2(rank+1) discount, ideal over every judged grade',
    compute: (j, k) => ndcg(j, k),
  },
  {
    name: 'ndcg',
    trecName: 'ndcg',
    description: 'Mean nDCG over the whole ranking',
    compute: (j) => ndcg(j),
  },
  {
    name: 'mrr',
    trecName: 'recip_rank',
    description: 'Mean reciprocal rank of the first relevant doc, at any depth',
    compute: reciprocalRank,
  },
  {
    name: 'r-prec',
    trecName: 'Rprec',
    description: 'Mean R-precision: relevant docs in the top R, over R (R = relevant docs)',
    compute: rPrecision,
  },
];
