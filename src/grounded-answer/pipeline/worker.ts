// A worker thread's entry (bundled as dist/qa-worker/index.js): scans chunks of traces with the source it is
// told (see sources/index.ts), through the adapter (adapter.ts), until none is left and posts back its scan,
// its buffers moved rather than copied; then, for a source that reads back on helpers, reads back the share
// of the winners it is sent. It needs no gold, so it starts while the main thread is still loading it. Given
// the gold files, it digests the gold set on a core that would otherwise idle, after its scan (and before its
// read-back): the digest (canonical JSON and a sha256 per item) was half the time of loading gold. A thread
// that decodes rows of a Parquet file for another (see readParquet) starts here too.
import { parentPort, workerData } from 'node:worker_threads';
import { lineDigests, valueDigest } from '../../gold/digest.js';
import { ChunkQueue } from '../../io/chunk-queue.js';
import { decodeOnThread } from '../../io/parquet.js';
import { takeUtf8Notes } from '../../io/utf8.js';
import { sourceNamed } from '../sources/index.js';
import { readBackShare, scanChunks, threadPlan, transferable } from './adapter.js';
import type { HelpMessage, WorkerInput, WorkerMessage } from './worker-protocol.js';

const input = workerData as WorkerInput;
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

async function main(): Promise<void> {
  if (input.decode) {
    const asked = () => new Promise((next) => parentPort!.once('message', next));
    await decodeOnThread(input.decode, post, asked, valueDigest);
    return;
  }
  const source = sourceNamed(input.source!);
  const queue = new ChunkQueue(input.chunks, input.shared);
  const scan = { ...(await scanChunks(source, queue, input.input!, input.leases)), utf8: takeUtf8Notes() };
  post({ scan }, transferable(scan));
  // Asked to read back, unless stopped, without the scan kept meanwhile; first, when asked, the gold set's
  // digests, while the main thread picks the winners.
  const asked =
    threadPlan(source).keepsHelpers && new Promise<HelpMessage>((next) => parentPort!.once('message', next));
  if (input.gold) await postDigests(input.gold);
  if (!asked) return;
  const { answer, transfer } = readBackShare(source, (await asked).help, input.input!);
  post({ helped: answer }, transfer);
}

async function postDigests(gold: string[]): Promise<void> {
  const digests = await lineDigests(gold).catch(() => null);
  post({ digests }, digests ? [digests.buffer as ArrayBuffer] : []);
}

main().catch((err: unknown) => {
  post({ internal: err instanceof Error ? (err.stack ?? err.message) : String(err) });
});
