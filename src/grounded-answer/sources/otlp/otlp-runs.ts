import { traceChecker } from '../../trace-checks.js';
import { InputError, type Where } from '../../../errors.js';
import type { ChunkQueue } from '../../../io/chunk-queue.js';
import { readLineBatches, readLinesAt, type LineBatch } from '../../../io/jsonl.js';
import { float64Column, int32Column, uint32Column } from '../../../io/typed-column.js';
import { StringColumn, type StringList } from '../../../io/string-column.js';
import { OpenFiles } from '../../../io/open-files.js';
import type { Segment } from '../../../io/split.js';
import { afterBom, lineSpans, qidAttributeOf } from '../../spans/openinference.js';
import { assemble } from '../../spans/trace-assembly.js';
import { leanReader } from '../../spans/otlp-lean.js';
import { notePlaces } from './otlp-places.js';
import type { SpanFacts } from '../../spans/span-values.js';
import { timestamp } from '../../timestamp.js';
import type { TraceInput } from '../../trace-input.js';
import type { ChunkError } from '../../pipeline/chunk-scan.js';
import { holdUsages, type HeldUsages } from '../../../cost/held-usages.js';
import type { Usage } from '../../../cost/usage.js';

/**
 * What one thread learned from the chunks of OTLP lines it read: every trace whose spans it met, assembled
 * and checked from the spans in that chunk, and which lines they are on. Nothing of a trace's text outlives
 * its chunk: the winners are read again once gold has picked them (see otlp-read-back.ts). A trace with spans
 * in several chunks is assembled wrongly here, from part of its spans; the main thread, which sees every
 * chunk's traceIds, assembles it again from all its lines.
 *
 * Columns by entry, entries by chunk and, within a chunk, in the order of each trace's first span: the order
 * one pass over the input would assemble them in.
 */
export interface OtlpScan {
  traceIds: StringList;
  /** A hash of each traceId (see idHash), for the main thread to find those met in several chunks. */
  hash: Uint32Array;
  /** The trace's qid as its record gives it ('' when it failed: see failed). */
  qids: string[];
  chunk: Int32Array;
  /** The record's `ts` in epoch seconds (see timestamp). */
  ts: Float64Array;
  /** The root span's line, counting from the chunk's first line. */
  line: Float64Array;
  /** Entry i's lines are refs [refStart[i], refStart[i + 1]): byte offset, byte length, line in the chunk. */
  refStart: Int32Array;
  refOffset: Float64Array;
  refLength: Float64Array;
  refLine: Float64Array;
  /**
   * Entry i's places (see notePlaces) are places[placeStart[i], placeStart[i + 1]): none when the trace
   * failed, is on several lines, is read through a `fields:` mapping, or a member it is judged by has no
   * place.
   */
  placeStart: Int32Array;
  places: Int32Array;
  /** [entry, where, detail] for each trace that could not be assembled or checked from its chunk. */
  failed: [number, Where | undefined, string][];
  /** When the input asks for usage (TraceInput.usage), each entry's, as its spans in the chunk count it. */
  usage?: HeldUsages;
  /** [chunk, lines in it (blank ones too)] for each chunk read to its end. */
  chunkLines: [number, number][];
  utf8?: [string, number][];
  /** The input error that stopped this thread, while reading spans (its line counting from the chunk's). */
  error?: ChunkError;
}

interface LocalTrace {
  spans: SpanFacts[];
  /** Indexes of its lines in the chunk's list of lines with spans. */
  lines: number[];
}

