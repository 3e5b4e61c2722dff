import { ChunkQueue } from '../../io/chunk-queue.js';
import type { Segment } from '../../io/split.js';
import type { ThreadScan } from './chunk-scan.js';
import { byFiles, byGroups, byLines, stopHelpers, type Cut, type Helper } from './threads.js';
import type { HelperShares, Layout, TraceSource } from '../sources/source.js';
import type { TraceInput } from '../trace-input.js';
import type { LeaseTable } from './worker-protocol.js';

// The one adapter between a trace source and the threads that read it (pipeline.ts, worker.ts): a source
// declares what its input is (its layout), how a thread scans chunks, whether a chunk can get stuck and
// whether it reads back on helpers; from that alone come how the input is cut, whether helpers may run,
// whether the main thread reads or watches, where the gold set is digested, and what crosses between threads
// moved rather than copied.

/** How threads run a source, derived from what it declares. */
export interface ThreadPlan {
  cut(files: readonly string[]): Cut;
  /** Read on this thread alone, whatever GROUNDGATE_THREADS says: an input that cannot be cut. */
  alone: boolean;
  /** False when the main thread watches the helpers' chunks (see TraceSource.stuck) rather than reading. */
  mainReads: boolean;
  /**
   * Where a JSON Lines gold set is digested when a core is spare for it: by the first helper between its scan
   * and its read-back, when helpers stay for one (the main thread picks meanwhile); by a fresh helper once
   * the scans of lines are in, their helpers gone with their heaps before judging takes memory of its own
   * (BENCHMARKS.md); otherwise by this thread as it loads gold (a cold helper started once the scans of
   * records were in took longer than what remained of the run: BENCHMARKS.md).
   */
  digest: 'after-scan' | 'first-helper' | 'none';
  /** Helpers stay after their scans, to read back (see TraceSource.readBackOnHelper). */
  keepsHelpers: boolean;
}

export function threadPlan(source: TraceSource): ThreadPlan {
  const { chunks, heap } = source.layout;
  const alone = chunks === 'files';
  const keepsHelpers = source.readBackOnHelper !== undefined;
  return {
    cut: (files) => cutOf(chunks, files),
    alone,
    mainReads: source.stuck === undefined,
    digest: alone ? 'none' : keepsHelpers ? 'first-helper' : heap === 'lines' ? 'after-scan' : 'none',
    keepsHelpers,
  };
}

function cutOf(chunks: Layout['chunks'], files: readonly string[]): Cut {
  if (chunks === 'lines') return byLines(files);
  if (chunks === 'files') return byFiles(files);
  return 'linesUpTo' in chunks ? byLines(files, chunks.linesUpTo) : byGroups(files, chunks.groups);
}

/**
 * The buffers a value a thread is done with crosses to another with, moved rather than copied: those of its
 * typed arrays and ArrayBuffers, in its members and theirs, and in arrays of them; never a shared one. (A
 * string or a number array is cloned.)
 */
export function transferable(value: object): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  const add = (v: unknown) => {
    if (v instanceof ArrayBuffer) buffers.add(v);
    else if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer) buffers.add(v.buffer);
  };
  const walk = (v: unknown, depth: number): void => {
    if (typeof v !== 'object' || v === null) return;
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return add(v);
    if (Array.isArray(v)) {
      // Arrays of buffers (decoded pages) are moved; arrays of strings, numbers or tuples are not looked into.
      if (v[0] instanceof ArrayBuffer || ArrayBuffer.isView(v[0])) v.forEach(add);
      return;
    }
    if (depth > 0) for (const member of Object.values(v)) walk(member, depth - 1);
  };
  walk(value, 3);
  return [...buffers];
}

/** On a helper: its share of the winners read back as its source declares, and the buffers moved with it. */
export function readBackShare(
  source: TraceSource,
  share: unknown,
  input: TraceInput,
): { answer: object; transfer: ArrayBuffer[] } {
  const answer = source.readBackOnHelper!(share, input);
  return { answer, transfer: transferable(answer) };
}

