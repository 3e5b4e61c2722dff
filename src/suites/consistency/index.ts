import type { MetricSpec } from '../../metrics/spec.js';
import type { SuiteKind } from '../types.js';
import { joinRaters, loadPairs } from './load.js';
import { consistencySplit } from './split.js';
import { configSchema, oneInput, type ConsistencyConfig } from './config.js';
import { consistencyResult } from './result.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'agreement',
    direction: 'higher',
    unit: 'ratio',
    description: 'Percent agreement: pairs where scholar and auditor gave the same label, over all pairs',
  },
  {
    name: 'kappa',
    direction: 'higher',
    unit: 'ratio',
    description: "Cohen's kappa over the four labels: agreement corrected for chance",
  },
  {
    name: 'abstain_rate',
    direction: 'lower',
    unit: 'ratio',
    description: 'Pairs where either agent said ABSTAIN, over all pairs',
  },
  {
    name: 'disagreements',
    direction: 'lower',
    unit: 'count',
    description: 'Pairs where scholar and auditor gave different labels',
  },
];

export const consistency: SuiteKind<ConsistencyConfig> = {
  kind: 'consistency',
  description: "Cross-agent consistency: scholar vs auditor agreement, Cohen's kappa, abstain rate",
  configSchema,
  inputKeys: ['pairs', 'scholar', 'auditor'],
  metrics,
  offenderColumns: ['scholar', 'auditor', 'final', 'arbitration'],
  defaultCutoffs: () => [],
  // A pair passes when both agents agree on a label: every metric counts every pair.
  populations: {},

  async score(_config, ctx) {
    const { pairs: pairFiles, scholar, auditor } = oneInput(ctx);
    const read = pairFiles
      ? { pairs: await loadPairs(pairFiles) }
      : { joined: await joinRaters(scholar!, auditor!) };
    return consistencyResult(ctx, read);
  },
  split: consistencySplit,
};
