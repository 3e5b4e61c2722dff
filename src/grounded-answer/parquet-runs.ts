import { InputError, type Where } from '../errors.js';
import type { ChunkQueue } from '../io/chunk-queue.js';
import { recordChecker } from '../io/field-map.js';
import { parquetRowGroups, parquetRows } from '../io/records.js';
import type { Segment } from '../io/split.js';
import { TRACE_WHAT, traceLineSchema, traceTest, type GoldItem, type TraceLine } from './contract.js';
import { judgeInto, judgeItem, judgeOptions } from './judge.js';
import type { RecordJudging, RunsLoad } from './load.js';
import { judged, newRunTable, offer, replaces } from './runs.js';
import { timestamp } from './scan.js';
import type { ScoreOptions } from './score.js';
import type { TraceInput } from './source.js';
import { startThreads, stopHelpers, type Cut, type Helper } from './threads.js';

// Parquet traces decoded by threads, a window of rows each at a time: decoding (hyparquet, in JavaScript)
// is most of the time a Parquet run takes. A row is a whole run, so each thread keeps, per qid, its winning
// run (see replaces) and that run's record; this thread folds them into one winner per gold item, the one a
// single pass in file order picks, and judges it. A window's chunk is a Segment whose start and end are
// rows, not bytes.

/** What one thread kept of the windows it decoded: per qid (by slot), its winning run and how many it had. */
export interface ParquetScan {
  qids: string[];
  count: Float64Array;
  ts: Float64Array;
  chunk: Int32Array;
  /** The winning run's row, numbered from 1 in its file. */
  row: Float64Array;
  records: TraceLine[];
  /** Rows read. */
  rows: number;
  utf8?: [string, number][];
  /** The input error that stopped this thread. */
  error?: { chunk: number; where: Where | undefined; detail: string };
}

/** Below this many rows, helpers do not pay for their start: one thread reads each file whole. */
const MIN_THREADED_ROWS = 100_000;
/** Row groups are read together until a window holds this many rows (each window opens the file again). */
const WINDOW_ROWS = 50_000;

/**
 * Windows of whole row groups (a window inside a group decodes the group's pages up to its end), or, under
 * GROUNDGATE_THREADS, 8 windows a thread whatever the groups.
 */
