import type { SuiteKind } from '../types.js';
import { rankingSplit } from './split.js';
import { evaluateRanking } from './evaluate.js';
import { configSchema, type RankingConfig } from './config.js';
import { metrics } from './metrics.js';
import { planOf } from './plan.js';
import { rankingResult } from './result.js';

export const ranking: SuiteKind<RankingConfig> = {
  kind: 'ranking',
  description: 'Ranking: trec_eval measures (MAP, P@k, recall@k, nDCG, MRR, ...) of a run against qrels',
  configSchema,
  inputKeys: ['qrels', 'run'],
  metrics,
  offenderColumns: ['retrieved', 'relevant', 'first_relevant_rank', 'missed'],
  defaultCutoffs: (config) => [config.k],

  async score(config, ctx) {
    const plan = planOf(config, ctx);
    return rankingResult(config, ctx, plan, await evaluateRanking(plan.options));
  },
  split: rankingSplit,
};
