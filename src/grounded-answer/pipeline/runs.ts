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
  /** Where the run is in the input (see Position in pick.ts): its file's place and its ordinal there. */
  file: Int32Array;
  ordinal: Float64Array;
  /** The line (or row) a report names for the run. */
  line: Float64Array;
  /** Where its source finds the run again (see Candidate.ref). */
  ref: Float64Array;
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

export function newRunTable(items: number, cutoffs: number): RunTable {
  return {
    present: new Uint8Array(items),
    ts: new Float64Array(items),
    flags: new Uint32Array(items),
    recall: new Uint8Array(items * cutoffs),
    upper: new Uint8Array(items * cutoffs),
    rule: new Int16Array(items).fill(-1),
    file: new Int32Array(items),
    ordinal: new Float64Array(items),
    line: new Float64Array(items),
    ref: new Float64Array(items),
  };
}

/**
 * Whether a run replaces the one kept: a greater `ts` wins, and between equal `ts` (or none on both) the
 * later one in the input does (see Position in pick.ts); a run without `ts` (NaN) loses to any with one.
 */
export function replaces(
  ts: number,
  file: number,
  ordinal: number,
  keptTs: number,
  keptFile: number,
  keptOrdinal: number,
): boolean {
  const none = Number.isNaN(ts);
  const keptNone = Number.isNaN(keptTs);
  if (none !== keptNone) return keptNone;
  if (!none && ts !== keptTs) return ts > keptTs;
  return file !== keptFile ? file > keptFile : ordinal > keptOrdinal;
}
