import { HIT } from '../verdict-flags.js';
import type { GroundedMetric } from './spec.js';

const hit = (item: number) => (item & HIT) !== 0;

export const chr: GroundedMetric = {
  name: 'chr',
  direction: 'higher',
  unit: 'ratio',
  description:
    'Citation hit rate: shipped answers citing a gold id and only retrieved ids, over all shipped answers',
  population: 'shipped',
  empty: 'no shipped answers (every traced item was refused)',
  counts: hit,
  fails: (item) => !hit(item),
  doubts: ['qid', 'retrieved', 'citations', 'refusal', 'ids'],
};
