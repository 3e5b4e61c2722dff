import type { ItemRecord } from '../report/item-record.js';

/** A metric's per-item values on the baseline and now, over the items both hold with the same gold. */
export interface PairedValues {
  ids: string[];
  before: Float64Array;
  now: Float64Array;
}

/**
 * Items are paired as compareItems pairs them: by id, with the same gold digest (an edited question is a
 * different question), and here also with a value of `metric` on both sides. In the current record's order.
 */
export function pairedValues(current: ItemRecord, base: ItemRecord, metric: string): PairedValues {
  const ids: string[] = [];
  const before: number[] = [];
  const now: number[] = [];
  for (const id of current.keys()) {
    const b = base.value(id, metric);
    const v = current.value(id, metric);
    if (b === undefined || v === undefined || current.get(id)!.gold !== base.get(id)!.gold) continue;
    ids.push(id);
    before.push(b);
    now.push(v);
  }
  return { ids, before: Float64Array.from(before), now: Float64Array.from(now) };
}
