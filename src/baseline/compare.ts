import { compareCodeUnits } from '../io/files.js';
import { mcnemarExact } from '../metrics/mcnemar.js';
import type { MetricValue } from '../metrics/spec.js';
import type { ItemRecord } from '../report/item-record.js';
import type { Comparison } from '../report/schema.js';

export function withBaseline(current: MetricValue, base: MetricValue | undefined): MetricValue {
  if (!base) return current;
  const delta = current.value === null || base.value === null ? null : current.value - base.value;
  return { ...current, baseline: base.value, delta };
}

/**
 * Item-by-item comparison with the baseline. Only items whose gold is unchanged are paired: an edited
 * question is a different question, and its flip would say nothing about the pipeline. With `member`, only
 * the current items it admits (a metric's population) are compared.
 */
export function compareItems(
  current: ItemRecord,
  base: ItemRecord,
  member?: (id: string) => boolean,
): Comparison {
  const added: string[] = [];
  const changed: string[] = [];
  const regressed: string[] = [];
  const fixed: string[] = [];
  let paired = 0;
  for (const [id, now] of current.members()) {
    if (member && !member(id)) continue;
    const before = base.get(id);
    if (!before) {
      added.push(id);
      continue;
    }
    if (now.gold !== before.gold) {
      changed.push(id);
      continue;
    }
    paired++;
    if (before.pass && !now.pass) regressed.push(id);
    if (!before.pass && now.pass) fixed.push(id);
  }
  const removed = base.keys().filter((id) => !current.has(id));
  const sorted = (xs: string[]) => xs.sort(compareCodeUnits);
  return {
    gold_changes: { added: sorted(added), removed: sorted(removed), changed: sorted(changed) },
    paired,
    regressed: sorted(regressed),
    fixed: sorted(fixed),
    mcnemar_p: mcnemarExact(regressed.length, fixed.length),
  };
}
