import { heldReader, runReader, type HeldRuns } from '../held-lines.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import type { ReadBack, WinnerUsage } from '../../pipeline/judged-runs.js';
import { heldUsageReader } from '../../../cost/held-usages.js';
import type { OtlpWinners } from './otlp-pick.js';
import {
  readWinners,
  winnerOf,
  winnersJobBuffers,
  WinnersJobBuilder,
  type HeldWinners,
} from './otlp-winners.js';
import type { Picked } from '../../pipeline/pick.js';
import type { JudgedTrace } from '../../trace-scan.js';
import type { Picking } from '../source.js';

// The winning OpenInference traces read back from their places (or their lines, each line once: see
// readWinners) by this thread and the helpers at once, each the winners of its stretch of the input; the
// helpers' come back as their members' bytes (or trace lines) with their verdicts. None is kept as an object
// (traces held cost this thread scavenges: BENCHMARKS.md): the few offenders a report shows are read again,
// a helper's from what it sent, this thread's from the input.

/**
 * The share of the winners this thread reads back when the helpers judge theirs, with one helper: a helper's
 * young generation is smaller, so it reads and judges a half more slowly (BENCHMARKS.md).
 */
const OWN_SHARE = 0.55;

export async function readBack(
  { table, winners: { entries, assembled, assembledUsage } }: Picked<OtlpWinners>,
  { files, gold, input, helpers }: Picking,
  judge: Judge,
): Promise<ReadBack> {
  const { count } = entries;
  const winner = (row: number) => (table.present[row] ? table.ref[row]! : -1);
  /** Row's winning trace when the pick assembled it, under the row's qid (a question's, by question). */
  const assembledAt = (row: number) => {
    const t = assembled.get(winner(row));
    const { qid } = gold[row]!;
    return t && t.qid !== qid ? { ...t, qid } : t;
  };
  const parts = helpers.count + 1;
  // A helper runs the judge stage on the winners it reads, given as data (the gold set's lists are a copy of
  // their buffers): only its verdicts cross back.
  const data = helpers.count > 0 ? judge.data() : undefined;
  const jobs = Array.from(
    { length: parts },
    (_, p) => new WinnersJobBuilder(files, p > 0 ? data : undefined),
  );
  const rowsOf: number[][] = jobs.map(() => []);
  // Winners in input order, dealt in stretches (where they are in the input depends on when each item's run
  // was latest): of equal count, but for this thread's larger one when the helpers judge (see OWN_SHARE).
  const rowAt = new Int32Array(count).fill(-1);
  let toRead = 0;
  for (let row = 0; row < gold.length; row++) {
    const k = winner(row);
    if (k < 0) continue;
    const done = assembledAt(row);
    if (done) judge.run(row, done);
    else {
      rowAt[k] = row;
      toRead++;
    }
  }
  const ownShare = data ? (2 * OWN_SHARE) / parts : 1 / parts;
  const lines: number[] = [];
  for (let k = 0, n = 0; k < count; k++) {
    const row = rowAt[k]!;
    if (row < 0) continue;
    const [s, i] = entries.at(k);
    const f = n++ / toRead;
    const part =
      f < ownShare ? 0 : 1 + Math.min(parts - 2, Math.floor(((f - ownShare) * (parts - 1)) / (1 - ownShare)));
    lines.length = 0;
    entries.eachLine(s, i, (fileIndex, offset, length, line) => lines.push(fileIndex, offset, length, line));
    const places = s.places.subarray(s.placeStart[i]!, s.placeStart[i + 1]!);
    jobs[part]!.add(entries.idOf(k), gold[row]!.qid, lines, places, row);
    rowsOf[part]!.push(row);
  }
  const asked = Array.from({ length: helpers.count }, (_, p) => {
    const job = jobs[p + 1]!.size > 0 ? jobs[p + 1]!.job() : undefined;
    return helpers.readBack<HeldWinners>(p, job, job ? winnersJobBuffers(job) : []);
  });
  const own = jobs[0]!.job();
  const judged = runReader();
  readWinners(own, input, (slot, t) => judge.run(rowsOf[0]![slot]!, judged(t)));
  const read = heldReader();
  const held: HeldRuns[] = [];
  /** Row r's winner is slot slotOf[r] of held[heldIn[r]], or of this thread's job when heldIn[r] is -1. */
  const heldIn = new Int32Array(gold.length).fill(-1);
  const slotOf = new Int32Array(gold.length).fill(-1);
  rowsOf[0]!.forEach((row, slot) => (slotOf[row] = slot));
  for (let p = 0; p < helpers.count; p++) {
    const theirs = await asked[p];
    if (!theirs) continue;
    held.push(theirs.runs);
    theirs.slots.forEach((slot, j) => {
      const row = rowsOf[p + 1]![slot]!;
      if (theirs.verdicts) judge.adopt(theirs.verdicts, j, row, () => read(theirs.runs, j));
      else judge.run(row, read(theirs.runs, j));
      heldIn[row] = held.length - 1;
      slotOf[row] = j;
    });
  }
  const records = async (rows: readonly number[]) => {
    const out = new Map<number, JudgedTrace>();
    const again = new WinnersJobBuilder(files);
    const rowOfSlot: number[] = [];
    for (const row of rows) {
      if (winner(row) < 0) continue;
      const done = assembledAt(row);
      const slot = slotOf[row]!;
      if (done) out.set(row, done);
      else if (heldIn[row]! >= 0) out.set(row, read(held[heldIn[row]!]!, slot));
      else if (slot >= 0) {
        again.add(...winnerOf(own, slot));
        rowOfSlot.push(row);
      }
    }
    readWinners(again.job(), input, (slot, t) => out.set(rowOfSlot[slot]!, judged(t)));
    return out;
  };
  return {
    records,
    // The traces in the order the pick counted them: each where it was first met.
    traceIds: () => entries.traceIds(),
    ...(input.usage && { usage: winnersUsage(winner, entries, assembledUsage) }),
  };
}

/**
 * The winners' usage, as the scans counted it with the traces they assembled (see OtlpScan.usage), or as the
 * pick did for a trace it assembled again from several chunks.
 */
function winnersUsage(
  winner: (row: number) => number,
  entries: OtlpWinners['entries'],
  assembledUsage: OtlpWinners['assembledUsage'],
): WinnerUsage {
  const read = heldUsageReader();
  return (row) => {
    const k = winner(row);
    if (k < 0) return undefined;
    if (assembledUsage.has(k)) return assembledUsage.get(k);
    const [s, i] = entries.at(k);
    return read(s.usage!, i);
  };
}
