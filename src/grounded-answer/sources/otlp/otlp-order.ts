import { stringAt } from '../../../io/string-column.js';
import type { Segment } from '../../../io/split.js';
import type { OtlpScan } from './otlp-runs.js';
import type { LineAt } from './otlp-winners.js';

// The threads' OTLP scans put back in input order, and the traces they met in several chunks found, for the
// main thread to assemble again (see otlp-pick.ts), and the lines each entry was read from.

/** The scans' entries (traces) in input order, and where their lines are. */
export class Entries {
  readonly scanOf: Uint32Array;
  readonly entryOf: Int32Array;
  /** Traces met in several chunks: by the index of their first entry, the indexes of their others. */
  readonly others: Map<number, number[]>;
  /** The entries of traces met before, in an earlier chunk. */
  readonly later: Set<number>;

  constructor(
    readonly scans: readonly OtlpScan[],
    private readonly files: readonly string[],
    private readonly chunks: readonly Segment[],
    /** Each chunk's first line's number in its file, less one (see lineBases). */
    private readonly lineBase: readonly number[],
  ) {
    ({
      scanOf: this.scanOf,
      entryOf: this.entryOf,
      others: this.others,
      later: this.later,
    } = inputOrder(scans));
  }

  get count(): number {
    return this.entryOf.length;
  }

  /** Entry k's scan and its index there. */
  at(k: number): [OtlpScan, number] {
    return [this.scans[this.scanOf[k]!]!, this.entryOf[k]!];
  }

  /** Entry k's trace id. */
  idOf(k: number): string {
    return stringAt(this.scans[this.scanOf[k]!]!.traceIds, this.entryOf[k]!);
  }

  /** Entry i of scan s's lines: its file's place in the input, offset, length and line number each. */
  eachLine(
    s: OtlpScan,
    i: number,
    each: (fileIndex: number, offset: number, length: number, line: number) => void,
  ): void {
    const chunk = s.chunk[i]!;
    const { fileIndex } = this.chunks[chunk]!;
    for (let r = s.refStart[i]!; r < s.refStart[i + 1]!; r++)
      each(fileIndex, s.refOffset[r]!, s.refLength[r]!, this.lineBase[chunk]! + s.refLine[r]!);
  }

  linesOf(s: OtlpScan, i: number): LineAt[] {
    const out: LineAt[] = [];
    this.eachLine(s, i, (fileIndex, offset, length, line) =>
      out.push({ file: this.files[fileIndex]!, fileIndex, offset, length, line }),
    );
    return out;
  }

  /** The traces in the order the pick counts them: each where it was first met. */
  traceIds(): string[] {
    const ids: string[] = [];
    for (let k = 0; k < this.count; k++) if (!this.later.has(k)) ids.push(this.idOf(k));
    return ids;
  }
}

/**
 * Every thread's entries in input order (chunk by chunk, each chunk's traces in the order its thread met
 * them): entry k is entry entryOf[k] of scans[scanOf[k]] (columns: 500k [scan, entry] pairs were as many
 * arrays for the scavenger to copy); and the traces met in several chunks: by the index of their first
 * entry, the indexes of their others (`later` holds those).
 */
function inputOrder(scans: readonly OtlpScan[]): {
  scanOf: Uint32Array;
  entryOf: Int32Array;
  others: Map<number, number[]>;
  later: Set<number>;
} {
  const byChunk: [number, number, number][] = [];
  let count = 0;
  scans.forEach((s, si) => {
    for (let i = 0; i < s.chunk.length;) {
      let j = i;
      while (j < s.chunk.length && s.chunk[j] === s.chunk[i]) j++;
      byChunk[s.chunk[i]!] = [si, i, j];
      count += j - i;
      i = j;
    }
  });
  const scanOf = new Uint32Array(count);
  const entryOf = new Int32Array(count);
  const hashes = new Uint32Array(count);
  let k = 0;
  for (const range of byChunk)
    if (range)
      for (let i = range[1]; i < range[2]; i++, k++) {
        scanOf[k] = range[0];
        entryOf[k] = i;
        hashes[k] = scans[range[0]]!.hash[i]!;
      }
  const first = new Map<string, number>();
  const others = new Map<number, number[]>();
  const later = new Set<number>();
  // Only traceIds whose hash another shares can be met twice: a map of those alone, not of 500k ids.
  const sorted = hashes.slice().sort();
  const shared = new Set<number>();
  for (let j = 1; j < sorted.length; j++) if (sorted[j] === sorted[j - 1]) shared.add(sorted[j]!);
  if (shared.size > 0)
    for (let k = 0; k < count; k++) {
      if (!shared.has(hashes[k]!)) continue;
      const id = stringAt(scans[scanOf[k]!]!.traceIds, entryOf[k]!);
      const at = first.get(id);
      if (at === undefined) {
        first.set(id, k);
        continue;
      }
      later.add(k);
      const list = others.get(at);
      if (list) list.push(k);
      else others.set(at, [k]);
    }
  return { scanOf, entryOf, others, later };
}
