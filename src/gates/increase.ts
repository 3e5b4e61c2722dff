import { compareCodeUnits } from '../io/files.js';
import { aggregate } from '../metrics/aggregate.js';
import type { ResolvedMetric } from '../metrics/spec.js';
import type { ItemRecord } from '../report/item-record.js';
import { escapeTerminal } from '../report/escape.js';

/** One item's value before (the baseline) and after (now). */
export interface Grown {
  id: string;
  /** The value compared: `cost` where both reports price the item, else the metric's own per-item value. */
  value: string;
  before: number;
  after: number;
}

/** A metric recomputed over the items both reports have its per-item value for. */
export interface PairedIncrease {
  current: number;
  base: number;
  items: number;
  /** The paired items that grew, most first (by cost where both priced them, else by the metric's value). */
  grown: Grown[];
}

/**
 * The metric over the items both reports hold its per-item value for (MetricSpec.perItem), gold unchanged,
 * in the current run and in the baseline: what max_increase compares, so that items added or dropped do not
 * pass for a rise or a fall. Undefined when the metric has no per-item values or no item is paired.
 */
export function pairedIncrease(
  metric: ResolvedMetric,
  current: ItemRecord | undefined,
  base: ItemRecord | undefined,
): PairedIncrease | undefined {
  const per = metric.spec.perItem;
  if (!per || !current || !base) return undefined;
  const now: number[] = [];
  const before: number[] = [];
  const grown: Grown[] = [];
  for (const [id, item] of current.members()) {
    const was = base.get(id);
    const a = item.values?.[per.value];
    const b = was?.values?.[per.value];
    if (a === undefined || b === undefined || was!.gold !== item.gold) continue;
    now.push(a);
    before.push(b);
    const costA = item.values?.cost;
    const costB = was!.values?.cost;
    const byCost = costA !== undefined && costB !== undefined;
    const [x, y] = byCost ? [costB, costA] : [b, a];
    if (y > x) grown.push({ id, value: byCost ? 'cost' : per.value, before: x, after: y });
  }
  if (now.length === 0) return undefined;
  grown.sort((p, q) => q.after - q.before - (p.after - p.before) || compareCodeUnits(p.id, q.id));
  return {
    current: aggregate(now, per.aggregate, metric.k)!,
    base: aggregate(before, per.aggregate, metric.k)!,
    items: now.length,
    grown,
  };
}

/** How many grown items a gate's reason names. */
const NAMED = 5;

/** "q3 cost 0.00012 → 0.00020, q7 …": the items that grew most, for a gate's reason. */
export function grownText(grown: readonly Grown[], format: (value: string, v: number) => string): string {
  const named = grown
    .slice(0, NAMED)
    .map(
      (g) =>
        `${escapeTerminal(g.id, 40)} ${g.value} ${format(g.value, g.before)} → ${format(g.value, g.after)}`,
    );
  const more = grown.length > NAMED ? `, … (${grown.length - NAMED} more)` : '';
  return named.join(', ') + more;
}
