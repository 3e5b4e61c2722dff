import { shipped, type GroundedMetric } from './spec.js';

export const underRefusal: GroundedMetric = {
  name: 'under_refusal',
  direction: 'lower',
  unit: 'ratio',
  description: 'Unanswerable gold items that were answered, over all unanswerable items',
  population: 'unanswerable',
  empty: 'gold has no unanswerable items',
  counts: shipped,
  fails: shipped,
  doubts: ['qid', 'refusal'],
};
