import { recordChecker } from '../io/field-map.js';
import { forEachSpan } from '../io/read-at.js';
import { TRACE_WHAT, traceLineSchema, traceTest, type TraceLine } from './contract.js';
import { assemble, lineSpans, qidAttributeOf, type OpenInferenceOptions } from './openinference.js';
import type { HeldRuns } from './held-lines.js';
import type { SpanFacts } from './otlp-scan.js';
import type { TraceInput } from './source.js';

// The winning OpenInference traces read back from their lines, once gold has picked them (see
// otlp-judging.ts): the main thread reads some, a helper that scanned spans the others at the same time.

/** A line of the input, by its place in a file. */
export interface LineAt {
  file: string;
  /** The file's place in the input (a file listed twice is read twice). */
  fileIndex: number;
  offset: number;
  length: number;
  line: number;
}

/** Traces to read back, by slot: plain data, as it crosses to a helper. */
export interface WinnersJob {
  traceIds: string[];
  /** The qid each trace is judged under (its gold item's). */
  qids: string[];
  /** Slot i's lines are lines[first[i], first[i + 1]). */
  first: number[];
  lines: LineAt[];
}

/** Winners a helper read back: runs[j] is slot slots[j]'s, in the order they were read. */
export interface HeldWinners {
  runs: HeldRuns;
  slots: Int32Array;
}

export const newWinnersJob = (): WinnersJob => ({ traceIds: [], qids: [], first: [0], lines: [] });

export function addWinner(job: WinnersJob, traceId: string, qid: string, lines: readonly LineAt[]): void {
  job.traceIds.push(traceId);
  job.qids.push(qid);
  job.lines.push(...lines);
  job.first.push(job.lines.length);
}

/** A trace being read back: its slot, its spans so far, and how many of its lines are still to come. */
interface Wanted {
  slot: number;
  spans: SpanFacts[];
  left: number;
}

/**
 * Reads each trace of the job from all its lines (each line read once), assembled and checked as the scan
 * that picked it did, and under its gold item's qid; `each` gets it as soon as its last line is in.
 */
export async function readWinners(
  job: WinnersJob,
  input: TraceInput,
  each: (slot: number, trace: TraceLine) => void,
): Promise<void> {
  const options: OpenInferenceOptions = { qid: input.qid };
  const checker = recordChecker(traceLineSchema, traceTest, input.fields, TRACE_WHAT);
  const want = new Map<string, Wanted>();
  job.traceIds.forEach((id, slot) =>
    want.set(id, { slot, spans: [], left: job.first[slot + 1]! - job.first[slot]! }),
  );
  await readSpans(job.lines, options, (spans) => {
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
  });
}

/**
 * Reads each of these lines once (a line listed again is read once), file by file in input order and by
 * offset within a file, that is in input order, and hands each line's spans to `each`.
 */
export async function readSpans(
  lines: readonly LineAt[],
  options: OpenInferenceOptions,
  each: (spans: SpanFacts[]) => void,
): Promise<void> {
  const byFile = new Map<number, Map<number, LineAt>>();
  for (const l of lines) {
    let inFile = byFile.get(l.fileIndex);
    if (!inFile) byFile.set(l.fileIndex, (inFile = new Map()));
    inFile.set(l.offset, l);
  }
  const spansOf = lineSpans(qidAttributeOf(options));
  for (const fileIndex of [...byFile.keys()].sort((a, b) => a - b)) {
    const list = [...byFile.get(fileIndex)!.values()];
    const { file } = list[0]!;
    await forEachSpan(
      file,
      list.map((l) => l.offset),
      list.map((l) => l.length),
      (j, buf, start, end) => each(spansOf(buf, start, end, list[j]!.line, file)),
    );
  }
}
