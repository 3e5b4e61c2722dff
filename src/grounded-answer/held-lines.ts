import type { TraceLine } from './contract.js';
import { judgedTrace, scanTraceLine, traceFields, type JudgedTrace } from './trace-scan.js';

// What judging and the offenders read of a winning run (judge.ts, describeItem), handed from the thread
// that read it to the one that judges it as a trace line in the contract's shape: all of a thread's winners
// cross as one buffer of such lines, read back with the contract's byte scanner. 100k Parquet records as
// objects took the main thread 1.5 s to rebuild, and JSON.parse of their text 0.6 s. A record checked in
// full gives only the members judging reads, strings and arrays of strings, which JSON gives back exactly.

/** Winners' lines, slot i's being bytes [at[i], at[i + 1]) of `bytes`. */
export interface HeldLines {
  bytes: Uint8Array;
  at: Float64Array;
}

/**
 * The trace line of a run: from its record checked in full, or from the JSON bytes of its members
 * retrieved_ids and answer_json, checked on their bytes already.
 */
export function heldLine(qid: string, run: TraceLine | RawMembers): LineParts {
  if (!('answer_json' in run))
    return [`{"qid":${JSON.stringify(qid)},"retrieved_ids":`, run[0], ',"answer_json":', run[1], '}'];
  const { claim, citations, constraints_echo } = run.answer_json;
  return [
    JSON.stringify({
      qid,
      retrieved_ids: run.retrieved_ids,
      answer_json: { claim, citations, constraints_echo },
    }),
  ];
}

/** The JSON bytes of a run's members retrieved_ids and answer_json (see member-shapes.ts). */
export type RawMembers = readonly [ids: Uint8Array, answer: Uint8Array];

/**
 * A line as parts to join: text, and bytes of JSON checked already (views of the decoded pages that hold a
 * run's members, so that a run costs no copy until it is known to win).
 */
export type LineParts = readonly (string | Uint8Array)[];

/** The lines as UTF-8 in one buffer of its own (to hand over uncopied). */
export function holdLines(lines: readonly LineParts[]): HeldLines {
  const at = new Float64Array(lines.length + 1);
  for (let i = 0; i < lines.length; i++) {
    let n = 0;
    for (const part of lines[i]!) n += Buffer.byteLength(part);
    at[i + 1] = at[i]! + n;
  }
  const out = Buffer.from(new ArrayBuffer(at[lines.length]!));
  for (let i = 0, o = 0; i < lines.length; i++)
    for (const part of lines[i]!)
      o += typeof part === 'string' ? out.write(part, o) : (out.set(part, o), part.length);
  return { bytes: new Uint8Array(out.buffer), at };
}

export const heldBuffers = (h: HeldLines): ArrayBuffer[] => [
  h.bytes.buffer as ArrayBuffer,
  h.at.buffer as ArrayBuffer,
];

/** Reads slots of held lines as judging reads them. */
export function heldReader(): (h: HeldLines, slot: number) => JudgedTrace {
  const found = traceFields();
  return (h, slot) => {
    const b = Buffer.from(h.bytes.buffer, h.bytes.byteOffset, h.bytes.byteLength);
    const start = h.at[slot]!;
    const end = h.at[slot + 1]!;
    if (scanTraceLine(b, start, end, found)) return judgedTrace(b, end, found);
    // Bytes the scanner is unsure of (nesting past its depth in a member judging skips).
    return JSON.parse(b.toString('utf8', start, end)) as JudgedTrace;
  };
}
