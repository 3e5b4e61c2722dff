import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InputError } from '../src/errors.js';
import { ChunkQueue } from '../src/io/chunk-queue.js';
import type { Segment } from '../src/io/split.js';
import {
  leaseTable,
  scanChunks,
  threadPlan,
  transferable,
  watchLeases,
} from '../src/grounded-answer/pipeline/adapter.js';
import { sourceFor } from '../src/grounded-answer/sources/index.js';
import type { TraceSource } from '../src/grounded-answer/sources/source.js';
import type { TraceInput } from '../src/grounded-answer/trace-input.js';

// The adapter derives how threads run a source from what the source declares: these pin what it derives
// for each registered source, what crosses between threads moved, and the watch on a chunk that never ends.

const input = (format: string, qid = 'input.value') => ({ format, qid }) as TraceInput;

describe('the thread plan derived from a source', () => {
  const plan = (files: string[], format: string) => {
    const { alone, mainReads, digest, keepsHelpers } = threadPlan(sourceFor(files, input(format)));
    return { alone, mainReads, digest, keepsHelpers };
  };

  it('JSON Lines: cut, read by every thread, gold digested by a fresh helper after the scans', () => {
    expect(plan(['t.jsonl'], 'jsonl')).toEqual({
      alone: false,
      mainReads: true,
      digest: 'after-scan',
      keepsHelpers: false,
    });
  });

  it('OTLP lines: helpers stay to read back, the first digests gold between its scan and its share', () => {
    expect(plan(['s.jsonl'], 'openinference')).toEqual({
      alone: false,
      mainReads: true,
      digest: 'first-helper',
      keepsHelpers: true,
    });
  });

  it('Parquet: the main thread watches the helpers for a stuck window, and digests gold itself', () => {
    expect(plan(['a.parquet'], 'jsonl')).toEqual({
      alone: false,
      mainReads: false,
      digest: 'none',
      keepsHelpers: false,
    });
  });

  it('records assembled across files: this thread alone', () => {
    expect(plan(['d.json'], 'openinference')).toEqual({
      alone: true,
      mainReads: true,
      digest: 'none',
      keepsHelpers: false,
    });
  });
});

describe('what crosses between threads, moved', () => {
  it("is every distinct buffer of a value's typed arrays, nested members and arrays of buffers; never shared memory, strings or numbers", () => {
    const ts = new Float64Array([1, 2]);
    const at = new Int32Array(8);
    const page = new ArrayBuffer(16);
    const other = new ArrayBuffer(4);
    const lines = new Uint8Array(32);
    const value = {
      qids: ['a', 'b'],
      ts,
      // Two views of one buffer: it is moved once (moving it twice is a DataCloneError).
      chunk: new Int32Array(lines.buffer, 0, 2),
      traceIds: { bytes: lines.subarray(8), at },
      held: { lines: new Uint8Array(0), pages: [page, other], members: new Float64Array(6) },
      shared: new Int32Array(new SharedArrayBuffer(8)),
      failed: [[0, undefined, 'x']],
      rows: 3,
    };
    const moved = transferable(value);
    expect(moved).toHaveLength(7);
    expect(new Set(moved)).toEqual(
      new Set([
        ts.buffer,
        lines.buffer,
        at.buffer,
        value.held.lines.buffer,
        page,
        other,
        value.held.members.buffer,
      ]),
    );
  });

  it('leaves the sender none of them: posted with them, every typed array is detached here and whole there', () => {
    const scan = {
      qids: ['q1', 'q2'],
      ts: Float64Array.from([5, 6]),
      held: { at: Float64Array.from([0, 3, 7]), pages: [Uint8Array.from([9, 8]).buffer] },
    };
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(scan, transferable(scan));
    const got = receiveMessageOnPort(port2)!.message as typeof scan;
    port1.close();
    expect(scan.ts.byteLength).toBe(0);
    expect(scan.held.at.byteLength).toBe(0);
    expect(scan.held.pages[0]!.byteLength).toBe(0);
    expect([...got.ts]).toEqual([5, 6]);
    expect([...got.held.at]).toEqual([0, 3, 7]);
    expect([...new Uint8Array(got.held.pages[0]!)]).toEqual([9, 8]);
    expect(got.qids).toEqual(['q1', 'q2']);
  });
});

