import type { MetricSpec } from '../../metrics/spec.js';
import { STAGES } from './contract.js';

/** Per-answer token and cost values (see tokens.ts), each a mean, a percentile family, and for cost a total. */
const USAGE: readonly { value: string; unit: 'tokens' | 'usd'; what: string }[] = [
  { value: 'tokens_in', unit: 'tokens', what: 'input (prompt) tokens per request' },
  { value: 'tokens_out', unit: 'tokens', what: 'output (completion) tokens per request' },
  { value: 'tokens', unit: 'tokens', what: 'tokens (input + output) per request' },
  { value: 'cost', unit: 'usd', what: 'cost per request in USD at the pricing table' },
];

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
  ...USAGE.flatMap(({ value, unit, what }): MetricSpec[] => [
    {
      name: value,
      direction: 'lower',
      unit,
      description: `Mean ${what}, over the requests that have one`,
      optional: true,
      perItem: { value, aggregate: 'mean' },
    },
    {
      name: `${value}.p{k}`,
      direction: 'lower',
      unit,
      description: `Percentile k of ${what} (as p{k}_ms is computed)`,
      optional: true,
      perItem: { value, aggregate: 'percentile' },
    },
  ]),
  {
    name: 'cost.total',
    direction: 'lower',
    unit: 'usd',
    description: "The run's cost in USD: the sum over the requests that have a cost",
    optional: true,
    perItem: { value: 'cost', aggregate: 'sum' },
  },
];
