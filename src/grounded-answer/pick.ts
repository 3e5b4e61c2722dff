import type { GoldItem } from './contract.js';
import { newRunTable, offer, type RunTable } from './runs.js';

// The pick stage, the same for every source: each thread's scan says, per qid, where its latest run is and
// how many runs it had; each is offered to its gold item's row of the table, which keeps the one that
// replaces the others (see replaces), whichever thread read it. Qids not in gold are counted apart.

/** What a source's pick found: each gold item's winning run in the table, and where to read the winners. */
export interface Picked<W = unknown> {
  table: RunTable;
  /** Records read (lines, rows, traces). */
  lines: number;
  /** Runs of qids in gold, superseded ones included. */
  known: number;
  /** Trace qids that are not in gold, with how many runs each had. */
  unknown: ReadonlyMap<string, number>;
  /** Where the winners are, as the source reads them back (see TraceSource.readBack). */
  winners: W;
}

export class Picker {
  readonly table: RunTable;
  /** Trace qids that are not in gold, with how many runs each had. */
  readonly unknown = new Map<string, number>();
  /** Runs of qids in gold, superseded ones included. */
  known = 0;
  private readonly rows = new Map<string, number>();

  constructor(gold: readonly GoldItem[], cutoffs: number) {
    gold.forEach((g, i) => this.rows.set(g.qid, i));
    this.table = newRunTable(gold.length, cutoffs);
  }

  /** The gold row of `qid`, which had `runs` runs, counted; -1 (counted apart) when it is not in gold. */
  row(qid: string, runs: number): number {
    const row = this.rows.get(qid);
    if (row === undefined) {
      this.unknown.set(qid, (this.unknown.get(qid) ?? 0) + runs);
      return -1;
    }
    this.known += runs;
    return row;
  }

  /** What was picked, once every run has been offered (the map of gold qids is not kept). */
  picked<W>(lines: number, winners: W): Picked<W> {
    return { table: this.table, lines, known: this.known, unknown: this.unknown, winners };
  }

  /** Makes the run item `row`'s if it replaces the one kept (see offer); true if it did. */
  offer(
    row: number,
    run: { ts: number; chunk: number; offset: number; line: number; length: number },
  ): boolean {
    return offer(this.table, row, run);
  }
}
