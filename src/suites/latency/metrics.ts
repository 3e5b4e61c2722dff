import type { MetricSpec } from '../../metrics/spec.js';
import { STAGES } from './contract.js';
import { usageSpecs } from '../../cost/usage-metrics.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'p{k}_ms',
    direction: 'lower',
    unit: 'ms',
    description: 'Percentile k of end-to-end latency (linear interpolation between closest ranks)',
  },
  {
    name: 'tail_amplification',
    direction: 'lower',
    unit: 'ratio',
    description: 'P99 / P50 of end-to-end latency: how much slower the tail is than the typical request',
  },
  ...STAGES.map((stage): MetricSpec => ({
    name: `${stage}.p{k}_ms`,
    direction: 'lower',
    unit: 'ms',
    description: `Percentile k of the ${stage} stage's time (csv input)`,
  })),
  ...usageSpecs('request'),
];