describe('a chunk that never ends', () => {
  afterEach(() => void vi.useRealTimers());

  const chunks: Segment[] = [
    { file: 'a.rows', fileIndex: 0, start: 0, end: 10 },
    { file: 'a.rows', fileIndex: 0, start: 10, end: 20 },
    { file: 'b.rows', fileIndex: 1, start: 0, end: 5 },
  ];
  const stuck = {
    seconds: () => 3,
    error: (c: Segment, s: number) =>
      new InputError({ file: c.file, line: c.start + 1 }, `stuck past ${s} s`),
  };
  /** A source whose scan reads chunks until `stopAt`, where it waits for `go` (never, unless given). */
  const waiting = (stopAt: number, go: Promise<void>, seen: { watched?: boolean }) =>
    ({
      stuck,
      async scan(queue, _, { watched }) {
        seen.watched = watched;
        for (let next = queue.claim(); next; next = queue.claim()) if (next.index === stopAt) await go;
        return {};
      },
    }) as Pick<TraceSource, 'stuck' | 'scan'> as TraceSource;

  it('is stamped as a watched scan claims it and released when it is done with, whatever its end', async () => {
    const leases = leaseTable(chunks.length);
    const lease = new Int32Array(leases.shared);
    let go!: () => void;
    const seen: { watched?: boolean } = {};
    const scanning = scanChunks(
      waiting(1, new Promise<void>((r) => (go = r)), seen),
      new ChunkQueue(chunks),
      input('rows'),
      leases,
    );
    await Promise.resolve();
    expect(seen.watched).toBe(true);
    // Chunk 0 read and done with, chunk 1 begun (a second from the table's base at least), chunk 2 not yet.
    expect(lease[0]).toBe(-1);
    expect(lease[1]).toBeGreaterThanOrEqual(1);
    expect(lease[2]).toBe(0);
    go();
    await scanning;
    expect([...lease]).toEqual([-1, -1, -1]);

    // A scan that throws in a chunk lets it go too.
    const failing = leaseTable(chunks.length);
    const thrown = {
      async scan(queue) {
        queue.claim();
        throw new Error('internal');
      },
    } as Pick<TraceSource, 'scan'> as TraceSource;
    await expect(scanChunks(thrown, new ChunkQueue(chunks), input('rows'), failing)).rejects.toThrow();
    expect([...new Int32Array(failing.shared)]).toEqual([-1, 0, 0]);
  });

  it('an unwatched scan (the main thread alone) is told so and guards itself', async () => {
    const seen: { watched?: boolean } = {};
    await scanChunks(waiting(-1, Promise.resolve(), seen), new ChunkQueue(chunks), input('rows'));
    expect(seen.watched).toBe(false);
  });

  it("rejects with the source's error naming the chunk once it has taken longer than the source allows", async () => {
    vi.useFakeTimers();
    const leases = leaseTable(chunks.length);
    void scanChunks(
      waiting(2, new Promise<void>(() => undefined), {}),
      new ChunkQueue(chunks),
      input('rows'),
      leases,
    );
    await Promise.resolve();
    const watch = watchLeases(stuck, leases, chunks);
    let error: unknown;
    watch.stuck.catch((e: unknown) => (error = e));
    await vi.advanceTimersByTimeAsync(3000);
    expect(error).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2000);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe('b.rows:1: stuck past 3 s');
    watch.stop();
  });

  it('never rejects while every chunk ends in time', async () => {
    vi.useFakeTimers();
    const leases = leaseTable(chunks.length);
    await scanChunks(waiting(-1, Promise.resolve(), {}), new ChunkQueue(chunks), input('rows'), leases);
    const watch = watchLeases(stuck, leases, chunks);
    let error: unknown;
    watch.stuck.catch((e: unknown) => (error = e));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(error).toBeUndefined();
    watch.stop();
  });
});
