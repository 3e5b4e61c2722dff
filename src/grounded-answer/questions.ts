import type { CompiledFieldMap } from '../io/field-map.js';
import { recordsAt } from '../io/records.js';
import type { GoldItem } from './contract.js';

/**
 * The questions of gold items, as offenders show them: the one an item kept (a Parquet gold set's, see
 * GoldItem.question), else read again from its line, mapped by the gold set's `fields:`.
 */
export async function questionsOf(
  items: readonly GoldItem[],
  goldMap: CompiledFieldMap | undefined,
  /** Told of each gold record, every one then read again (a Parquet item's too). */
  reread?: (record: unknown) => void,
): Promise<unknown[]> {
  // A gold item's source is built when asked for: the records are keyed by these objects.
  const sources = items.map((g) => (g.question === undefined || reread ? g.source : undefined));
  const records = await recordsAt(sources.filter((s) => s !== undefined));
  return items.map((g, i) => {
    const record = sources[i] && records.get(sources[i]);
    if (sources[i]) reread?.(record);
    if (g.question !== undefined) return g.question;
    return ((goldMap ? goldMap.apply(record) : record) as { question?: unknown }).question;
  });
}
