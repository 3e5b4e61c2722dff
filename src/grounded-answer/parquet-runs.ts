import { traceChecker } from './trace-checks.js';
import { InputError } from '../errors.js';
import type { ChunkQueue } from '../io/chunk-queue.js';
import { parquetRowGroups } from '../io/records.js';
import { decodeSeconds, notDecoded } from '../io/parquet-limits.js';
import type { Segment } from '../io/split.js';
import type { GoldItem, TraceLine } from './contract.js';
import { NO_DIGESTER } from './gold-digesting.js';
import type { RecordJudging, RunsLoad } from './load.js';
import { heldRuns, inMemory, judgeHeld, newRunTable, offer, replaces } from './runs.js';
import { timestamp } from './scan.js';
import type { ScoreOptions } from './score.js';
import type { TraceInput } from './source.js';
import { heldBuffers, heldReader, holdRuns, type HeldRuns, type RawMembers } from './held-lines.js';
import { ANSWER, memberShapes, STRINGS } from './member-shapes.js';
import {
  gatherScans,
  startThreads,
  stopHelpers,
  throwFirstError,
  type ChunkError,
  type Cut,
  type Helper,
} from './threads.js';

// Parquet traces decoded by threads, a window of rows each at a time: decoding (hyparquet, in JavaScript)
// is most of the time a Parquet run takes. A row is a whole run, so each thread keeps, per qid, its winning
// run (see replaces) and what judging reads of it; this thread folds them into one winner per gold item, the
// one a single pass in file order picks, and judges it. A window's chunk is a Segment whose start and end
// are rows, not bytes.

/** What one thread kept of the windows it decoded: per qid (by slot), its winning run and how many it had. */
export interface ParquetScan {
  qids: string[];
  count: Float64Array;
  ts: Float64Array;
  chunk: Int32Array;
  /** The winning run's row, numbered from 1 in its file. */
  row: Float64Array;
  /** What judging reads of each slot's winning run (see held-lines.ts). */
  held: HeldRuns;
  /** Rows read. */
  rows: number;
  utf8?: [string, number][];
  /** The input error that stopped this thread. */
  error?: ChunkError;
}

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

/**
 * When each window's decoding began, in seconds from `base` (epoch seconds), per chunk: 0 before, -1 once
 * done. Helpers decode on their own thread and the main thread watches them here: a corrupt page can send
 * the decoder into a loop that never ends (see readParquet, which guards a read on one thread).
 */
export interface Leases {
  shared: SharedArrayBuffer;
  base: number;
}

/**
 * Reads the windows this thread claims, keeping per qid its winning run's record. A helper, watched through
 * `leases`, decodes on its own thread; the main thread (no leases) reads through the guarded readParquet.
 */
export async function scanParquetRuns(
  queue: ChunkQueue<Segment>,
  input: TraceInput,
  leases?: Leases,
): Promise<ParquetScan> {
  const { readParquet, readParquetHere, JsonText } = await import('../io/parquet.js');
  const lease = leases && new Int32Array(leases.shared);
  // On a helper's own decoding, the JSON of a trace in the contract's shape is checked on its bytes and kept
  // as bytes; only the winners are read, on the judging thread.
  const rawJson = lease && !input.fields ? RAW_JSON : undefined;
  const shapeOf = memberShapes();
  /** The JSON bytes of a row's members retrieved_ids and answer_json, when both check on their bytes. */
  const rawMembers = (row: Record<string, unknown>): RawMembers | undefined => {
    const ids = row.retrieved_ids;
    const answer = row.answer_json;
    const idsRaw = ids instanceof JsonText;
    const answerRaw = answer instanceof JsonText;
    // A row with a refused flag is read whole: the flag is judged with the members.
    if (
      idsRaw &&
      answerRaw &&
      ids.shape === STRINGS &&
      answer.shape === ANSWER &&
      row.refused === undefined
    ) {
      // Values the contract accepts stand in for the two checked, so the rest of the row checks as it would.
      row.retrieved_ids = NO_IDS;
      row.answer_json = NO_ANSWER;
      return [ids.bytes, answer.bytes];
    }
    if (idsRaw) row.retrieved_ids = ids.value();
    if (answerRaw) row.answer_json = answer.value();
    return undefined;
  };
  const checker = traceChecker(input);
  const slots = new Map<string, number>();
  const qids: string[] = [];
  const count: number[] = [];
  const ts: number[] = [];
  const chunks: number[] = [];
  const rowAt: number[] = [];
  /**
   * Per slot, the winning run: its record, or the JSON bytes of its members judging reads, checked on their
   * bytes, as views of the pages they were decoded in. Decoding or copying every run's members instead cost
   * more than the pages kept: most runs are superseded.
   */
  const records: (TraceLine | RawMembers)[] = [];
  let rows = 0;
  const result = (error?: ParquetScan['error']): ParquetScan => ({
    qids,
    count: Float64Array.from(count),
    ts: Float64Array.from(ts),
    chunk: Int32Array.from(chunks),
    row: Float64Array.from(rowAt),
    held: holdRuns(qids, records),
    rows,
    ...(error ? { error } : {}),
  });
  for (let next = queue.claim(); next; next = queue.claim()) {
    const { index: chunk } = next;
    const { file, start, end } = next.chunk;
    if (lease) Atomics.store(lease, chunk, Math.max(1, Math.ceil(Date.now() / 1000 - leases!.base)));
    try {
      const range = { start, end, rawJson, shapeOf };
      for await (const { line, value } of (lease ? readParquetHere : readParquet)(file, range)) {
        const raw = rawJson && rawMembers(value as Record<string, unknown>);
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
          records.push(raw || t);
          continue;
        }
        count[slot]!++;
        if (!replaces(time, chunk, line, ts[slot]!, chunks[slot]!, rowAt[slot]!)) continue;
        ts[slot] = time;
        chunks[slot] = chunk;
        rowAt[slot] = line;
        records[slot] = raw || t;
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      queue.fail(chunk);
      return result({ chunk, where: err.where, detail: err.detail });
    } finally {
      if (lease) Atomics.store(lease, chunk, -1);
    }
  }
  return result();
}

