// A worker thread's entry (bundled as dist/qa-worker/index.js): reads chunks of trace lines until none is
// left and posts back what it found, its buffers transferred rather than copied: where each qid's winning
// run is (JSON Lines), each trace assembled from its chunk (OTLP, see otlp-runs.ts, and then the winners it
// is asked to read back, see otlp-winners.ts), or each qid's winning record (Parquet rows, see
// parquet-runs.ts). It needs no gold, so it starts while the main thread is still loading it. Given the gold
// files, it digests the gold set on a core that would otherwise idle (after its scan of JSON Lines, with no
// chunks; between its scan of OTLP lines and their winners): the digest (canonical JSON and a sha256 per
// item) was half the time of loading gold.
import { parentPort, workerData } from 'node:worker_threads';
import { lineDigests, valueDigest } from '../gold/digest.js';
import { ChunkQueue } from '../io/chunk-queue.js';
import type { Segment } from '../io/split.js';
import { decodeOnThread } from '../io/parquet.js';
import { takeUtf8Notes } from '../io/utf8.js';
import { heldBuffers, heldWriter, runReader } from './held-lines.js';
import { goldListsReader } from './gold-item.js';
import { judgeInto, judgeItem } from './judge.js';
import { newVerdicts, verdictBuffers } from './runs.js';
import { otlpScanBuffers, scanOtlpRuns } from './otlp-runs.js';
import { readWinners, type WinnersJob } from './otlp-winners.js';
import { parquetScanBuffers, scanParquetRuns } from './parquet-scan.js';
import { scanBuffers, scanRuns } from './scan.js';
import type { TraceInput } from './source.js';
import type { WorkerInput, WorkerMessage } from './worker-protocol.js';

const input = workerData as WorkerInput;
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

async function main(): Promise<void> {
  if (input.decode) {
    const asked = () => new Promise((next) => parentPort!.once('message', next));
    await decodeOnThread(input.decode, post, asked, valueDigest);
    return;
  }
  const queue = new ChunkQueue(input.chunks, input.shared);
  if (input.otlp) {
    await postOtlpScan(queue, input.otlp);
    // Then, unless stopped, the winners it is asked to read back, without the scan kept meanwhile; first,
    // when asked, the gold set's digests, while the main thread picks the winners.
    const asked = new Promise<{ winners: WinnersJob }>((next) => parentPort!.once('message', next));
    if (input.gold) await postDigests(input.gold);
    const { winners } = await asked;
    const lines = heldWriter();
    const slots: number[] = [];
    const { judge } = winners;
    const verdicts = judge && newVerdicts(winners.traceIds.length, judge.options.cutoffs.length);
    const judged = runReader();
    const goldRow = judge && goldListsReader(judge.gold);
    readWinners(winners, input.otlp, (slot, run) => {
      if (judge) {
        const item = judgeItem(goldRow!(judge.rows[slot]!), judge.rules);
        judgeInto(item, judged(run), judge.options, verdicts!, slots.length);
      }
      lines.add(winners.qids[slot]!, run);
      slots.push(slot);
    });
    const held = { runs: lines.held(), slots: Int32Array.from(slots), ...(verdicts && { verdicts }) };
    post({ held }, [
      ...heldBuffers(held.runs),
      held.slots.buffer as ArrayBuffer,
      ...(verdicts ? verdictBuffers(verdicts) : []),
    ]);
    return;
  }
  if (input.parquet) {
    const scan = {
      ...(await scanParquetRuns(queue, input.parquet, input.leases)),
      utf8: takeUtf8Notes(),
    };
    post({ scan }, parquetScanBuffers(scan));
    return;
  }
  const scan = { ...(await scanRuns(queue, input.fields, input.markers)), utf8: takeUtf8Notes() };
  post({ scan }, scanBuffers(scan));
  if (input.gold) await postDigests(input.gold);
}

async function postDigests(gold: string[]): Promise<void> {
  const digests = await lineDigests(gold).catch(() => null);
  post({ digests }, digests ? [digests.buffer as ArrayBuffer] : []);
}

async function postOtlpScan(queue: ChunkQueue<Segment>, otlp: TraceInput): Promise<void> {
  const scan = { ...(await scanOtlpRuns(queue, otlp)), utf8: takeUtf8Notes() };
  post({ scan }, otlpScanBuffers(scan));
}

main().catch((err: unknown) => {
  post({ internal: err instanceof Error ? (err.stack ?? err.message) : String(err) });
});
