import type { TraceLine } from '../contract.js';
import { memberReader } from '../member-shapes.js';
import { judgedTrace, scanTraceLine, traceFields, type JudgedTrace } from '../trace-scan.js';

// What judging and the offenders read of a winning run (judge.ts, describeItem), handed from the thread
// that read it to the one that judges it. A run checked in full crosses as a trace line in the contract's
// shape: all of a thread's such lines cross as one buffer, read back with the contract's byte scanner (100k
// Parquet records as objects took the main thread 1.5 s to rebuild, and JSON.parse of their text 0.6 s).
// Such a record gives only the members judging reads, strings and arrays of strings, which JSON gives back
// exactly. A run whose JSON members were checked on their bytes crosses as where those bytes are, in the
// decoded pages that hold them, handed over whole: copying 40 MB of winners out of them took a helper 0.3 s,
// most of it the first touch of fresh memory.

/** The JSON bytes of a run's members retrieved_ids and answer_json (see member-shapes.ts). */
export type RawMembers = readonly [ids: Uint8Array, answer: Uint8Array];

/** A thread's winning runs, by slot. */
export interface HeldRuns {
  /** Slot i's trace line is bytes [at[i], at[i + 1]) of `lines` (none when its members are in pages). */
  lines: Uint8Array;
  at: Float64Array;
  pages: ArrayBuffer[];
  /** Per slot: page, start and end of retrieved_ids, then of answer_json; page -1 when the run is a line. */
  members: Float64Array;
}

/** The runs as they cross to another thread, their buffers moved, held as heldWriter holds them. */
export function holdRuns(qids: readonly string[], runs: readonly (TraceLine | RawMembers)[]): HeldRuns {
  const writer = heldWriter();
  runs.forEach((run, slot) => writer.add(qids[slot]!, run));
  return writer.held();
}

/**
 * Runs held as they come, each slot's in the order added: a run checked in full as its trace line, one read
 * as bytes as where they are (see RawMembers). None is kept as an object (a helper holding 50k records spent
 * more in garbage collection than in reading them).
 */
export function heldWriter(): { add(qid: string, run: TraceLine | RawMembers): void; held(): HeldRuns } {
  // Made with the first trace line: none when every run is bytes.
  let buf = Buffer.alloc(0);
  let used = 0;
  const at = [0];
  const members: number[] = [];
  const pages = new Map<ArrayBufferLike, number>();
  const page = (v: Uint8Array) => {
    let k = pages.get(v.buffer);
    if (k === undefined) pages.set(v.buffer, (k = pages.size));
    return k;
  };
  return {
    add(qid, run) {
      if (!('answer_json' in run)) {
        for (const v of run) members.push(page(v), v.byteOffset, v.byteOffset + v.byteLength);
        at.push(used);
        return;
      }
      members.push(-1, -1, -1, -1, -1, -1);
      const line = traceLine(qid, run);
      const n = Buffer.byteLength(line);
      if (used + n > buf.length) {
        const wider = Buffer.allocUnsafe(Math.max(2 * buf.length, used + n, 1 << 20));
        buf.copy(wider, 0, 0, used);
        buf = wider;
      }
      used += buf.write(line, used);
      at.push(used);
    },
    held: () => ({
      lines: new Uint8Array(buf.buffer, buf.byteOffset, used),
      at: Float64Array.from(at),
      pages: [...pages.keys()] as ArrayBuffer[],
      members: Float64Array.from(members),
    }),
  };
}

/** The trace line of a run checked in full: the members judging reads. */
function traceLine(qid: string, run: TraceLine): string {
  const { claim, citations, constraints_echo } = run.answer_json;
  return JSON.stringify({
    qid,
    retrieved_ids: run.retrieved_ids,
    answer_json: { claim, citations, constraints_echo },
    refused: run.refused,
  });
}

/** What judging reads of a run, held either way. */
export function runReader(): (run: TraceLine | RawMembers) => JudgedTrace {
  const fromMembers = memberReader();
  const view = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return (run) => ('answer_json' in run ? run : fromMembers(view(run[0]), view(run[1])));
}

/** Reads slots of held runs as judging reads them. */
export function heldReader(): (h: HeldRuns, slot: number) => JudgedTrace {
  const found = traceFields();
  const fromMembers = memberReader();
  return (h, slot) => {
    const m = h.members.subarray(6 * slot, 6 * slot + 6);
    if (m[0]! >= 0) {
      const view = (k: number) => Buffer.from(h.pages[m[k]!]!, m[k + 1]!, m[k + 2]! - m[k + 1]!);
      return fromMembers(view(0), view(3));
    }
    const b = Buffer.from(h.lines.buffer, h.lines.byteOffset, h.lines.byteLength);
    const start = h.at[slot]!;
    const end = h.at[slot + 1]!;
    if (scanTraceLine(b, start, end, found)) return judgedTrace(b, end, found);
    // Bytes the scanner is unsure of (nesting past its depth in a member judging skips).
    return JSON.parse(b.toString('utf8', start, end)) as JudgedTrace;
  };
}
