import type { GroundedMetric } from './spec.js';

export const chrUpperBound: GroundedMetric = {
  name: 'chr@{k}_upper_bound',
  direction: 'higher',
  unit: 'ratio',
  description:
    'Shipped answers with a gold id in the top k retrieved ids, over all shipped answers: the highest chr the retriever allows',
  population: 'shipped',
  empty: 'no shipped answers',
  column: 'upper',
  doubts: ['qid', 'retrieved', 'citations', 'refusal', 'ids'],
};
