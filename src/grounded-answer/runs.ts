/**
 * The winning run of each gold item and its verdict, as columns indexed by the item's position in gold:
 * a few typed arrays for 200k items, rather than 200k objects.
 */
export interface RunTable {
  /** 1 when the item has a run. */
  present: Uint8Array;
  /** The run's `ts` in epoch seconds; NaN when it has none. */
  ts: Float64Array;
  /** The verdict, a word of flags (see verdict-flags.ts). */
  flags: Uint32Array;
  /** Per item and cutoff (row × cutoffs + j): all gold citations in the top k, answerable items only. */
  recall: Uint8Array;
  /** Per item and cutoff: a gold citation in the top k, shipped answers only. */
  upper: Uint8Array;
  /** The SCU rule the claim broke, or -1. */
  rule: Int16Array;
  /** Where the run is: the chunk it was read from, its line within that chunk, and its bytes. */
  chunk: Int32Array;
  line: Float64Array;
  offset: Float64Array;
  length: Float64Array;
}

/** What judging a run writes into its row (see judgeInto). */
export type Verdicts = Pick<RunTable, 'flags' | 'recall' | 'upper' | 'rule'>;

/** Verdicts for `rows` runs, judged by a thread that keeps no table of its own. */
export function newVerdicts(rows: number, cutoffs: number): Verdicts {
  return {
    flags: new Uint32Array(rows),
    recall: new Uint8Array(rows * cutoffs),
    upper: new Uint8Array(rows * cutoffs),
    rule: new Int16Array(rows).fill(-1),
  };
}

/** Copies row `from` of verdicts judged elsewhere into row `row` of the table. */
export function copyVerdicts(v: Verdicts, from: number, table: RunTable, row: number, cutoffs: number): void {
  table.flags[row] = v.flags[from]!;
  table.rule[row] = v.rule[from]!;
  table.recall.set(v.recall.subarray(from * cutoffs, (from + 1) * cutoffs), row * cutoffs);
  table.upper.set(v.upper.subarray(from * cutoffs, (from + 1) * cutoffs), row * cutoffs);
}

export const verdictBuffers = (v: Verdicts): ArrayBuffer[] =>
  [v.flags, v.recall, v.upper, v.rule].map((a) => a.buffer as ArrayBuffer);

export function newRunTable(items: number, cutoffs: number): RunTable {
  return {
    present: new Uint8Array(items),
    ts: new Float64Array(items),
    flags: new Uint32Array(items),
    recall: new Uint8Array(items * cutoffs),
    upper: new Uint8Array(items * cutoffs),
    rule: new Int16Array(items).fill(-1),
    chunk: new Int32Array(items),
    line: new Float64Array(items),
    offset: new Float64Array(items),
    length: new Float64Array(items),
  };
}

/**
 * Whether a run replaces the one kept: a greater `ts` wins, and between equal `ts` (or none on both) the
 * later line does; a run without `ts` (NaN) loses to any with one. Position in the input is (chunk,
 * offset), chunks being numbered in input order, so the winner does not depend on which thread read what.
 */
export function replaces(
  ts: number,
  chunk: number,
  offset: number,
  keptTs: number,
  keptChunk: number,
  keptOffset: number,
): boolean {
  const none = Number.isNaN(ts);
  const keptNone = Number.isNaN(keptTs);
  if (none !== keptNone) return keptNone;
  if (!none && ts !== keptTs) return ts > keptTs;
  return chunk !== keptChunk ? chunk > keptChunk : offset > keptOffset;
}

/** Makes the run at (chunk, offset) item `row`'s if it replaces the one kept (see replaces); true if it did. */
export function offer(
  table: RunTable,
  row: number,
  run: { ts: number; chunk: number; offset: number; line: number; length: number },
): boolean {
  if (
    table.present[row] &&
    !replaces(run.ts, run.chunk, run.offset, table.ts[row]!, table.chunk[row]!, table.offset[row]!)
  )
    return false;
  table.present[row] = 1;
  table.ts[row] = run.ts;
  table.chunk[row] = run.chunk;
  table.line[row] = run.line;
  table.offset[row] = run.offset;
  table.length[row] = run.length;
  return true;
}
