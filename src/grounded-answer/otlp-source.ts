import { InputError, type Where } from '../errors.js';
import { stringAt } from '../io/string-column.js';
import { lineBases, throwFirstError } from './chunk-scan.js';
import type { TraceLine } from './contract.js';
import { goldListsOf } from './gold-item.js';
import { heldReader, runReader, type HeldRuns } from './held-lines.js';
import { judgeInto, judgeItem, judgeOptions } from './judge.js';
import { heldRuns, type RunsLoad } from './judged-runs.js';
import { isSpanDocument } from './openinference.js';
import { inputOrder } from './otlp-order.js';
import { otlpScanBuffers, scanOtlpRuns, type OtlpScan } from './otlp-runs.js';
import type { SpanFacts } from './span-values.js';
import {
  readSpans,
  readWinners,
  winnerOf,
  winnersJobBuffers,
  WinnersJobBuilder,
  readAndJudge,
  type HeldWinners,
  type LineAt,
} from './otlp-winners.js';
import { Picker } from './pick.js';
import { copyVerdicts } from './runs.js';
import { byLines, stopHelpers } from './threads.js';
import { timestamp } from './timestamp.js';
import { assemble, type OpenInferenceOptions } from './trace-assembly.js';
import { traceChecker } from './trace-checks.js';
import type { JudgedTrace } from './trace-scan.js';
import type { Picking, TraceSource } from './trace-source.js';

// OpenInference traces in OTLP lines, read like JSON Lines runs are: threads read chunks of lines and
// assemble and check the traces they find there (otlp-runs.ts); this thread puts the chunks back in input
// order, assembles again the rare trace whose spans were in several chunks, picks each gold item's winning
// run, and reads back only the winners' lines to judge them (with the helpers, each its stretch of the
// input: see otlp-winners.ts). The result is the one a single pass over all
// spans gives (readOpenInference then the records source), the first input error included: an error reading
// spans comes before any error assembling a trace, and traces come in the order of their first span.

/**
 * A thread holds a chunk's spans until its end, where it assembles them: small chunks keep that in the young
 * generation. (A trace cut by a chunk's end is assembled again by the main thread: rare at this size.) At the
 * 0.5x formats benchmark 256 KB took 0.956 of 1 MB's wall (3 pairs); 128 KB was no faster, nor was a 24 MB
 * young generation for the helpers.
 */
const OTLP_CHUNK_BYTES = 256 * 1024;

/**
 * The share of the winners this thread reads back when the helpers judge theirs, with one helper (for two
 * threads: a helper, whose young generation is smaller, read and judged half of them in 0.15 s more).
 */
const OWN_SHARE = 0.55;

export const otlpSource: TraceSource<OtlpScan, undefined> = {
  name: 'otlp',
  // OTLP lines of spans: a `.json` document of spans is read whole (see records-source.ts).
  reads: (files, input) => input.format === 'openinference' && !files.some(isSpanDocument),
  cut: (files) => byLines(files, OTLP_CHUNK_BYTES),
  scan: scanOtlpRuns,
  buffers: otlpScanBuffers,
  pick,
  mainReads: true,
  // The first helper digests the JSON Lines gold between its scan and its share of the winners, while this
  // thread picks them: the digest cost this thread 0.6 s of the 0.5x formats benchmark's scan.
  digest: 'first-helper',
  help: readAndJudge,
};

/**
 * Picks each gold item's winning trace, the one a single pass picks: traces in input order, those cut
 * across chunks assembled again, then the winners read back (by this thread and the helpers) and judged.
 */