// A chunk that never ends: when a source declares it can get stuck, each helper stamps in a table shared
// with the main thread when it began each chunk (as it claims it) and that it is done with it, and the main
// thread checks the table every second.

/** A table of when each chunk's reading began, one slot per chunk (see LeaseTable). */
export const leaseTable = (chunks: number): LeaseTable => ({
  shared: new SharedArrayBuffer(4 * Math.max(1, chunks)),
  base: Math.floor(Date.now() / 1000),
});

/** A queue whose chunks are stamped in a lease table as they are claimed, failed, and done with. */
class LeasedQueue<T> extends ChunkQueue<T> {
  private readonly lease: Int32Array;
  private held = -1;

  constructor(
    chunks: readonly T[],
    shared: SharedArrayBuffer,
    private readonly leases: LeaseTable,
  ) {
    super(chunks, shared);
    this.lease = new Int32Array(leases.shared);
  }

  override claim(): { index: number; chunk: T } | undefined {
    this.release();
    const next = super.claim();
    if (next) {
      this.held = next.index;
      Atomics.store(this.lease, next.index, Math.max(1, Math.ceil(Date.now() / 1000 - this.leases.base)));
    }
    return next;
  }

  override fail(index: number): void {
    super.fail(index);
    this.release();
  }

  /** The chunk being read is done with (read, failed, or given up). */
  release(): void {
    if (this.held >= 0) Atomics.store(this.lease, this.held, -1);
    this.held = -1;
  }
}

/**
 * Scans the chunks this thread claims with `source`: on a helper watched through `leases`, each stamped as
 * it goes (see LeasedQueue).
 */
export async function scanChunks<S extends object>(
  source: TraceSource<S>,
  queue: ChunkQueue<Segment>,
  input: TraceInput,
  leases?: LeaseTable,
): Promise<S> {
  if (!leases) return source.scan(queue, input, { watched: false });
  const leased = new LeasedQueue(queue.chunks, queue.shared, leases);
  try {
    return await source.scan(leased, input, { watched: true });
  } finally {
    leased.release();
  }
}

/**
 * Rejects with the source's input error when a helper has been reading one chunk for longer than the source
 * allows (checked every second); stop() ends the watch.
 */
export function watchLeases(
  stuck: NonNullable<TraceSource['stuck']>,
  leases: LeaseTable,
  chunks: readonly Segment[],
): { stuck: Promise<never>; stop(): void } {
  const lease = new Int32Array(leases.shared);
  const limit = stuck.seconds();
  let timer: NodeJS.Timeout | undefined;
  const found = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const now = Date.now() / 1000 - leases.base;
      for (let i = 0; i < chunks.length; i++) {
        const began = Atomics.load(lease, i);
        if (began <= 0 || now - began <= limit) continue;
        clearInterval(timer);
        return reject(stuck.error(chunks[i]!, limit));
      }
    }, 1000);
  });
  found.catch(() => undefined);
  return { stuck: found, stop: () => clearInterval(timer) };
}

/** The helpers' read-back, as a source sees it (see HelperShares). */
export function helperShares(helpers: readonly Helper<ThreadScan>[]): HelperShares {
  return {
    count: helpers.length,
    readBack<R>(p: number, share: unknown, transfer: ArrayBuffer[]) {
      const helper = helpers[p]!;
      const answered = (async () => {
        const answer = share === undefined ? undefined : await helper.help<R>(share, transfer);
        // Its heap is let go before the report is made, the run's peak (once it has digested gold, if asked).
        await helper.digests;
        await stopHelpers([helper]);
        return answer;
      })();
      // The source may wait on another helper's answer first: this one's failure is not unhandled meanwhile.
      answered.catch(() => undefined);
      return answered;
    },
  };
}
