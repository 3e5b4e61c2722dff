import { compareCodeUnits } from '../../io/files.js';
import type { LineRef } from '../../io/jsonl.js';
import { labelsOf, passed } from '../verdict-flags.js';
import type { Judge } from './judge-stage.js';
import type { Label } from '../labels.js';
import type { Meeting } from '../id-meter.js';
import type { Picked } from './pick.js';
import type { RunTable } from './runs.js';
import type { ScoreOptions } from '../score-options.js';
import type { ScuRule } from '../scu.js';
import type { JudgedTrace } from '../trace-scan.js';
import type { Usage } from '../../cost/usage.js';

// What judging found, whichever source the runs were read from: the stage after the winners are judged,
// and what the suites read.

/** The winning run of every gold item that has one, judged, and what reading the traces found. */
export interface RunsLoad {
  /** Rows in gold order. */
  table: RunTable;
  lines: number;
  /** Lines that lost to a later run of the same qid. */
  superseded: number;
  /** Trace qids that are not in gold, with how many lines each had, sorted. */
  unknown: Map<string, number>;
  /** The SCU rules by the index `table.rule` holds. */
  rules: readonly ScuRule[];
  /** Where the winning run of gold item `row` is, to read it again; undefined when it has none. */
  ref(row: number): LineRef | undefined;
  /** The verdict on gold item `row`'s winning run, most severe label first; undefined when it has none. */
  labels(row: number): Label[] | undefined;
  /** Gold item `row` has a run and it passed (its labels are ok or refusal_ok). */
  passed(row: number): boolean;
  /**
   * What judging read of some gold items' winning runs, when runs are records rather than lines read again by
   * their place (see ref): held in memory, or read again from their records.
   */
  records?: RecordsOf;
  /**
   * OpenInference: the id of every trace assembled, in the order of its first span. A merge refuses a trace
   * in two shards: one run assembles its spans into one trace, the shards into two.
   */
  traceIds?: () => readonly string[];
  /** When the input asked for them (TraceInput.usage), gold item `row`'s winning run's usage (see ReadBack). */
  usage?: WinnerUsage;
  /** Set when the winners' retrieved and cited ids meet too few of the gold set's (see id-meter.ts). */
  meeting?: Meeting;
}

/** What judging found, however the runs were read: lines, superseded ones, unknown qids, verdicts. */
export function judged(
  table: RunTable,
  lines: number,
  /** Runs of qids in gold, the winners among them included. */
  known: number,
  unknown: ReadonlyMap<string, number>,
  options: ScoreOptions,
): Omit<RunsLoad, 'ref' | 'records' | 'traceIds' | 'usage'> {
  let winners = 0;
  for (let i = 0; i < table.present.length; i++) winners += table.present[i]!;
  return {
    table,
    lines,
    superseded: known - winners,
    unknown: new Map([...unknown].sort(([a], [b]) => compareCodeUnits(a, b))),
    rules: options.scuRules ?? [],
    labels: (row) => (table.present[row] ? labelsOf(table.flags[row]!) : undefined),
    passed: (row) => table.present[row] === 1 && passed(table.flags[row]!),
  };
}

/** What judging read of some rows' winning runs: held in memory, or read again (see RunsLoad.records). */
export type RecordsOf = (rows: readonly number[]) => Promise<ReadonlyMap<number, JudgedTrace>>;

/**
 * Gold item `row`'s winning run's token counts (undefined: no run, or one that counts none), as the read that
 * judged it read them; a run whose counts are wrong throws its input error.
 */
export type WinnerUsage = (row: number) => Usage | undefined;

/** What reading the winners back leaves, to find some of them again for the report. */
export interface ReadBack {
  /** When runs are lines read again by their bytes, where gold item `row`'s winning line's bytes are. */
  bytes?(row: number): { offset: number; length: number };
  /**
   * When runs are records (Parquet rows, OpenInference traces), what judging read of them: a run is then found
   * again by its file and record number, not by its bytes.
   */
  records?: RecordsOf;
  traceIds?: RunsLoad['traceIds'];
  /**
   * Asked for (TraceInput.usage) of a source that reads runs as records: the winners' usage, kept with the
   * runs as they were read. Runs read again by their bytes have none: their usage is read with their bytes.
   */
  usage?: WinnerUsage;
}

/** What judging found: the pick's table, judged, and how each winner is found again. */
export function runsLoad(
  picked: Picked,
  back: ReadBack,
  files: readonly string[],
  options: ScoreOptions,
): RunsLoad {
  const { table } = picked;
  const { records, bytes } = back;
  return {
    ...judged(table, picked.lines, picked.known, picked.unknown, options),
    ref: (row) =>
      table.present[row]
        ? {
            file: files[table.file[row]!]!,
            line: table.line[row]!,
            ...(bytes ? bytes(row) : { offset: -1, length: 0 }),
          }
        : undefined,
    ...(records && { records }),
    ...(back.traceIds && { traceIds: back.traceIds }),
    ...(back.usage && { usage: back.usage }),
  };
}

/**
 * The read-back of winners held in memory (`record` gives gold item row's, when it has one): each judged, and
 * read again from memory for the report.
 */
export function judgeHeld(
  table: RunTable,
  record: (row: number) => JudgedTrace | undefined,
  judge: Judge,
): RecordsOf {
  for (let row = 0; row < table.present.length; row++) {
    const t = table.present[row] ? record(row) : undefined;
    if (t) judge.run(row, t);
  }
  return async (rows) => {
    const out = new Map<number, JudgedTrace>();
    for (const row of rows) {
      const t = record(row);
      if (t) out.set(row, t);
    }
    return out;
  };
}
