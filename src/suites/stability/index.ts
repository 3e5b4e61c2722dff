import type { MetricSpec } from '../../metrics/spec.js';
import type { SuiteKind } from '../types.js';
import { stabilitySplit } from './split.js';
import { CHECKS, type Check } from './contract.js';
import { loadStability } from './load.js';
import { configSchema, type StabilityConfig } from './config.js';
import { stabilityResult } from './result.js';

const MEANS: Record<Check, Omit<MetricSpec, 'name'>> = {
  refusal_consistency: {
    direction: 'higher',
    unit: 'ratio',
    description: 'Mean over questions of the share of runs in the majority class, refused or answered (rcr)',
  },
  constraint_echo_consistency: {
    direction: 'higher',
    unit: 'ratio',
    description:
      'Mean over questions with constraints of 1 when every run echoes them exactly, else 0 (scu_cons)',
  },
  containment_rate: {
    direction: 'higher',
    unit: 'ratio',
    description:
      'Mean over answerable questions of the share of runs whose claim contains a gold substring (acr)',
  },
  citation_hit_rate: {
    direction: 'higher',
    unit: 'ratio',
    description:
      'Mean over answerable questions of the share of runs citing a gold id, all cited ids retrieved (cghc)',
  },
  citation_stability: {
    direction: 'higher',
    unit: 'ratio',
    description: 'Mean over questions of |∩ citation sets| / |∪ citation sets| across runs (css)',
  },
  claim_edit_distance_median: {
    direction: 'lower',
    unit: 'ratio',
    description: 'Mean over questions of the median normalized edit distance between pairs of claims (ned50)',
  },
};

export const metrics: readonly MetricSpec[] = [
  {
    name: 'stable_rate',
    direction: 'higher',
    unit: 'ratio',
    description: 'Questions that pass every per-question threshold, over questions with runs',
  },
  {
    name: 'unstable_questions',
    direction: 'lower',
    unit: 'count',
    description: 'Questions with runs that fail a per-question threshold or have too few runs',
  },
  ...CHECKS.map((name) => ({ name, ...MEANS[name] })),
  {
    name: 'coverage',
    direction: 'higher',
    unit: 'ratio',
    description: 'Gold questions with at least one run, over all gold questions',
  },
];

export const stability: SuiteKind<StabilityConfig> = {
  kind: 'stability',
  description:
    'Semantic stability across seeds and prompt jitters: claims, citations, refusals, constraint echo',
  configSchema,
  inputKeys: ['gold', 'runs'],
  goldKey: 'gold',
  metrics,
  offenderColumns: ['runs', 'claims', 'citation_sets'],
  defaultCutoffs: () => [],

  async score(config, ctx) {
    const { gold, digest, loaded } = await loadStability(config, ctx);
    return { ...(await stabilityResult(config, ctx, gold, loaded)), goldDigest: digest! };
  },
  split: stabilitySplit,
};