const RAW_JSON: ReadonlySet<string> = new Set(['retrieved_ids', 'answer_json']);
const NO_IDS: readonly string[] = [];
const NO_ANSWER = { claim: '', citations: [] };

/** The buffers a ParquetScan can hand to another thread without copying. */
export function parquetScanBuffers(s: ParquetScan): ArrayBuffer[] {
  return [...[s.count, s.ts, s.chunk, s.row].map((a) => a.buffer as ArrayBuffer), ...heldBuffers(s.held)];
}

/** Starts decoding Parquet traces (every file Parquet) while gold loads. */
export function startParquetJudging(
  files: readonly string[],
  options: ScoreOptions,
  input: TraceInput,
): RecordJudging {
  const base = Math.floor(Date.now() / 1000);
  let leases: Leases | undefined;
  const started = startThreads<ParquetScan>(
    (chunks) => {
      // One lease table, which every helper shares.
      leases ??= { shared: new SharedArrayBuffer(4 * Math.max(1, chunks.length)), base };
      return { parquet: input, leases };
    },
    byRows(files),
    false,
  );
  // A trace file that is missing or not Parquet is reported by finish(), after the gold set's own errors.
  started.catch(() => undefined);
  return {
    ...NO_DIGESTER,
    async cancel() {
      const { helpers } = await started.catch(() => ({ helpers: [] as Helper<ParquetScan>[] }));
      await stopHelpers(helpers);
    },
    async finish(gold) {
      const { chunks, queue, helpers } = await started;
      // With helpers, this thread only watches them; without, it reads every window through readParquet.
      const watch = helpers.length > 0 ? watchLeases(leases!, chunks) : undefined;
      const scans = await gatherScans(
        helpers.length > 0
          ? helpers.map((h) => Promise.race([h.scan, watch!.stuck]))
          : [scanParquetRuns(queue, input)],
        helpers,
      ).finally(() => watch?.stop());
      return judgeParquet(scans, chunks, gold, options);
    },
  };
}

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

function judgeParquet(
  scans: readonly ParquetScan[],
  chunks: readonly Segment[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
): RunsLoad {
  throwFirstError(scans);
  const rows = new Map<string, number>();
  gold.forEach((g, i) => rows.set(g.qid, i));
  const table = newRunTable(gold.length, options.cutoffs.length);
  /** The scan and slot of each gold item's winning run. */
  const wonScan = new Int32Array(gold.length);
  const wonSlot = new Int32Array(gold.length);
  const unknown = new Map<string, number>();
  let read = 0;
  let known = 0;
  scans.forEach((s, k) => {
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
      if (!offer(table, row, run)) return;
      wonScan[row] = k;
      wonSlot[row] = slot;
    });
  });
  // Only the winners are read, and each when asked: 100k runs kept as objects cost their copying by the
  // young generation's collections (0.6 s).
  const judgedAt = heldReader();
  const record = (row: number) =>
    table.present[row] ? judgedAt(scans[wonScan[row]!]!.held, wonSlot[row]!) : undefined;
  judgeHeld(table, gold, record, options);
  return heldRuns(
    table,
    inMemory(record),
    (row) => chunks[table.chunk[row]!]!.file,
    read,
    known,
    unknown,
    options,
  );
}
