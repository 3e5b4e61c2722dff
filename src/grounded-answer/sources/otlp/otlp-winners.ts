import { traceChecker } from '../../trace-checks.js';
import { forEachSpan } from '../../../io/read-at.js';
import type { TraceLine } from '../../contract.js';
import { lineSpans, qidAttributeOf } from '../../spans/openinference.js';
import { assemble, type OpenInferenceOptions } from '../../spans/trace-assembly.js';
import { heldWriter, runReader, type HeldRuns, type RawMembers } from '../held-lines.js';
import { float64Column, int32Column } from '../../../io/typed-column.js';
import { judgeShare, type JudgeData } from '../../pipeline/judge-stage.js';
import type { Verdicts } from '../../pipeline/runs.js';
import { placedReader } from './otlp-places.js';
import type { SpanFacts } from '../../spans/span-values.js';
import type { TraceInput } from '../../trace-input.js';

// The winning OpenInference traces read back from their lines, once gold has picked them (see
// otlp-read-back.ts): the main thread reads some, a helper that scanned spans the others at the same time.

/** A line of the input, by its place in a file. */
export interface LineAt {
  file: string;
  /** The file's place in the input (a file listed twice is read twice). */
  fileIndex: number;
  offset: number;
  length: number;
  line: number;
}

/**
 * Traces to read back, by slot: plain data, its numbers in typed arrays that move to a helper (100k LineAt
 * objects, each naming its file, took a tenth of a second to clone; a million places pushed one by one onto
 * an array, as long to build).
 */
export interface WinnersJob {
  /** The input's files, by their place in it. */
  files: readonly string[];
  traceIds: string[];
  /** The qid each trace is judged under (its gold item's). */
  qids: string[];
  /** Slot i's lines are lines first[i] to first[i + 1] - 1. */
  first: Int32Array<ArrayBuffer>;
  /** Line j is lines[4j, 4j + 4): its file's place in the input, its offset, its length, its line number. */
  lines: Float64Array<ArrayBuffer>;
  /** Slot i's places in its one line (see notePlaces) are places[placeAt[i], placeAt[i + 1]), if any. */
  placeAt: Int32Array<ArrayBuffer>;
  places: Int32Array<ArrayBuffer>;
  /** When set, the thread reading the winners runs the judge stage on them: slot i against gold row rows[i]. */
  judge?: JudgeData & { rows: Int32Array<ArrayBuffer> };
}

/** The buffers a job moves to a helper with. */
export const winnersJobBuffers = (job: WinnersJob): ArrayBuffer[] =>
  [job.first, job.lines, job.placeAt, job.places, ...(job.judge ? [job.judge.rows] : [])].map(
    (a) => a.buffer,
  );

/** Winners a helper read back: runs[j] is slot slots[j]'s, in the order they were read. */
export interface HeldWinners {
  runs: HeldRuns;
  slots: Int32Array;
  /** Held run j's verdicts, row j, when the job asked for them (see WinnersJob.judge). */
  verdicts?: Verdicts;
}

/** A WinnersJob filled slot by slot (see add), then sealed (see job). */
export class WinnersJobBuilder {
  private readonly traceIds: string[] = [];
  private readonly qids: string[] = [];
  private readonly first = int32Column();
  private readonly lines = float64Column();
  private readonly placeAt = int32Column();
  private readonly places = int32Column();
  private readonly rows = int32Column();

  constructor(
    private readonly files: readonly string[],
    private readonly judging?: JudgeData,
  ) {
    this.first.push(0);
    this.placeAt.push(0);
  }

  get size(): number {
    return this.traceIds.length;
  }

  /** Adds a slot: its trace, its qid, its lines' numbers and its places (see WinnersJob), its gold row. */
  add(traceId: string, qid: string, lines: ArrayLike<number>, places: ArrayLike<number>, row = -1): void {
    this.traceIds.push(traceId);
    this.qids.push(qid);
    for (let k = 0; k < lines.length; k++) this.lines.push(lines[k]!);
    this.first.push(this.lines.length / 4);
    for (let k = 0; k < places.length; k++) this.places.push(places[k]!);
    this.placeAt.push(this.places.length);
    if (this.judging) this.rows.push(row);
  }

  job(): WinnersJob {
    return {
      files: this.files,
      traceIds: this.traceIds,
      qids: this.qids,
      first: this.first.done(),
      lines: this.lines.done(),
      placeAt: this.placeAt.done(),
      places: this.places.done(),
      ...(this.judging && { judge: { ...this.judging, rows: this.rows.done() } }),
    };
  }
}

/** Slot `slot` of the job, to add to another (see WinnersJobBuilder.add). */
export function winnerOf(
  job: WinnersJob,
  slot: number,
): [traceId: string, qid: string, lines: Float64Array, places: Int32Array] {
  return [
    job.traceIds[slot]!,
    job.qids[slot]!,
    job.lines.subarray(4 * job.first[slot]!, 4 * job.first[slot + 1]!),
    job.places.subarray(job.placeAt[slot]!, job.placeAt[slot + 1]!),
  ];
}

/** Line j of the job. */
const lineOf = (job: WinnersJob, j: number): LineAt => ({
  file: job.files[job.lines[4 * j]!]!,
  fileIndex: job.lines[4 * j]!,
  offset: job.lines[4 * j + 1]!,
  length: job.lines[4 * j + 2]!,
  line: job.lines[4 * j + 3]!,
});