async function pick(
  scans: readonly OtlpScan[],
  { chunks, files, gold, options, input, questions, helpers }: Picking<OtlpScan>,
): Promise<RunsLoad> {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);

  const { scanOf, entryOf, others, later } = inputOrder(scans);
  const count = entryOf.length;
  const at = (k: number): [OtlpScan, number] => [scans[scanOf[k]!]!, entryOf[k]!];
  const failures = new Map(
    scans.map((s) => [s, new Map(s.failed.map(([i, where, detail]) => [i, { where, detail }]))]),
  );

  const opts: OpenInferenceOptions = {
    qid: input.qid,
    documentId: input.documentId,
    markers: input.markers,
  };
  const checker = traceChecker(input);
  /** Entry i of scan s's lines: its file's place in the input, offset, length and line number each. */
  const eachLine = (
    s: OtlpScan,
    i: number,
    each: (fileIndex: number, offset: number, length: number, line: number) => void,
  ) => {
    const chunk = s.chunk[i]!;
    const { fileIndex } = chunks[chunk]!;
    for (let r = s.refStart[i]!; r < s.refStart[i + 1]!; r++)
      each(fileIndex, s.refOffset[r]!, s.refLength[r]!, lineBase[chunk]! + s.refLine[r]!);
  };
  const linesOf = (s: OtlpScan, i: number): LineAt[] => {
    const out: LineAt[] = [];
    eachLine(s, i, (fileIndex, offset, length, line) =>
      out.push({ file: files[fileIndex]!, fileIndex, offset, length, line }),
    );
    return out;
  };
  const byQuestion = input.qid === 'input.value' ? questions : undefined;
  const fileIndex = new Map(files.map((f, i) => [f, i]));
  const picker = new Picker(gold, options.cutoffs.length);
  const { table } = picker;
  /** The winning entry of each gold item, as its index in input order (see inputOrder). */
  const winner = new Int32Array(gold.length).fill(-1);
  /** Traces assembled here (those met in several chunks) that won. */
  const assembled = new Map<number, TraceLine>();
  let traces = 0;
  // The spans of every trace met in several chunks, each of their lines read once (one line may hold spans
  // of thousands of traces an exporter batched), in input order.
  const cut = new Map<string, SpanFacts[]>();
  const idOf = (k: number) => stringAt(scans[scanOf[k]!]!.traceIds, entryOf[k]!);
  for (const k of others.keys()) cut.set(idOf(k), []);
  readSpans(
    [...others].flatMap(([k, more]) => [k, ...more].flatMap((x) => linesOf(...at(x)))),
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
    readSpans(linesOf(s, i), opts, (all) => {
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
    if (more) {
      const id = idOf(k);
      const r = assemble(cut.get(id)!, opts);
      cut.delete(id);
      record = checker.check(r.value, r.file, r.line);
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
    if (byQuestion) qid = byQuestion.get(qid) ?? qid;
    const row = picker.row(qid, 1);
    if (row < 0) continue;
    if (picker.offer(row, { ts: time, chunk: file, offset: position, line, length: 0 })) {
      winner[row] = k;
      if (record) assembled.set(k, byQuestion ? { ...record, qid } : record);
    }
  }

  // The winners read back (from their places, or their lines, each line once: see readWinners) by this
  // thread and the helpers at once, each the winners of its stretch of the input; the helpers' come back as
  // their members' bytes (or trace lines) with their verdicts. None is kept as an object (100k traces held
  // cost this thread 0.3-0.4 s more in scavenges at the 0.5x formats benchmark): the few offenders a report
  // shows are read again, a helper's from what it sent, this thread's from the input.
  const judge = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs, options);
  const judgeRow = (row: number, t: JudgedTrace) =>
    judgeInto(judgeItem(gold[row]!, options.scuRules, judge.normalized), t, judge, table, row);
  const parts = helpers.length + 1;
  // A helper judges the winners it reads as this thread judges its own, given the gold set's lists (a copy
  // of their buffers): only its verdicts cross back.
  const lists = helpers.length > 0 ? goldListsOf(gold) : undefined;
  const jobs = Array.from(
    { length: parts },
    (_, p) =>
      new WinnersJobBuilder(
        files,
        p > 0 && lists ? { gold: lists, rules: options.scuRules, options: judge } : undefined,
      ),
  );
  const rowsOf: number[][] = jobs.map(() => []);
  // Winners in input order, dealt in stretches (where they are in the input depends on when each item's run
  // was latest): of equal count, but for this thread's larger one when the helpers judge (see OWN_SHARE).
  const rowAt = new Int32Array(count).fill(-1);
  let toRead = 0;
  for (let row = 0; row < gold.length; row++) {
    const k = winner[row]!;
    if (k < 0) continue;
    const done = assembled.get(k);
    if (done) judgeRow(row, done);
    else {
      rowAt[k] = row;
      toRead++;
    }
  }
  const ownShare = lists ? (2 * OWN_SHARE) / parts : 1 / parts;
  const lines: number[] = [];
  for (let k = 0, n = 0; k < count; k++) {
    const row = rowAt[k]!;
    if (row < 0) continue;
    const s = scans[scanOf[k]!]!;
    const i = entryOf[k]!;
    const f = n++ / toRead;
    const part =
      f < ownShare ? 0 : 1 + Math.min(parts - 2, Math.floor(((f - ownShare) * (parts - 1)) / (1 - ownShare)));
    lines.length = 0;
    eachLine(s, i, (fileIndex, offset, length, line) => lines.push(fileIndex, offset, length, line));
    const places = s.places.subarray(s.placeStart[i]!, s.placeStart[i + 1]!);
    jobs[part]!.add(idOf(k), gold[row]!.qid, lines, places, row);
    rowsOf[part]!.push(row);
  }
  const asked = helpers.map((h, p) => {
    if (jobs[p + 1]!.size === 0) return undefined;
    const job = jobs[p + 1]!.job();
    return h.help<HeldWinners>(job, winnersJobBuffers(job));
  });
  const own = jobs[0]!.job();
  const judged = runReader();
  readWinners(own, input, (slot, t) => judgeRow(rowsOf[0]![slot]!, judged(t)));
  const read = heldReader();
  const held: HeldRuns[] = [];
  /** Row r's winner is slot slotOf[r] of held[heldIn[r]], or of this thread's job when heldIn[r] is -1. */
  const heldIn = new Int32Array(gold.length).fill(-1);
  const slotOf = new Int32Array(gold.length).fill(-1);
  rowsOf[0]!.forEach((row, slot) => (slotOf[row] = slot));
  for (let p = 0; p < helpers.length; p++) {
    const theirs = await asked[p];
    // Its heap is let go before the report is made, the run's peak (once it has digested gold, if asked).
    await helpers[p]!.digests;
    await stopHelpers([helpers[p]!]);
    if (!theirs) continue;
    held.push(theirs.runs);
    theirs.slots.forEach((slot, j) => {
      const row = rowsOf[p + 1]![slot]!;
      if (theirs.verdicts) copyVerdicts(theirs.verdicts, j, table, row, options.cutoffs.length);
      else judgeRow(row, read(theirs.runs, j));
      heldIn[row] = held.length - 1;
      slotOf[row] = j;
    });
  }
  const records = async (rows: readonly number[]) => {
    const out = new Map<number, JudgedTrace>();
    const again = new WinnersJobBuilder(files);
    const rowOfSlot: number[] = [];
    for (const row of rows) {
      if (winner[row]! < 0) continue;
      const done = assembled.get(winner[row]!);
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
    ...heldRuns(
      table,
      records,
      (row) => files[table.chunk[row]!]!,
      traces,
      picker.known,
      picker.unknown,
      options,
    ),
    // The traces in the order the loop above counted them: each where it was first met.
    traceIds: () => {
      const ids: string[] = [];
      for (let k = 0; k < count; k++) if (!later.has(k)) ids.push(idOf(k));
      return ids;
    },
  };
}
