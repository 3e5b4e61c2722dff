import { stringAt } from '../io/string-column.js';
import type { OtlpScan } from './otlp-runs.js';

// The threads' OTLP scans put back in input order, and the traces they met in several chunks found, for the
// main thread to assemble again (see otlp-source.ts).

/**
 * Every thread's entries in input order (chunk by chunk, each chunk's traces in the order its thread met
 * them): entry k is entry entryOf[k] of scans[scanOf[k]] (columns: 500k [scan, entry] pairs were as many
 * arrays for the scavenger to copy); and the traces met in several chunks: by the index of their first
 * entry, the indexes of their others (`later` holds those).
 */
export function inputOrder(scans: readonly OtlpScan[]): {
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
