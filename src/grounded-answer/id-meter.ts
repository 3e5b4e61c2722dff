import { markedCitations, type Markers } from './citation-markers.js';
import type { JudgedGold } from './gold-item.js';
import { MEET_SHARE } from './id-keys.js';
import type { JudgedTrace } from './trace-scan.js';

// How many of the gold set's ids the winning runs' ids meet (docs/metrics.md, "When the data looks read
// wrongly"), counted as the runs are judged. Once MEET_SHARE of them are met the count stops: a run whose
// ids meet its gold set's pays a few lookups per run until then, and nothing after.

/** What the meter found when the winners' ids met too few gold ids: every winner was looked at. */
export interface Meeting {
  /** The gold set's distinct ids (every item's gold_citations). */
  gold: number;
  /** Of them, those some winner retrieved or cited. */
  met: number;
  /** The first ids of the winners of the first rows (gold order) that name any, for a message. */
  traced: string[];
  /** The gold set's first ids, in gold order. */
  goldIds: string[];
}

const SAMPLE = 3;

export interface IdMeter {
  /** Whether enough gold ids are met already: runs need not be shown to it any more. */
  readonly enough: boolean;
  /** Counts the ids winner `row` retrieved and cited. */
  see(row: number, t: JudgedTrace): void;
  /** After every winner was seen: undefined when enough gold ids were met, or gold or the winners name none. */
  meeting(): Meeting | undefined;
}

/** A meter over the gold set's ids; `markers` when citations are read from the claim (citation_markers). */
export function idMeter(gold: readonly Pick<JudgedGold, 'citations'>[], markers?: Markers): IdMeter {
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
      const cited = markers
        ? markedCitations(t.answer_json.claim, t.retrieved_ids, markers).ids
        : t.answer_json.citations;
      for (const id of t.retrieved_ids) meet(id);
      for (const id of cited) meet(id);
      if (count >= needed && count > 0) enough = true;
      const ids = t.retrieved_ids.length > 0 ? t.retrieved_ids : cited;
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
