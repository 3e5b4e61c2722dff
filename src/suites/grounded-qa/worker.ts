// A worker thread's entry (bundled as dist/qa-worker/index.js): reads chunks of trace lines until none is
// left and posts back where each qid's winning run is, its buffers transferred rather than copied. It needs
// no gold, so it starts while the main thread is still loading it.
import { parentPort, workerData } from 'node:worker_threads';
import { ChunkQueue } from '../../io/chunk-queue.js';
import type { Segment } from '../../io/split.js';
import { scanBuffers, scanRuns, type Scan } from './scan.js';

export interface WorkerInput {
  chunks: Segment[];
  /** The ChunkQueue's state, shared with the other threads. */
  shared: SharedArrayBuffer;
}

export type WorkerMessage = { scan: Scan } | { internal: string };

const input = workerData as WorkerInput;
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

async function main(): Promise<void> {
  const scan = await scanRuns(new ChunkQueue(input.chunks, input.shared));
  post({ scan }, scanBuffers(scan));
}

main().catch((err: unknown) => {
  post({ internal: err instanceof Error ? (err.stack ?? err.message) : String(err) });
});
