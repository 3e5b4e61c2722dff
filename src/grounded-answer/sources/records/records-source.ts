import type { ChunkQueue } from '../../../io/chunk-queue.js';
import { isParquet } from '../../../io/records.js';
import type { Segment } from '../../../io/split.js';
import { isSpanDocument } from '../../spans/span-facts.js';
import { SPAN_READS } from '../../spans/span-reads.js';
import type { ThreadScan } from '../../pipeline/chunk-scan.js';
import type { TraceLine } from '../../contract.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import { judgeHeld, type ReadBack } from '../../pipeline/judged-runs.js';
import { refHi, refLo, refOf, type Offer, type Picked } from '../../pipeline/pick.js';
import { replaces } from '../../pipeline/runs.js';
import { traceRecords } from '../../trace-records.js';
import { timestamp } from '../../timestamp.js';
import { traceChecker } from '../../trace-checks.js';
import type { Picking, TraceSource } from '../source.js';
import type { TraceInput } from '../../trace-input.js';
import { usageOrError } from '../../../cost/held-usages.js';
import { recordUsage, type Usage } from '../../../cost/usage.js';
import type { InputError } from '../../../errors.js';

// Traces that are records read in one pass, on this thread: OpenInference `.json` documents and Phoenix
// exports (one trace's spans may be in several files, so they are assembled across all of them), and inputs
// that mix formats. Each file is a chunk; the pass keeps, per qid, its winning record in memory (a record's
// place is its file and its index in the pass), and the pick matches them to gold, by their question when
// OpenInference traces name it rather than their qid; the winners are judged from memory.

/** What the pass kept: per qid (by slot), its winning record and how many it had. */
export interface RecordScan extends ThreadScan {
  qids: string[];
  count: number[];
  ts: number[];
  /** The winning record's file, by its place in the input, its index in the pass and its line (or row). */
  chunk: number[];
  offset: number[];
  line: number[];
  records: TraceLine[];
  /**
   * When the input asks for usage (TraceInput.usage), the winning record's: its spans' counts, or its own;
   * or the error its counts are, thrown if it wins.
   */
  usages?: (Usage | InputError | undefined)[];
  /** Records read. */
  lines: number;
  /** OpenInference: the id of every trace assembled, in the order of its first span. */
  traceIds: string[];
}

const readsSpans = (input: TraceInput): boolean => input.format === 'openinference';

export const recordsSource: TraceSource<RecordScan, Won> = {
  name: 'records',
  explanation:
    'records read in one pass: OpenInference span documents and Phoenix exports (format: openinference or otel, a .json file among them), or .parquet files mixed with JSON Lines',
  formats: ['jsonl', 'openinference', 'otel'],
  accepts: (files, input) =>
    input.format === 'openinference'
      ? files.some(isSpanDocument)
      : input.format === 'jsonl' && files.some(isParquet) && !files.every(isParquet),
  byQuestion: (input) => input.format === 'openinference' && input.qid === 'input.value',
  readsSpans,
  layout: { chunks: 'files', heap: 'records' },
  scan,
  candidates,
  readBack,
  reads: (input) => (readsSpans(input) ? SPAN_READS : undefined),
};

async function scan(queue: ChunkQueue<Segment>, input: TraceInput) {
  const files: string[] = [];
  for (let next = queue.claim(); next; next = queue.claim()) files.push(next.chunk.file);
  const checker = traceChecker(input);
  const fileIndex = new Map(files.map((f, i) => [f, i]));
  const slots = new Map<string, number>();
  const s: RecordScan = {
    qids: [],
    count: [],
    ts: [],
    chunk: [],
    offset: [],
    line: [],
    records: [],
    lines: 0,
    traceIds: [],
    ...(input.usage && { usages: [] }),
  };
  let index = 0;
  for await (const { file, line, value, traceId, spans, usage } of traceRecords(
    files,
    input,
    readsSpans(input),
  )) {
    if (traceId !== undefined) s.traceIds.push(traceId);
    const t = checker.check(value, file, line);
    const time = timestamp(t.ts, file, line);
    s.lines++;
    const at = index++;
    const chunk = fileIndex.get(file)!;
    let slot = slots.get(t.qid);
    if (slot === undefined) {
      slots.set(t.qid, (slot = s.qids.length));
      s.qids.push(t.qid);
      s.count.push(0);
    } else if (!replaces(time, chunk, at, s.ts[slot]!, s.chunk[slot]!, s.offset[slot]!)) {
      s.count[slot]!++;
      continue;
    }
    s.count[slot]!++;
    s.ts[slot] = time;
    s.chunk[slot] = chunk;
    s.offset[slot] = at;
    s.line[slot] = line;
    s.records[slot] = t;
    if (s.usages) s.usages[slot] = spans ? usage : usageOrError(() => recordUsage(t, { file, line }));
  }
  return s;
}

/** The winning records and (OpenInference) the traces assembled, by scan (see Candidate.ref). */
type Won = readonly RecordScan[];

function candidates(scans: readonly RecordScan[], _: Picking, offer: Offer) {
  let lines = 0;
  scans.forEach((s, k) => {
    lines += s.lines;
    s.qids.forEach((qid, slot) =>
      offer({
        qid,
        ts: s.ts[slot]!,
        position: { file: s.chunk[slot]!, ordinal: s.offset[slot]! },
        line: s.line[slot]!,
        ref: refOf(k, slot),
        runs: s.count[slot]!,
      }),
    );
  });
  return { lines, winners: scans };
}

/** The winners, held in memory since the pass, under their gold item's qid (a question's, by question). */
function readBack({ table, winners: scans }: Picked<Won>, { gold, input }: Picking, judge: Judge): ReadBack {
  const winnerUsage = (ref: number) => {
    if (ref < 0) return undefined;
    const usage = scans[refHi(ref)]!.usages![refLo(ref)];
    if (usage instanceof Error) throw usage;
    return usage;
  };
  const record = (row: number) => {
    if (!table.present[row]) return undefined;
    const ref = table.ref[row]!;
    const t = scans[refHi(ref)]!.records[refLo(ref)]!;
    const { qid } = gold[row]!;
    return t.qid === qid ? t : { ...t, qid };
  };
  return {
    records: judgeHeld(table, record, judge),
    ...(input.usage && { usage: (row: number) => winnerUsage(table.present[row] ? table.ref[row]! : -1) }),
    ...(input.format === 'openinference' && { traceIds: () => scans.flatMap((s) => s.traceIds) }),
  };
}
