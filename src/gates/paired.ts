import { compareItems } from '../baseline/compare.js';
import { mcnemarExact } from '../metrics/mcnemar.js';
import type { MetricSpec } from '../metrics/spec.js';
import type { ItemRecord } from '../report/item-record.js';
import type { Comparison } from '../report/schema.js';
import type { ItemVerdicts, SuiteKind } from '../suites/types.js';
import type { PopulationFlips } from './evaluate.js';

/**
 * What a suite's paired gates count: for a metric, the flips among the items of its population (the kind
 * names it; every item when it does not) that fail that metric, or why there are none. A population is
 * compared once, however many gates share it; each metric then keeps the new failures that are its own.
 */
export function populationFlips(
  kind: SuiteKind,
  verdicts: ItemVerdicts | undefined,
  current: ItemRecord | undefined,
  base: ItemRecord | undefined,
  noBaseline: string,
  /** The suite's own comparison of every item with the baseline, which run() made already. */
  whole?: Comparison,
): (spec: MetricSpec) => PopulationFlips | { skipped: string } {
  const compared = new Map<string, Comparison>(whole ? [['all', whole]] : []);
  const done = new Map<string, PopulationFlips>();
  return (spec) => {
    if (!current || !verdicts) return { skipped: `suite kind ${kind.kind} reports no item verdicts` };
    if (!base) return { skipped: noBaseline };
    // null (no paired gate for the metric) is refused when gates.yaml is loaded.
    const population = kind.populations?.[spec.name] ?? 'all';
    let flips = done.get(spec.name);
    if (!flips) {
      let comparison = compared.get(population);
      if (!comparison) {
        const member =
          population === 'all' ? undefined : memberOf(verdicts.ids, populationOf(verdicts, population));
        compared.set(population, (comparison = compareItems(current, base, member)));
      }
      const { paired, regressed, fixed } = comparison;
      // An item that passed on the baseline and fails now is this metric's new failure only when it fails
      // this metric (see ItemVerdicts.failing); fixes are items that failed there and pass now.
      const failing = verdicts.failing?.[spec.name];
      const mine = failing ? regressed.filter(memberOf(verdicts.ids, failing)) : regressed;
      flips = {
        population,
        paired,
        regressed: mine,
        fixed,
        mcnemar_p: mcnemarExact(mine.length, fixed.length),
      };
      done.set(spec.name, flips);
    }
    // Nothing paired (every id renamed, or a baseline of another gold set) is nothing compared, not a pass.
    if (flips.paired === 0)
      return {
        skipped: `no ${population === 'all' ? '' : `${population} `}item is in the baseline report with the same gold`,
      };
    return flips;
  };
}

function populationOf({ populations }: ItemVerdicts, population: string): Uint8Array {
  const column = populations?.[population];
  if (!column) throw new Error(`population ${population} is not among the suite's item verdicts`);
  return column;
}

/** The ids whose row of `column` is 1. */
function memberOf(ids: readonly string[], column: Uint8Array): (id: string) => boolean {
  const members = new Set<string>();
  for (let i = 0; i < ids.length; i++) if (column[i] === 1) members.add(ids[i]!);
  return (id) => members.has(id);
}
