import { traceChecker, traceScanner } from '../../trace-checks.js';
import { InputError } from '../../../errors.js';
import type { ChunkQueue } from '../../../io/chunk-queue.js';
import { resized } from '../../../io/resized.js';
import { isBlank, parseJsonLine, readLineBatches } from '../../../io/jsonl.js';
import type { Segment } from '../../../io/split.js';
import { checkTraceLine, type TraceLine } from '../../contract.js';
import type { FieldMap } from '../../../io/field-map.js';
import { scannedQid, scannedTs, scanTraceLine, traceFields } from '../../trace-scan.js';
import { replaces } from '../../pipeline/runs.js';
import type { ChunkError } from '../../pipeline/chunk-scan.js';
import { timestamp } from '../../timestamp.js';

/**
 * What one thread learned from the chunks of trace lines it read: for every qid it saw, where its winning
 * line is and how many lines it had. Columns by slot (qids[slot]), so a thread's result crosses to another
 * as a few buffers.
 */
export interface Scan {
  qids: string[];
  ts: Float64Array;
  chunk: Int32Array;
  /** The line's number within its chunk (see chunkLines), byte offset and byte length. */
  line: Float64Array;
  offset: Float64Array;
  length: Float64Array;
  /** Lines of this qid. */
  count: Float64Array;
  /** Non-blank lines read. */
  lines: number;
  /** [chunk, lines in it (blank ones too)] for each chunk read to its end. */
  chunkLines: [number, number][];
  /** Where this thread met bytes that are not UTF-8 (see utf8.ts), for the main thread to report. */
  utf8?: [string, number][];
  /**
   * The input error that stopped this thread, its line counting from the chunk's first line (the caller,
   * who knows how many lines came before, makes it absolute).
   */
  error?: ChunkError;
}

/**
 * Reads the chunks this thread claims, checking every line and keeping, per qid, only where its winning run
 * is (see replaces). Judging needs gold and only the winners, so it happens later, once per gold item: a
 * thread can start before gold is loaded and holds no gold, and no trace text outlives its line.
 */
export async function scanRuns(
  queue: ChunkQueue<Segment>,
  fields?: FieldMap,
  markers?: boolean,
): Promise<Scan> {
  // A mapped line is not in the contract's shape: it is parsed, mapped, then checked.
  const mapped = (fields || markers) && traceChecker({ fields, markers });
  // Only qid and ts are read here: a mapped line read through `*` is checked on its bytes too.
  const scanner = traceScanner({ fields, markers }, { every: true });
  const slots = new Map<string, number>();
  const qids: string[] = [];
  let cap = 1024;
  let ts = new Float64Array(cap);
  let chunks = new Int32Array(cap);
  let lineAt = new Float64Array(cap);
  let offsets = new Float64Array(cap);
  let lengths = new Float64Array(cap);
  let counts = new Float64Array(cap);
  const chunkLines: [number, number][] = [];
  const found = traceFields();
  let lines = 0;
  const result = (error?: Scan['error']): Scan => ({
    qids,
    ts: ts.slice(0, qids.length),
    chunk: chunks.slice(0, qids.length),
    line: lineAt.slice(0, qids.length),
    offset: offsets.slice(0, qids.length),
    length: lengths.slice(0, qids.length),
    count: counts.slice(0, qids.length),
    lines,
    chunkLines,
    ...(error ? { error } : {}),
  });

  for (let next = queue.claim(); next; next = queue.claim()) {
    const { index: chunk } = next;
    const { file } = next.chunk;
    let last = 0;
    try {
      for await (const batch of readLineBatches(file, next.chunk)) {
        for (let i = 0; i < batch.length; i++) {
          const line = batch.line(i);
          last = line;
          if (batch.blank(i)) continue;
          let qid: string;
          let stamp: TraceLine['ts'];
          if (scanTraceLine(batch.buf, batch.start(i), batch.end(i), found, scanner)) {
            qid = scannedQid(batch.buf, found);
            stamp = scannedTs(batch.buf, found);
          } else {
            // Not sure of it from its bytes: JSON.parse and the schema say what is wrong, if anything is.
            const text = batch.text(i);
            if (isBlank(text)) continue;
            const value = parseJsonLine(file, line, text);
            ({ qid, ts: stamp } = mapped
              ? mapped.check(value, file, line)
              : checkTraceLine(value, file, line));
          }
          const time = timestamp(stamp, file, line);
          lines++;
          const offset = batch.offset(i);
          let slot = slots.get(qid);
          if (slot === undefined) {
            slot = qids.length;
            if (slot === cap) {
              cap *= 2;
              ts = resized(ts, cap);
              chunks = resized(chunks, cap);
              lineAt = resized(lineAt, cap);
              offsets = resized(offsets, cap);
              lengths = resized(lengths, cap);
              counts = resized(counts, cap);
            }
            slots.set(qid, slot);
            qids.push(qid);
          } else if (!replaces(time, chunk, offset, ts[slot]!, chunks[slot]!, offsets[slot]!)) {
            counts[slot]!++;
            continue;
          }
          counts[slot]!++;
          ts[slot] = time;
          chunks[slot] = chunk;
          lineAt[slot] = line;
          offsets[slot] = offset;
          lengths[slot] = batch.byteLength(i);
        }
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      queue.fail(chunk);
      return result({ chunk, where: err.where, detail: err.detail });
    }
    chunkLines.push([chunk, last]);
  }
  return result();
}
