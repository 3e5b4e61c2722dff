import { traced, type GroundedMetric } from './spec.js';

// No `fails`: an item's pass bit does not say whether its retrieval reached the gold chunk (a recall miss with
// a right answer passes), so a baseline's items cannot tell recall's new failures.
export const recall: GroundedMetric = {
  name: 'recall@{k}',
  direction: 'higher',
  unit: 'ratio',
  description:
    'Answerable items whose gold citations are all in the top k retrieved ids, over all answerable items',
  population: 'answerable',
  empty: 'gold has no answerable items',
  counts: traced,
  column: 'recall',
  doubts: ['qid', 'retrieved', 'ids'],
};
