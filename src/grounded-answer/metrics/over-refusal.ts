import { refused, type GroundedMetric } from './spec.js';

export const overRefusal: GroundedMetric = {
  name: 'over_refusal',
  direction: 'lower',
  unit: 'ratio',
  description: 'Answerable gold items that were refused, over all answerable items',
  population: 'answerable',
  empty: 'gold has no answerable items',
  counts: refused,
  fails: refused,
  doubts: ['qid', 'refusal'],
};
