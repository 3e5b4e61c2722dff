import { InputError, type Where } from '../../../errors.js';
import { stringAt } from '../../../io/string-column.js';
import { lineBases, throwFirstError } from '../../pipeline/chunk-scan.js';
import type { TraceLine } from '../../contract.js';
import type { Usage } from '../../../cost/usage.js';
import { Entries } from './otlp-order.js';
import type { OtlpScan } from './otlp-runs.js';
import { readSpans } from './otlp-winners.js';
import type { Offer } from '../../pipeline/pick.js';
import type { SpanFacts } from '../../spans/span-values.js';
import { timestamp } from '../../timestamp.js';
import { assemble, type OpenInferenceOptions } from '../../spans/trace-assembly.js';
import { traceChecker } from '../../trace-checks.js';
import type { Picking } from '../source.js';

// The OpenInference traces offered to the pick, so that it keeps the one a single pass over all spans picks
// (the records source): the threads' entries put back in input order, the rare trace whose spans were in
// several chunks assembled again here, and the first input error the one a single pass meets (an error
// reading spans before any error assembling a trace, traces in the order of their first span).

/**
 * What the pick leaves the read-back (otlp-read-back.ts). A winner's ref is its entry's index in input order
 * (see Entries).
 */
export interface OtlpWinners {
  entries: Entries;
  /** Traces assembled here (those met in several chunks) that won, by entry, under the qid they name. */
  assembled: Map<number, TraceLine>;
  /** Their usage, by entry, when the input asks for it (TraceInput.usage): of all their spans. */
  assembledUsage: Map<number, Usage | undefined>;
}

/** Offers the pick every trace, in the order of its first span; a ref is the trace's entry (see Entries). */
export function candidates(
  scans: readonly OtlpScan[],
  { chunks, files, input }: Picking,
  offer: Offer,
): { lines: number; winners: OtlpWinners } {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);

  const entries = new Entries(scans, files, chunks, lineBase);
  const { scanOf, entryOf, others, later, count } = entries;
  const failures = new Map(
    scans.map((s) => [s, new Map(s.failed.map(([i, where, detail]) => [i, { where, detail }]))]),
  );

  const opts: OpenInferenceOptions = {
    qid: input.qid,
    documentId: input.documentId,
    markers: input.markers,
  };
  const checker = traceChecker(input);
  const fileIndex = new Map(files.map((f, i) => [f, i]));
  const assembled = new Map<number, TraceLine>();
  const assembledUsage = new Map<number, Usage | undefined>();
  let traces = 0;
  // The spans of every trace met in several chunks, each of their lines read once (one line may hold spans
  // of thousands of traces an exporter batched), in input order.
  const cut = new Map<string, SpanFacts[]>();
  for (const k of others.keys()) cut.set(entries.idOf(k), []);
  readSpans(
    [...others].flatMap(([k, more]) => [k, ...more].flatMap((x) => entries.linesOf(...entries.at(x)))),
    opts,
    (spans) => {
      for (const span of spans) cut.get(span.traceId)?.push(span);
    },
  );
  /**
   * The error a thread met assembling or checking entry i, met again on its lines numbered in their file: its
   * text may name a line too (`first at t.jsonl:4`), which the thread counted from its chunk's first.
   */
  const failedAgain = (s: OtlpScan, i: number, failure: { where?: Where; detail: string }, base: number) => {
    const id = stringAt(s.traceIds, i);
    const spans: SpanFacts[] = [];
    readSpans(entries.linesOf(s, i), opts, (all) => {
      for (const span of all) if (span.traceId === id) spans.push(span);
    });
    try {
      const r = assemble(spans, opts);
      timestamp(checker.check(r.value, r.file, r.line).ts, r.file, r.line);
    } catch (err) {
      if (err instanceof InputError) return err;
      throw err;
    }
    const { where, detail } = failure;
    return new InputError(where && { ...where, line: where.line && where.line + base }, detail);
  };
  // A trace's position among traces, in the order of their first span (as the one-pass reader numbers them).
  let position = -1;
  const chunkFile = Int32Array.from(chunks, (c) => fileIndex.get(c.file)!);
  for (let k = 0; k < count; k++) {
    const s = scans[scanOf[k]!]!;
    const i = entryOf[k]!;
    const chunk = s.chunk[i]!;
    const more = others.size > 0 ? others.get(k) : undefined;
    if (more === undefined && later.size > 0 && later.has(k)) continue;
    position++;
    let qid: string;
    let time: number;
    let file: number;
    let line: number;
    let record: TraceLine | undefined;
    let usage: Usage | undefined;
    if (more) {
      const id = entries.idOf(k);
      const r = assemble(cut.get(id)!, opts);
      cut.delete(id);
      record = checker.check(r.value, r.file, r.line);
      usage = r.usage;
      file = fileIndex.get(r.file)!;
      line = r.line;
      time = timestamp(record.ts, r.file, line);
      qid = record.qid;
    } else {
      const failure = s.failed.length > 0 ? failures.get(s)!.get(i) : undefined;
      if (failure) throw failedAgain(s, i, failure, lineBase[chunk]!);
      qid = s.qids[i]!;
      time = s.ts[i]!;
      file = chunkFile[chunk]!;
      line = lineBase[chunk]! + s.line[i]!;
    }
    traces++;
    const won = offer({ qid, ts: time, position: { file, ordinal: position }, line, ref: k, runs: 1 });
    if (won && record) {
      assembled.set(k, record);
      if (input.usage) assembledUsage.set(k, usage);
    }
  }
  return { lines: traces, winners: { entries, assembled, assembledUsage } };
}
