import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { HELPER_LIMITS } from '../../engine-thread.js';
import { InputError, preview } from '../../errors.js';
import { helperBundle } from '../../helper-bundle.js';
import { ChunkQueue } from '../../io/chunk-queue.js';
import { splitLines, type Segment } from '../../io/split.js';
import { noteInvalidUtf8 } from '../../io/utf8.js';
import type { ThreadScan } from './chunk-scan.js';
import type { WorkerInput, WorkerMessage } from './worker-protocol.js';

// Reading a large trace input on several threads, whatever its source (see pipeline.ts): the input is cut
// into chunks (of whole lines: byLines; a source may cut its own), handed out in order from a shared queue to
// the main thread and the helpers, each of which answers with its scan.

/** Traces are read in chunks of at least this size; a thread takes the next chunk when done with one. */
const CHUNK_BYTES = 8 * 1024 * 1024;
const CHUNKS_PER_THREAD = 8;
/** Below this much trace input a worker does not pay for its start (about 50 ms). */
const MIN_THREADED_BYTES = 64 * 1024 * 1024;
const MAX_THREADS = 4;
/** Chunks cut by size (see startThreads) are no more than this many. */
const MAX_CHUNKS = 1 << 16;
/** Below this many records in groups, helpers do not pay for their start: one thread reads each file whole. */
const MIN_THREADED_RECORDS = 100_000;
/** Groups are read together until a window holds this many records (each window opens the file again). */
const WINDOW_RECORDS = 50_000;

/** Chunks of the input, the queue they are handed out from, and the helpers already reading them. */
export interface Threads<T extends ThreadScan> {
  chunks: Segment[];
  queue: ChunkQueue<Segment>;
  helpers: Helper<T>[];
  /** The worker's bundle, when helpers were started (a digesting one can then be too). */
  entry: string | undefined;
}

/** A helper's work, but for the chunks. */
type Job = Omit<WorkerInput, 'chunks' | 'shared'>;

/** The chunks a job is cut into, for `threads` threads, and whether helpers are worth starting for them. */
export type Cut = (threads: number, forced: boolean) => Promise<{ chunks: Segment[]; worthIt: boolean }>;

/**
 * Cuts the input into chunks and starts helpers on them when the input is worth it (GROUNDGATE_THREADS, when
 * set, is obeyed whatever the size). The main thread is to read its share from the same queue.
 */
export function startThreads<T extends ThreadScan>(
  /** What the helpers do, or how to tell each (by its index) once the chunks are known. */
  job: Job | ((chunks: readonly Segment[], helper: number) => Job),
  cut: Cut,
  /** False when the main thread reads no chunk itself (it watches the helpers): one helper more. */
  mainReads = true,
  /** True when the input is read by this thread alone, whatever GROUNDGATE_THREADS says. */
  alone = false,
): Promise<Threads<T>> {
  const { threads, forced } = alone ? { threads: 1, forced: false } : threadCount();
  const workerEntry = threads > 1 ? helperBundle() : undefined;
  return (async () => {
    // GROUNDGATE_THREADS cuts even a small input in chunks for its threads (read by this thread alone when
    // there is no worker bundle, run from sources), so that tests see them.
    const { chunks, worthIt } = await cut(workerEntry || forced ? threads : 1, forced);
    const queue = new ChunkQueue(chunks);
    const told = (i: number) => (typeof job === 'function' ? job(chunks, i) : job);
    const helpers =
      workerEntry && worthIt
        ? Array.from(
            {
              length: mainReads ? Math.min(threads - 1, chunks.length - 1) : Math.min(threads, chunks.length),
            },
            (_, i) => spawn<T>(workerEntry, { ...told(i), chunks, shared: queue.shared }),
          )
        : [];
    return { chunks, queue, helpers, entry: helpers.length > 0 ? workerEntry : undefined };
  })();
}

/**
 * Runs of whole lines: 8 a thread (one for one thread), of at least 8 MB unless GROUNDGATE_THREADS is set; or, given
 * `chunkBytes`, of about that size however many threads read them (for a thread that holds a chunk's data
 * until its end).
 */
export function byLines(files: readonly string[], chunkBytes?: number): Cut {
  return async (threads, forced) => {
    const bySize = chunkBytes !== undefined && !forced;
    // GROUNDGATE_THREADS cuts even a small input into 8 chunks a thread; a thread that holds a chunk's data
    // until its end still gets none larger than chunkBytes, so that its peak stays that of small chunks.
    const parts = await splitLines(
      files,
      bySize ? MAX_CHUNKS : threads > 1 ? threads * CHUNKS_PER_THREAD : 1,
      bySize ? chunkBytes : forced ? 0 : CHUNK_BYTES,
      forced && chunkBytes !== undefined ? chunkBytes : Infinity,
      MAX_CHUNKS,
    );
    const chunks = parts.flat();
    const bytes = chunks.reduce((n, c) => n + c.end - c.start, 0);
    return { chunks, worthIt: forced ? chunks.length > 1 : bytes >= MIN_THREADED_BYTES };
  };
}