function byRows(files: readonly string[]): Cut {
  return async (threads, forced) => {
    const groups: number[][] = [];
    for (const file of files) groups.push(await parquetRowGroups(file));
    const counts = groups.map((g) => g.reduce((a, b) => a + b, 0));
    const total = counts.reduce((a, b) => a + b, 0);
    const worthIt = forced || (threads > 1 && total >= MIN_THREADED_ROWS);
    const size = forced ? Math.max(1, Math.ceil(total / (threads * 8))) : WINDOW_ROWS;
    const chunks: Segment[] = [];
    files.forEach((file, fileIndex) => {
      const rows = counts[fileIndex]!;
      if (!worthIt || forced) {
        for (let start = 0; start < rows; start += worthIt ? size : rows)
          chunks.push({ file, fileIndex, start, end: worthIt ? Math.min(start + size, rows) : rows });
        return;
      }
      let start = 0;
      let end = 0;
      for (const group of groups[fileIndex]!) {
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

/** Reads the windows this thread claims, keeping per qid its winning run's record. */
export async function scanParquetRuns(queue: ChunkQueue<Segment>, input: TraceInput): Promise<ParquetScan> {
  const checker = recordChecker(traceLineSchema, traceTest, input.fields, TRACE_WHAT);
  const slots = new Map<string, number>();
  const qids: string[] = [];
  const count: number[] = [];
  const ts: number[] = [];
  const chunks: number[] = [];
  const rowAt: number[] = [];
  const records: TraceLine[] = [];
  let rows = 0;
  const result = (error?: ParquetScan['error']): ParquetScan => ({
    qids,
    count: Float64Array.from(count),
    ts: Float64Array.from(ts),
    chunk: Int32Array.from(chunks),
    row: Float64Array.from(rowAt),
    records,
    rows,
    ...(error ? { error } : {}),
  });
  for (let next = queue.claim(); next; next = queue.claim()) {
    const { index: chunk } = next;
    const { file, start, end } = next.chunk;
    try {
      for await (const { line, value } of parquetRows(file, { start, end })) {
        const t = checker.check(value, file, line);
        const time = timestamp(t.ts, file, line);
        rows++;
        const slot = slots.get(t.qid);
        if (slot === undefined) {
          slots.set(t.qid, qids.length);
          qids.push(t.qid);
          count.push(1);
          ts.push(time);
          chunks.push(chunk);
          rowAt.push(line);
          records.push(t);
          continue;
        }
        count[slot]!++;
        if (!replaces(time, chunk, line, ts[slot]!, chunks[slot]!, rowAt[slot]!)) continue;
        ts[slot] = time;
        chunks[slot] = chunk;
        rowAt[slot] = line;
        records[slot] = t;
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      queue.fail(chunk);
      return result({ chunk, where: err.where, detail: err.detail });
    }
  }
  return result();
}

/** The buffers a ParquetScan can hand to another thread without copying. */
export function parquetScanBuffers(s: ParquetScan): ArrayBuffer[] {
  return [s.count, s.ts, s.chunk, s.row].map((a) => a.buffer as ArrayBuffer);
}

/** Starts decoding Parquet traces (every file Parquet) while gold loads. */
export function startParquetJudging(
  files: readonly string[],
  options: ScoreOptions,
  input: TraceInput,
): RecordJudging {
  const started = startThreads<ParquetScan>({ parquet: input }, byRows(files));
  // A trace file that is missing or not Parquet is reported by finish(), after the gold set's own errors.
  started.catch(() => undefined);
  return {
    async cancel() {
      const { helpers } = await started.catch(() => ({ helpers: [] as Helper<ParquetScan>[] }));
      await stopHelpers(helpers);
    },
    async finish(gold) {
      const { chunks, queue, helpers } = await started;
      const settled = await Promise.allSettled([
        scanParquetRuns(queue, input),
        ...helpers.map((h) => h.scan),
      ]);
      await stopHelpers(helpers);
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      const scans = settled.map((r) => (r as PromiseFulfilledResult<ParquetScan>).value);
      return judgeParquet(scans, chunks, gold, options);
    },
  };
}

function judgeParquet(
  scans: readonly ParquetScan[],
  chunks: readonly Segment[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
): RunsLoad {
  const errors = scans.flatMap((s) => (s.error ? [s.error] : [])).sort((a, b) => a.chunk - b.chunk);
  if (errors.length > 0) throw new InputError(errors[0]!.where, errors[0]!.detail);
  const rows = new Map<string, number>();
  gold.forEach((g, i) => rows.set(g.qid, i));
  const table = newRunTable(gold.length, options.cutoffs.length);
  const records: (TraceLine | undefined)[] = new Array(gold.length);
  const unknown = new Map<string, number>();
  let read = 0;
  let known = 0;
  for (const s of scans) {
    read += s.rows;
    s.qids.forEach((qid, slot) => {
      const row = rows.get(qid);
      if (row === undefined) return void unknown.set(qid, (unknown.get(qid) ?? 0) + s.count[slot]!);
      known += s.count[slot]!;
      const run = {
        ts: s.ts[slot]!,
        chunk: s.chunk[slot]!,
        offset: s.row[slot]!,
        line: s.row[slot]!,
        length: 0,
      };
      if (offer(table, row, run)) records[row] = s.records[slot];
    });
  }
  const judge = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs);
  for (let row = 0; row < gold.length; row++) {
    const t = records[row];
    if (t) judgeInto(judgeItem(gold[row]!, options.scuRules), t, judge, table, row);
  }
  return {
    ...judged(table, read, known, unknown, options),
    ref: (row) =>
      table.present[row]
        ? { file: chunks[table.chunk[row]!]!.file, line: table.line[row]!, offset: -1, length: 0 }
        : undefined,
    record: (row) => records[row],
  };
}
