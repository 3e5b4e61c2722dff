import { traced, type GroundedMetric } from './spec.js';

// No `fails`: most items that fail have a trace.
export const coverage: GroundedMetric = {
  name: 'coverage',
  direction: 'higher',
  unit: 'ratio',
  description: 'Gold items with a trace, over all gold items',
  population: 'gold',
  empty: 'gold set is empty',
  counts: traced,
  doubts: ['qid'],
};
