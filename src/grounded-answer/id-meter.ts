import type { JudgedGold } from './gold-item.js';
import { MEET_SHARE } from './id-keys.js';
import type { JudgedTrace } from './trace-scan.js';

// How many of the gold set's ids the winning runs' retrieved ids meet (docs/metrics.md, "Ids that meet no gold
// id"), counted as the runs are judged. Once MEET_SHARE of them are met the count stops: a run whose ids meet
// its gold set's pays a few lookups per run until then, and nothing after. Cited ids are not counted: answers
// citing gold ids do not make up for retrieved ids that meet none (recall is 0 all the same), and a read
// that names the wrong key for documents leaves the answers' citations as they were.

/** What the meter found when the winners' ids met too few gold ids: every winner was looked at. */
export interface Meeting {
  /** The gold set's distinct ids (every item's gold_citations). */
  gold: number;
  /** Of them, those some winner retrieved. */
  met: number;
  /** The first retrieved ids of the winners of the first rows (gold order) that retrieved any, for a message. */
  traced: string[];
  /** The gold set's first ids, in gold order. */
  goldIds: string[];
}

const SAMPLE = 3;

export interface IdMeter {
  /** Whether enough gold ids are met already: runs need not be shown to it any more. */
  readonly enough: boolean;
  /** Counts the ids winner `row` retrieved. */
  see(row: number, t: Pick<JudgedTrace, 'retrieved_ids'>): void;
  /** After every winner was seen: undefined when enough gold ids were met, or gold or the winners name none. */
  meeting(): Meeting | undefined;
}

/** A meter over the gold set's ids. */
export function idMeter(gold: readonly Pick<JudgedGold, 'citations'>[]): IdMeter {
  const index = new Map<string, number>();
  for (const g of gold) for (const id of g.citations) if (!index.has(id)) index.set(id, index.size);
  const met = new Uint8Array(index.size);
  const needed = Math.ceil(MEET_SHARE * index.size);
  let count = 0;
  let enough = index.size === 0;
  // The rows that name ids, lowest first, with their ids: the same sample whichever thread judged which row.
  const shown: { row: number; ids: readonly string[] }[] = [];
  const meet = (id: string) => {
    const at = index.get(id);
    if (at !== undefined && met[at] === 0) {
      met[at] = 1;
      count++;
    }
  };
  return {
    get enough() {
      return enough;
    },
    see(row, t) {
      if (enough) return;
      const ids = t.retrieved_ids;
      for (const id of ids) meet(id);
      if (count >= needed && count > 0) enough = true;
      if (ids.length > 0 && (shown.length < SAMPLE || row < shown[shown.length - 1]!.row)) {
        shown.push({ row, ids });
        shown.sort((a, b) => a.row - b.row);
        if (shown.length > SAMPLE) shown.pop();
      }
    },
    meeting() {
      if (enough || shown.length === 0) return undefined;
      const goldIds: string[] = [];
      for (const id of index.keys()) if (goldIds.push(id) === SAMPLE) break;
      return {
        gold: index.size,
        met: count,
        traced: [...new Set(shown.flatMap((s) => s.ids))].slice(0, SAMPLE),
        goldIds,
      };
    },
  };
}
