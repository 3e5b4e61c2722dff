import { CORRECT } from '../verdict-flags.js';
import type { GroundedMetric } from './spec.js';

const correct = (item: number) => (item & CORRECT) !== 0;

export const precision: GroundedMetric = {
  name: 'precision',
  direction: 'higher',
  unit: 'ratio',
  description: 'Shipped answers that are contained, cited and constraint-safe, over all shipped answers',
  population: 'shipped',
  empty: 'no shipped answers (every traced item was refused)',
  counts: correct,
  fails: (item) => !correct(item),
  doubts: ['qid', 'retrieved', 'citations', 'refusal', 'ids'],
};