/** A trace being read back: its slot, its spans so far, and how many of its lines are still to come. */
interface Wanted {
  slot: number;
  spans: SpanFacts[];
  left: number;
}

/**
 * Reads each trace of the job: from its places in its line when it has them (see placedReader), else from
 * all its lines (each line read once), assembled and checked as the scan that picked it did, and under its
 * gold item's qid; `each` gets it as soon as its last line is in.
 */
export function readWinners(
  job: WinnersJob,
  input: TraceInput,
  each: (slot: number, run: TraceLine | RawMembers) => void,
): void {
  const options: OpenInferenceOptions = {
    qid: input.qid,
    documentId: input.documentId,
    markers: input.markers,
  };
  const checker = traceChecker(input);
  const want = new Map<string, Wanted>();
  const placed = placedReader();
  /** What each line is read for, by file and offset: the slots read from their places, and spans. */
  const work = new Map<number, Map<number, { placed: number[]; spans: boolean }>>();
  const lines: LineAt[] = [];
  const workOn = (l: LineAt) => {
    lines.push(l);
    let inFile = work.get(l.fileIndex);
    if (!inFile) work.set(l.fileIndex, (inFile = new Map()));
    let w = inFile.get(l.offset);
    if (!w) inFile.set(l.offset, (w = { placed: [], spans: false }));
    return w;
  };
  for (let slot = 0; slot < job.traceIds.length; slot++) {
    const first = job.first[slot]!;
    const last = job.first[slot + 1]!;
    if (job.placeAt[slot + 1]! > job.placeAt[slot]! && last === first + 1) {
      workOn(lineOf(job, first)).placed.push(slot);
      continue;
    }
    want.set(job.traceIds[slot]!, { slot, spans: [], left: last - first });
    for (let k = first; k < last; k++) workOn(lineOf(job, k)).spans = true;
  }
  const spansOf = lineSpans(qidAttributeOf(options), undefined, options.documentId);
  const readSpansOf = (spans: SpanFacts[]) => {
    const here = new Set<Wanted>();
    for (const span of spans) {
      const w = want.get(span.traceId);
      if (!w) continue;
      w.spans.push(span);
      here.add(w);
    }
    for (const w of here) {
      if (--w.left > 0) continue;
      const r = assemble(w.spans, options);
      const t = checker.check(r.value, r.file, r.line);
      const qid = job.qids[w.slot]!;
      each(w.slot, qid === t.qid ? t : { ...t, qid });
      w.spans = [];
    }
  };
  forEachLine(lines, (l, buf, start, end) => {
    const w = work.get(l.fileIndex)!.get(l.offset)!;
    let spansToo = w.spans;
    for (const slot of w.placed) {
      const places = job.places.subarray(job.placeAt[slot]!, job.placeAt[slot + 1]!);
      const run = placed(buf, end - l.length, places);
      if (run) each(slot, run);
      else {
        // An output its places cannot tell (see placedReader): the trace is read from its spans.
        want.set(job.traceIds[slot]!, { slot, spans: [], left: 1 });
        spansToo = true;
      }
    }
    if (spansToo) readSpansOf(spansOf(buf, start, end, l.line, l.file));
  });
}

/**
 * Reads each of these lines once (a line listed again is read once), file by file in input order and by
 * offset within a file, that is in input order, and hands each line's spans to `each`.
 */
export function readSpans(
  lines: readonly LineAt[],
  options: OpenInferenceOptions,
  each: (spans: SpanFacts[]) => void,
): void {
  const spansOf = lineSpans(qidAttributeOf(options), undefined, options.documentId);
  forEachLine(lines, (l, buf, start, end) => each(spansOf(buf, start, end, l.line, l.file)));
}

/**
 * Reads each of these lines once (a line listed again is read once), file by file in input order and by
 * offset within a file, that is in input order: `each` gets its bytes, buf[start, end) (a BOM at the start
 * of a file left out, so a line's first byte is buf[end - length]).
 */
function forEachLine(
  lines: readonly LineAt[],
  each: (line: LineAt, buf: Buffer, start: number, end: number) => void,
): void {
  const byFile = new Map<number, Map<number, LineAt>>();
  for (const l of lines) {
    let inFile = byFile.get(l.fileIndex);
    if (!inFile) byFile.set(l.fileIndex, (inFile = new Map()));
    inFile.set(l.offset, l);
  }
  for (const fileIndex of [...byFile.keys()].sort((a, b) => a - b)) {
    const list = [...byFile.get(fileIndex)!.values()];
    const { file } = list[0]!;
    forEachSpan(
      file,
      list.map((l) => l.offset),
      list.map((l) => l.length),
      (j, buf, start, end) => each(list[j]!, buf, start, end),
    );
  }
}

/**
 * On a helper done scanning: reads back the winners it is asked for and, when asked, runs the judge stage on
 * them (see WinnersJob.judge); they cross back as held runs (see held-lines.ts), with the stage's verdicts.
 */
export function readAndJudge(job: unknown, input: TraceInput): HeldWinners {
  const winners = job as WinnersJob;
  const lines = heldWriter();
  const slots: number[] = [];
  const { judge } = winners;
  const share = judge && judgeShare(judge, winners.traceIds.length);
  const verdicts = share?.verdicts;
  const judged = runReader();
  readWinners(winners, input, (slot, run) => {
    share?.run(judge!.rows[slot]!, judged(run));
    lines.add(winners.qids[slot]!, run);
    slots.push(slot);
  });
  return { runs: lines.held(), slots: Int32Array.from(slots), ...(verdicts && { verdicts }) };
}
