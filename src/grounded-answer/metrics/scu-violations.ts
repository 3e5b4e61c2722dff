import { VIOLATION } from '../verdict-flags.js';
import type { GroundedMetric } from './spec.js';

/** Why the SCU metrics have no value without `scu: true`. */
export const scuOff = (options: { scuRules: unknown }): string | undefined =>
  options.scuRules ? undefined : 'scu not enabled';

// No `fails`: the count's gate already fails on one more violation.
export const scuViolations: GroundedMetric = {
  name: 'scu_violations',
  direction: 'lower',
  unit: 'count',
  description: 'Shipped answers with constraints that miss the echo or contradict a lock (scu: true)',
  population: 'constrained',
  empty: 'no shipped answer has gold constraints',
  counts: (item) => (item & VIOLATION) !== 0,
  unless: scuOff,
  doubts: [],
};
