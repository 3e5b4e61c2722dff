import { chr } from './chr.js';
import { chrUpperBound } from './chr-upper-bound.js';
import { constraintIntegrity } from './constraint-integrity.js';
import { coverage } from './coverage.js';
import { overRefusal } from './over-refusal.js';
import { precision } from './precision.js';
import { recall } from './recall.js';
import { scuViolations } from './scu-violations.js';
import type { GroundedMetric } from './spec.js';
import { underRefusal } from './under-refusal.js';

export type { Column, Doubt, GroundedMetric, Item, Population } from './spec.js';

/**
 * Every grounded-qa metric, in the order reports list them (a family at each cutoff, smallest first). Adding
 * one = a file in this folder and a line here; the suite's specs, populations, failing columns and misread
 * warnings read this table.
 */
const TABLE: GroundedMetric[] = [
  precision,
  chr,
  underRefusal,
  overRefusal,
  recall,
  chrUpperBound,
  scuViolations,
  constraintIntegrity,
  coverage,
];

export const GROUNDED_METRICS: readonly GroundedMetric[] = TABLE;

/**
 * Adds a metric after the others, for code that extends groundgate in its own process (a test's toy metric;
 * an engine thread loads the table afresh); returns what takes it out again. A name the table has already is
 * a programming error.
 */
export function registerGroundedMetric(metric: GroundedMetric): () => void {
  if (TABLE.some((m) => m.name === metric.name))
    throw new Error(`grounded-qa metric ${metric.name} is registered already`);
  TABLE.push(metric);
  return () => {
    const at = TABLE.indexOf(metric);
    if (at !== -1) TABLE.splice(at, 1);
  };
}
