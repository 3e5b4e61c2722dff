import { InputError } from '../../../errors.js';
import { decodeSeconds, notDecoded } from '../../../io/parquet-limits.js';
import { isParquet, parquetRowGroups } from '../../../io/records.js';
import type { Segment } from '../../../io/split.js';
import { throwFirstError } from '../../pipeline/chunk-scan.js';
import { heldReader, type HeldRuns } from '../held-lines.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import { judgeHeld, type ReadBack } from '../../pipeline/judged-runs.js';
import { parquetScanBuffers, scanParquetRuns, type Leases, type ParquetScan } from './parquet-scan.js';
import { pickWinners, refHi, refLo, refOf, type Picked } from '../../pipeline/pick.js';
import type { Cut } from '../../pipeline/threads.js';
import type { Picking, TraceSource } from '../source.js';

// Parquet traces decoded by threads, a window of rows each (see parquet-scan.ts); this thread folds their
// winners into one per gold item, the one a single pass in file order picks, and reads them back from what
// the threads held.

/** Below this many rows, helpers do not pay for their start: one thread reads each file whole. */
const MIN_THREADED_ROWS = 100_000;
/** Row groups are read together until a window holds this many rows (each window opens the file again). */
const WINDOW_ROWS = 50_000;

/**
 * Windows of whole row groups (a window inside a group decodes the group's pages up to its end): of at least
 * WINDOW_ROWS rows, or 8 a thread under GROUNDGATE_THREADS; each file whole when threads are not worth it.
 * A file whose metadata cannot be read gets one empty window, so that its error comes after the rows of the
 * files before it, as in a single pass.
 */
function byRows(files: readonly string[]): Cut {
  return async (threads, forced) => {
    const groups: (number[] | undefined)[] = [];
    for (const file of files)
      groups.push(
        await parquetRowGroups(file).catch((err: unknown) => {
          if (err instanceof InputError) return undefined;
          throw err;
        }),
      );
    const total = groups.reduce((n, g) => n + (g ?? []).reduce((a, b) => a + b, 0), 0);
    const worthIt = forced || (threads > 1 && total >= MIN_THREADED_ROWS);
    const size = !worthIt ? Infinity : forced ? Math.ceil(total / (threads * 8)) : WINDOW_ROWS;
    const chunks: Segment[] = [];
    files.forEach((file, fileIndex) => {
      const rows = groups[fileIndex];
      if (!rows) return void chunks.push({ file, fileIndex, start: 0, end: 0 });
      let start = 0;
      let end = 0;
      for (const group of rows) {
        end += group;
        if (end - start < size) continue;
        chunks.push({ file, fileIndex, start, end });
        start = end;
      }
      if (end > start) chunks.push({ file, fileIndex, start, end });
    });
    return { chunks, worthIt: worthIt && chunks.length > 1 };
  };
}

export const parquetSource: TraceSource<ParquetScan, Leases, Won> = {
  name: 'parquet',
  explanation: 'Parquet rows of runs (format: jsonl, every file .parquet)',
  formats: ['jsonl'],
  accepts: (files, input) => input.format === 'jsonl' && files.length > 0 && files.every(isParquet),
  cut: byRows,
  scan: scanParquetRuns,
  buffers: parquetScanBuffers,
  pick,
  readBack,
  readsRecords: true,
  // With helpers, this thread only watches them (see watchLeases); without, it reads every window through
  // readParquet.
  mainReads: false,
  digest: 'none',
  // One lease table, which every helper shares.
  told: (chunks) => ({
    shared: new SharedArrayBuffer(4 * Math.max(1, chunks.length)),
    base: Math.floor(Date.now() / 1000),
  }),
  watch: watchLeases,
};

/**
 * Rejects with an input error when a helper has been decoding one window for longer than readParquet allows
 * (checked every second), naming the window's first row; stop() ends the watch.
 */
function watchLeases(leases: Leases, chunks: readonly Segment[]): { stuck: Promise<never>; stop(): void } {
  const lease = new Int32Array(leases.shared);
  const limit = decodeSeconds();
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const now = Date.now() / 1000 - leases.base;
      for (let i = 0; i < chunks.length; i++) {
        const began = Atomics.load(lease, i);
        if (began <= 0 || now - began <= limit) continue;
        clearInterval(timer);
        return reject(notDecoded(chunks[i]!.file, chunks[i]!.start + 1, limit));
      }
    }, 1000);
  });
  stuck.catch(() => undefined);
  return { stuck, stop: () => clearInterval(timer) };
}

/** What the threads held of their winning rows, by scan (see Candidate.ref: the scan and its slot). */
type Won = readonly HeldRuns[];

/** Offers every thread's winners to the pick. */
function pick(
  scans: readonly ParquetScan[],
  { chunks, gold, options, questions }: Picking<ParquetScan>,
): Picked<Won> {
  throwFirstError(scans);
  return pickWinners(
    gold.map((g) => g.qid),
    options.cutoffs.length,
    questions,
    (offer) => {
      const c = { qid: '', ts: 0, position: { file: 0, ordinal: 0 }, line: 0, ref: 0, runs: 0 };
      let read = 0;
      scans.forEach((s, k) => {
        read += s.rows;
        s.qids.forEach((qid, slot) => {
          c.qid = qid;
          c.ts = s.ts[slot]!;
          c.position.file = chunks[s.chunk[slot]!]!.fileIndex;
          c.position.ordinal = c.line = s.row[slot]!;
          c.ref = refOf(k, slot);
          c.runs = s.count[slot]!;
          offer(c);
        });
      });
      return { lines: read, winners: scans.map((s) => s.held) };
    },
  );
}

/**
 * The winners, from what the threads held: each read when asked (100k runs kept as objects cost their copying
 * by the young generation's collections: see BENCHMARKS.md).
 */
function readBack({ table, winners: held }: Picked<Won>, _: Picking<ParquetScan>, judge: Judge): ReadBack {
  const judgedAt = heldReader();
  const record = (row: number) =>
    table.present[row] ? judgedAt(held[refHi(table.ref[row]!)]!, refLo(table.ref[row]!)) : undefined;
  return { records: judgeHeld(table, record, judge) };
}