/**
 * Windows of whole groups of records, `groupsOf` giving a file's group sizes (a window inside a group decodes
 * the group's pages up to its end): of at least WINDOW_RECORDS records, or 8 a thread under
 * GROUNDGATE_THREADS; each file whole when threads are not worth it. A window's start and end are records,
 * not bytes. A file whose groups cannot be read gets one empty window, so that its error comes after the
 * records of the files before it, as in a single pass.
 */
export function byGroups(files: readonly string[], groupsOf: (file: string) => Promise<number[]>): Cut {
  return async (threads, forced) => {
    const groups: (number[] | undefined)[] = [];
    for (const file of files)
      groups.push(
        await groupsOf(file).catch((err: unknown) => {
          if (err instanceof InputError) return undefined;
          throw err;
        }),
      );
    const total = groups.reduce((n, g) => n + (g ?? []).reduce((a, b) => a + b, 0), 0);
    const worthIt = forced || (threads > 1 && total >= MIN_THREADED_RECORDS);
    const size = !worthIt ? Infinity : forced ? Math.ceil(total / (threads * 8)) : WINDOW_RECORDS;
    const chunks: Segment[] = [];
    files.forEach((file, fileIndex) => {
      const sizes = groups[fileIndex];
      if (!sizes) return void chunks.push({ file, fileIndex, start: 0, end: 0 });
      let start = 0;
      let end = 0;
      for (const group of sizes) {
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

/** Each file a chunk, never worth helpers. */
export const byFiles =
  (files: readonly string[]): Cut =>
  () =>
    Promise.resolve({
      chunks: files.map((file, fileIndex) => ({ file, fileIndex, start: 0, end: 0 })),
      worthIt: false,
    });

/**
 * Waits for every thread's scan, then stops the helpers (heaps and all) and gives the scans in the order
 * given, or throws the first failure.
 */
export async function gatherScans<T>(
  scans: readonly Promise<T>[],
  helpers: readonly Helper<ThreadScan>[],
  /** Leaves the helpers running after their scans, to read back (see Helper.help); not on a failure. */
  keep = false,
): Promise<T[]> {
  const settled = await Promise.allSettled(scans);
  const failed = settled.find((r) => r.status === 'rejected');
  if (!keep || failed) await stopHelpers(helpers);
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

export const stopHelpers = (helpers: readonly Helper<ThreadScan>[]): Promise<number[]> =>
  Promise.all(helpers.map((h) => h.worker.terminate()));

/** GROUNDGATE_THREADS when set (and then obeyed whatever the input's size), else the machine's cores. */
function threadCount(): { threads: number; forced: boolean } {
  const env = process.env.GROUNDGATE_THREADS;
  if (env === undefined || env === '')
    return { threads: Math.min(availableParallelism(), MAX_THREADS), forced: false };
  const n = Number(env);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new InputError(
      undefined,
      `GROUNDGATE_THREADS=${preview(env)}: expected a whole number from 1 to 64`,
    );
  return { threads: n, forced: true };
}

export interface Helper<T extends ThreadScan> {
  worker: Worker;
  scan: Promise<T>;
  /** Gold lines' digests, when the worker was asked for them; null when it could not make them or was not asked. */
  digests: Promise<Uint8Array | null>;
  /** Asks a helper done scanning to read back its share of the winners (see HelperShares), once. */
  help<R>(job: unknown, transfer: ArrayBuffer[]): Promise<R>;
}

export function spawn<T extends ThreadScan>(file: string, input: WorkerInput): Helper<T> {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const worker = new Worker(file, { workerData: input, resourceLimits: HELPER_LIMITS });
  let answer!: (scan: T) => void;
  let fail!: (err: unknown) => void;
  let digested!: (digests: Uint8Array | null) => void;
  const scan = new Promise<T>((resolve, reject) => ([answer, fail] = [resolve, reject]));
  const digests = new Promise<Uint8Array | null>((resolve) => (digested = resolve));
  let gotHelp!: (answer: unknown) => void;
  let helpFailed!: (err: unknown) => void;
  const helped = new Promise<unknown>((resolve, reject) => ([gotHelp, helpFailed] = [resolve, reject]));
  helped.catch(() => undefined);
  if (!input.gold) digested(null);
  // A promise settles once: whatever comes after the answer it was waiting for changes nothing.
  const failed = (err: unknown) => {
    fail(err);
    digested(null);
    helpFailed(err);
  };
  worker.on('message', (m: WorkerMessage) => {
    if ('scan' in m) {
      for (const [file, offset] of m.scan.utf8 ?? []) noteInvalidUtf8(file, offset);
      answer(m.scan as unknown as T);
    } else if ('helped' in m) gotHelp(m.helped);
    else if ('digests' in m) digested(m.digests);
    else if ('internal' in m) failed(new Error(`grounded-qa worker failed: ${m.internal}`));
  });
  worker.once('error', failed);
  worker.once('exit', (code) =>
    failed(new Error(`grounded-qa worker exited with code ${code} before answering`)),
  );
  // finish() may never wait on it (the gold set failed): its rejection must not go unhandled meanwhile.
  scan.catch(() => undefined);
  const help = <R>(job: unknown, transfer: ArrayBuffer[]) => {
    worker.postMessage({ help: job }, transfer);
    return helped as Promise<R>;
  };
  return { worker, scan, digests, help };
}
