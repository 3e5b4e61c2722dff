import { VIOLATION } from '../verdict-flags.js';
import { scuOff } from './scu-violations.js';
import type { GroundedMetric } from './spec.js';

// No `fails`: most items that fail keep their constraints, so a failing verdict says nothing of this one.
export const constraintIntegrity: GroundedMetric = {
  name: 'constraint_integrity',
  direction: 'higher',
  unit: 'ratio',
  description: '1 − scu_violations / shipped answers with constraints',
  population: 'constrained',
  empty: 'no shipped answer has gold constraints',
  counts: (item) => (item & VIOLATION) === 0,
  unless: scuOff,
  doubts: [],
};
