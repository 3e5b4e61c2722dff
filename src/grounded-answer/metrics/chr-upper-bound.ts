import type { GroundedMetric } from './spec.js';

// Its paired gate counts every new failure over every item: the one failing column a spec has cannot say
// which cutoff an item fails.
export const chrUpperBound: GroundedMetric = {
  name: 'chr@{k}_upper_bound',
  direction: 'higher',
  unit: 'ratio',
  description:
    'Shipped answers with a gold id in the top k retrieved ids, over all shipped answers: the highest chr the retriever allows',
  population: 'shipped',
  empty: 'no shipped answers',
  column: 'upper',
  fails: 'every',
  doubts: ['qid', 'retrieved', 'citations', 'refusal', 'ids'],
};
