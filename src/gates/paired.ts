import { compareItems } from '../baseline/compare.js';
import type { MetricSpec } from '../metrics/spec.js';
import type { ItemRecord } from '../report/item-record.js';
import type { ItemVerdicts, SuiteKind } from '../suites/types.js';
import type { PopulationFlips } from './evaluate.js';

/**
 * What a suite's paired gates count: for a metric, the flips among the items of its population (the kind
 * names it; every item when it does not), or why there are none. A population is compared once, however
 * many gates share it.
 */
export function populationFlips(
  kind: SuiteKind,
  verdicts: ItemVerdicts | undefined,
  current: ItemRecord | undefined,
  base: ItemRecord | undefined,
  noBaseline: string,
): (spec: MetricSpec) => PopulationFlips | { skipped: string } {
  const done = new Map<string, PopulationFlips>();
  return (spec) => {
    if (!current || !verdicts) return { skipped: `suite kind ${kind.kind} reports no item verdicts` };
    if (!base) return { skipped: noBaseline };
    // null (no paired gate for the metric) is refused when gates.yaml is loaded.
    const population = kind.populations?.[spec.name] ?? 'all';
    let flips = done.get(population);
    if (!flips) {
      const member = population === 'all' ? undefined : memberOf(verdicts, population);
      const { paired, regressed, fixed, mcnemar_p } = compareItems(current, base, member);
      done.set(population, (flips = { population, paired, regressed, fixed, mcnemar_p }));
    }
    return flips;
  };
}

function memberOf({ ids, populations }: ItemVerdicts, population: string): (id: string) => boolean {
  const column = populations?.[population];
  if (!column) throw new Error(`population ${population} is not among the suite's item verdicts`);
  const members = new Set<string>();
  for (let i = 0; i < ids.length; i++) if (column[i] === 1) members.add(ids[i]!);
  return (id) => members.has(id);
}
