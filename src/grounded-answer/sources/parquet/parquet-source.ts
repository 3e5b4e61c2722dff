import { decodeSeconds, notDecoded } from '../../../io/parquet-limits.js';
import { isParquet, parquetRowGroups } from '../../../io/records.js';
import { throwFirstError } from '../../pipeline/chunk-scan.js';
import { heldReader } from '../held-lines.js';
import { heldUsageReader } from '../../../cost/held-usages.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import { judgeHeld, type ReadBack } from '../../pipeline/judged-runs.js';
import { scanParquetRuns, type ParquetScan } from './parquet-scan.js';
import { offerSlots, refHi, refLo, type Offer, type Picked } from '../../pipeline/pick.js';
import type { Picking, TraceSource } from '../source.js';

// Parquet traces decoded by threads, a window of whole row groups each (see parquet-scan.ts); this thread
// offers their winners to the pick, which keeps the one a single pass in file order picks, and reads them back
// from what the threads held.

export const parquetSource: TraceSource<ParquetScan, Won> = {
  name: 'parquet',
  explanation: 'Parquet rows of runs (format: jsonl, every file .parquet)',
  formats: ['jsonl'],
  accepts: (files, input) => input.format === 'jsonl' && files.length > 0 && files.every(isParquet),
  layout: { chunks: { groups: parquetRowGroups }, heap: 'records' },
  scan: (queue, input, { watched }) => scanParquetRuns(queue, input, watched),
  candidates,
  readBack,
  // A helper decodes on its own thread, watched by this one; without helpers, this thread reads every window
  // through readParquet, which guards itself.
  stuck: {
    seconds: decodeSeconds,
    error: (chunk, seconds) => notDecoded(chunk.file, chunk.start + 1, seconds),
  },
};

/**
 * What the threads held of their winning rows, and their usage when asked, by scan (see Candidate.ref: the scan
 * and its slot).
 */
type Won = readonly Pick<ParquetScan, 'held' | 'usage'>[];

/** Offers every thread's winners to the pick. */
function candidates(scans: readonly ParquetScan[], { chunks }: Picking, offer: Offer) {
  throwFirstError(scans);
  offerSlots(scans, chunks, offer);
  return { lines: scans.reduce((n, s) => n + s.rows, 0), winners: scans };
}

/**
 * The winners, from what the threads held: each read when asked (100k runs kept as objects cost their copying
 * by the young generation's collections: see BENCHMARKS.md).
 */
function readBack({ table, winners: held }: Picked<Won>, { input }: Picking, judge: Judge): ReadBack {
  const judgedAt = heldReader();
  const record = (row: number) =>
    table.present[row] ? judgedAt(held[refHi(table.ref[row]!)]!.held, refLo(table.ref[row]!)) : undefined;
  const usageAt = heldUsageReader();
  const usage = (row: number) =>
    table.present[row] ? usageAt(held[refHi(table.ref[row]!)]!.usage!, refLo(table.ref[row]!)) : undefined;
  return { records: judgeHeld(table, record, judge), ...(input.usage && { usage }) };
}
