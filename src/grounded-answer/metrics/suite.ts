import { GOLD_POPULATIONS, type Doubt, type GroundedMetric } from './spec.js';

// What the grounded-qa suite declares of its metrics, read off the table.

/**
 * SuiteKind.populations: a metric without `fails` has no paired gate (null); one counted over a population
 * gold decides is compared within it; any other is left out, to be compared over every item (the shipped
 * answers, precision's population, can take in any gold item: an answered unanswerable one lowers it).
 */
export function pairedPopulations(metrics: readonly GroundedMetric[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const m of metrics) {
    if (!m.fails) out[m.name] = null;
    else if ((GOLD_POPULATIONS as readonly string[]).includes(m.population)) out[m.name] = m.population;
  }
  return out;
}

/** The names (`*` for a family's cutoff) of the metrics a misread warning puts in doubt, in the table's order. */
export function doubted(metrics: readonly GroundedMetric[], doubt: Doubt): string[] {
  return metrics.filter((m) => m.doubts.includes(doubt)).map((m) => m.name.replace('{k}', '*'));
}
