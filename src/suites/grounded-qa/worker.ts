// A worker thread's entry (bundled as dist/qa-worker/index.js): reads chunks of trace lines until none is
// left and posts back where each qid's winning run is, its buffers transferred rather than copied. It needs
// no gold, so it starts while the main thread is still loading it. One worker then digests the gold set,
// while the main thread judges: the digest is a third of loading gold, and nothing waits for it until the
// report.
import { parentPort, workerData } from 'node:worker_threads';
import { rawGoldDigest, type RawGoldDigest } from '../../gold/digest.js';
import { ChunkQueue } from '../../io/chunk-queue.js';
import type { Segment } from '../../io/split.js';
import { scanBuffers, scanRuns, type Scan } from './scan.js';

export interface WorkerInput {
  chunks: Segment[];
  /** The ChunkQueue's state, shared with the other threads. */
  shared: SharedArrayBuffer;
  /** The gold files to digest after the scan, for one worker. */
  gold?: string[];
}

/** A digest of null: the gold set could not be digested here (the main thread then does it). */
export type WorkerMessage = { scan: Scan } | { digest: RawGoldDigest | null } | { internal: string };

const input = workerData as WorkerInput;
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

async function main(): Promise<void> {
  const scan = await scanRuns(new ChunkQueue(input.chunks, input.shared));
  post({ scan }, scanBuffers(scan));
  if (!input.gold) return;
  const digest = await rawGoldDigest(input.gold).catch(() => null);
  post({ digest }, digest ? [digest.digests.buffer as ArrayBuffer] : []);
}

main().catch((err: unknown) => {
  post({ internal: err instanceof Error ? (err.stack ?? err.message) : String(err) });
});
