import type { Segment } from '../../io/split.js';
import { newRunTable, replaces, type RunTable } from './runs.js';

// The pick, the same for every source and for the merge of partials: every run a source found is offered
// as a candidate, and each gold item keeps the one that replaces the others (see replaces). A candidate's
// position is in the input, not in a thread's share of it, so the winner does not depend on who read what.

/**
 * Where a run is in the input: `file` is its file's place in the list of trace files (a file listed twice
 * has two places), `ordinal` the record's place in that file in one pass over it (a line number, a row
 * number, or a trace's position among traces in the order of their first span). Later in the input is
 * greater (file, ordinal).
 */
export interface Position {
  file: number;
  ordinal: number;
}

/** A run a source offers to the pick. */
export interface Candidate {
  qid: string;
  /** Epoch seconds; NaN when the run has none. */
  ts: number;
  position: Position;
  /** The line (or row) a report names for the run. */
  line: number;
  /** Where the source finds the run again: opaque to the pick, read only by the source that made it. */
  ref: number;
  /** How many runs of `qid` it stands for (a thread's scan keeps only its latest of each qid). */
  runs: number;
}

/** What the pick found: each gold item's winning run in the table, and what the source keeps to read them. */
export interface Picked<W = unknown> {
  table: RunTable;
  /** Records read (lines, rows, traces). */
  lines: number;
  /** Runs of qids in gold, superseded ones included. */
  known: number;
  /** Trace qids that are not in gold, with how many runs each had. */
  unknown: ReadonlyMap<string, number>;
  /** What the source needs besides the table to read the winners back (see TraceSource.readBack). */
  winners: W;
}

/**
 * Offers a candidate; true when it is now its gold item's winner (the source may note what it needs for
 * that run; a later candidate can still replace it). The candidate is read at once, so a source may reuse
 * one object for all of its candidates.
 */
export type Offer = (c: Candidate) => boolean;

/**
 * Each gold item's winning run among the candidates `offerAll` offers, whatever their order. A candidate
 * whose qid is a gold item's question (`questions`, given when the source matches by question) is that
 * item's; qids not in gold are counted apart. `offerAll` answers how many records were read and what the
 * source keeps for its read-back.
 */
export function pickWinners<W>(
  qids: readonly string[],
  cutoffs: number,
  questions: ReadonlyMap<string, string> | undefined,
  /** Given the table too, for a source that writes more of a winner's row (a merge, its verdict). */
  offerAll: (offer: Offer, table: RunTable) => { lines: number; winners: W },
): Picked<W> {
  const rows = new Map<string, number>();
  qids.forEach((qid, i) => rows.set(qid, i));
  const table = newRunTable(qids.length, cutoffs);
  const unknown = new Map<string, number>();
  let known = 0;
  const offer: Offer = (c) => {
    const qid = questions ? (questions.get(c.qid) ?? c.qid) : c.qid;
    const row = rows.get(qid);
    if (row === undefined) {
      unknown.set(qid, (unknown.get(qid) ?? 0) + c.runs);
      return false;
    }
    known += c.runs;
    const { file, ordinal } = c.position;
    if (
      table.present[row] &&
      !replaces(c.ts, file, ordinal, table.ts[row]!, table.file[row]!, table.ordinal[row]!)
    )
      return false;
    table.present[row] = 1;
    table.ts[row] = c.ts;
    table.file[row] = file;
    table.ordinal[row] = ordinal;
    table.line[row] = c.line;
    table.ref[row] = c.ref;
    return true;
  };
  const { lines, winners } = offerAll(offer, table);
  return { table, lines, known, unknown, winners };
}

/** A thread's runs by slot, each its qid's latest in the chunks the thread read (see offerSlots). */
export interface Slots {
  qids: readonly string[];
  ts: ArrayLike<number>;
  /** The chunk the run was read in. */
  chunk: ArrayLike<number>;
  /** Its line (or row) in its file: counting from its chunk's first line when offered with line bases. */
  line: ArrayLike<number>;
  /** How many runs of its qid the thread read. */
  count: ArrayLike<number>;
}

/**
 * Offers every thread's runs by slot, in the order of the scans: a run's position is its chunk's file and its
 * line, made absolute by `lineBase` (by chunk: the lines of its file in the chunks before it) when given; a
 * ref is the scan and its slot (see refOf).
 */
export function offerSlots(
  scans: readonly Slots[],
  chunks: readonly Segment[],
  offer: Offer,
  lineBase?: readonly number[],
): void {
  const c = { qid: '', ts: 0, position: { file: 0, ordinal: 0 }, line: 0, ref: 0, runs: 0 };
  scans.forEach((s, k) => {
    for (let slot = 0; slot < s.qids.length; slot++) {
      const chunk = s.chunk[slot]!;
      c.qid = s.qids[slot]!;
      c.ts = s.ts[slot]!;
      c.position.file = chunks[chunk]!.fileIndex;
      c.position.ordinal = c.line = (lineBase ? lineBase[chunk]! : 0) + s.line[slot]!;
      c.ref = refOf(k, slot);
      c.runs = s.count[slot]!;
      offer(c);
    }
  });
}

/** A ref of two numbers, `hi` below 2^21 and `lo` below 2^32: a thread's scan and a slot in it, say. */
export const refOf = (hi: number, lo: number): number => hi * 2 ** 32 + lo;
export const refHi = (ref: number): number => Math.floor(ref / 2 ** 32);
export const refLo = (ref: number): number => ref % 2 ** 32;