/** Reads the OTLP chunks this thread claims (see OtlpScan). */
export async function scanOtlpRuns(queue: ChunkQueue<Segment>, input: TraceInput): Promise<OtlpScan> {
  const options = { qid: input.qid, documentId: input.documentId, markers: input.markers };
  const checker = traceChecker(input);
  // Traces are checked for their qid and time only: a winner is read again, from its places where it has
  // them. A mapping may read any value, so it gets them all (and no places).
  const placing = !input.fields;
  const spansOf = lineSpans(
    qidAttributeOf(options),
    placing ? leanReader(input.qid) : undefined,
    input.documentId,
  );
  // Columns of typed arrays from the start: made from arrays at the end, they held the main thread up 0.1 s.
  const traceIds = new StringColumn();
  const hash = uint32Column();
  const qids: string[] = [];
  const chunks = int32Column();
  const ts = float64Column();
  const rootLine = float64Column();
  const refStart = int32Column();
  refStart.push(0);
  const refOffset = float64Column();
  const refLength = float64Column();
  const refLine = float64Column();
  const placeStart = int32Column();
  placeStart.push(0);
  const places = int32Column();
  const failed: OtlpScan['failed'] = [];
  const chunkLines: [number, number][] = [];
  /** Each entry's usage, when asked: assembling the trace sums it (see assemble). */
  const usages: (Usage | undefined)[] | undefined = input.usage ? [] : undefined;
  const result = (error?: OtlpScan['error']): OtlpScan => ({
    traceIds: traceIds.done(),
    hash: hash.done(),
    qids,
    chunk: chunks.done(),
    ts: ts.done(),
    line: rootLine.done(),
    refStart: refStart.done(),
    refOffset: refOffset.done(),
    refLength: refLength.done(),
    refLine: refLine.done(),
    placeStart: placeStart.done(),
    places: places.done(),
    failed,
    chunkLines,
    ...(usages && { usage: holdUsages(usages) }),
    ...(error ? { error } : {}),
  });

  const files = new OpenFiles();
  const scratch = Buffer.allocUnsafe(SYNC_READ_BYTES);
  try {
    return await scanChunks();
  } finally {
    files.close();
  }

  async function scanChunks(): Promise<OtlpScan> {
    for (let next = queue.claim(); next; next = queue.claim()) {
      const { index: chunk } = next;
      const { file } = next.chunk;
      const local = new Map<string, LocalTrace>();
      const offsets: number[] = [];
      const lengths: number[] = [];
      const lineNos: number[] = [];
      let last = 0;
      const read = (batch: LineBatch) => {
        for (let i = 0; i < batch.length; i++) {
          last = batch.line(i);
          if (batch.blank(i)) continue;
          const spans = spansOf(
            batch.buf,
            afterBom(batch, i),
            batch.end(i),
            last,
            file,
            batch.offset(i) - batch.start(i),
          );
          if (spans.length === 0) continue;
          const at = offsets.length;
          offsets.push(batch.offset(i));
          lengths.push(batch.byteLength(i));
          lineNos.push(last);
          for (const s of spans) {
            let t = local.get(s.traceId);
            if (!t) local.set(s.traceId, (t = { spans: [], lines: [] }));
            t.spans.push(s);
            if (t.lines.at(-1) !== at) t.lines.push(at);
          }
        }
      };
      try {
        const { start, end } = next.chunk;
        if (end - start <= SYNC_READ_BYTES) read(readLinesAt(files.fd(file), file, start, end, scratch));
        else for await (const batch of readLineBatches(file, next.chunk)) read(batch);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        queue.fail(chunk);
        return result({ chunk, where: err.where, detail: err.detail });
      }
      chunkLines.push([chunk, last]);
      for (const [traceId, t] of local) {
        let qid = '';
        let time = NaN;
        let line = t.spans[0]!.line;
        let usage: Usage | undefined;
        try {
          const record = assemble(t.spans, options);
          usage = record.usage;
          line = record.line;
          const checked = checker.check(record.value, file, line);
          time = timestamp(checked.ts, file, line);
          qid = checked.qid;
          if (placing && t.lines.length === 1) notePlaces(record.spans!, offsets[t.lines[0]!]!, places);
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          failed.push([qids.length, err.where, err.detail]);
        }
        usages?.push(usage);
        traceIds.push(traceId);
        hash.push(idHash(traceId));
        qids.push(qid);
        chunks.push(chunk);
        ts.push(time);
        rootLine.push(line);
        for (const k of t.lines) {
          refOffset.push(offsets[k]!);
          refLength.push(lengths[k]!);
          refLine.push(lineNos[k]!);
        }
        refStart.push(refOffset.length);
        placeStart.push(places.length);
      }
    }
    return result();
  }
}

/** A chunk (a run of whole lines) up to this size is read at once, synchronously (see readLinesAt). */
const SYNC_READ_BYTES = 1024 * 1024;

/** FNV-1a of a traceId's UTF-16 code units. */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
