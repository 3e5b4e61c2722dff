import { isParquet } from '../../../io/records.js';
import { lineBases, throwFirstError } from '../../pipeline/chunk-scan.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import type { ReadBack } from '../../pipeline/judged-runs.js';
import { readBackLines } from './jsonl-read-back.js';
import { scanBuffers, scanRuns, type Scan } from './jsonl-scan.js';
import { pickWinners, refHi, refLo, refOf, type Picked } from '../../pipeline/pick.js';
import { byLines } from '../../pipeline/threads.js';
import type { Picking, TraceSource } from '../source.js';

// Traces as JSON Lines, canonical or read through a `fields:` mapping: threads take chunks of whole lines in
// order and note, per qid, where its winning line is (jsonl-scan.ts); a qid's winning run depends only on
// `ts` and position in the input, so the result is the one a single pass gives, the first input error in
// file order included. The winners alone are then read again by their byte place, on this thread, and
// judged against gold (jsonl-read-back.ts).

export const jsonlSource: TraceSource<Scan, undefined, Places> = {
  name: 'jsonl',
  explanation: 'JSON Lines of runs, canonical or read through `fields:` (format: jsonl, no .parquet file)',
  formats: ['jsonl'],
  accepts: (files, input) => input.format === 'jsonl' && !files.some(isParquet),
  cut: (files) => byLines(files),
  scan: (queue, input) => scanRuns(queue, input.fields, input.markers),
  buffers: scanBuffers,
  pick,
  readBack,
  readsRecords: false,
  mainReads: true,
  // Once their scans are in, the helpers go, heaps and all, before judging takes memory of its own. A fresh
  // one digests gold meanwhile, on the core judging leaves idle: the scan's garbage does not come along, as
  // it would on a scan worker (BENCHMARKS.md).
  digest: 'after-scan',
};

/**
 * Every thread's winners offered to the pick. Line numbers become absolute: a chunk's count from its own
 * first line, and the lines of the same file in the chunks before it come first. Every chunk before the
 * first failed one was read whole. A ref is the scan and its slot, where the line's bytes are.
 */
function pick(scans: readonly Scan[], { chunks, gold, options, questions }: Picking<Scan>): Picked<Places> {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);
  return pickWinners(
    gold.map((g) => g.qid),
    options.cutoffs.length,
    questions,
    (offer) => {
      const c = { qid: '', ts: 0, position: { file: 0, ordinal: 0 }, line: 0, ref: 0, runs: 0 };
      let lines = 0;
      scans.forEach((s, k) => {
        lines += s.lines;
        for (let slot = 0; slot < s.qids.length; slot++) {
          const chunk = s.chunk[slot]!;
          c.qid = s.qids[slot]!;
          c.ts = s.ts[slot]!;
          c.position.file = chunks[chunk]!.fileIndex;
          c.position.ordinal = c.line = lineBase[chunk]! + s.line[slot]!;
          c.ref = refOf(k, slot);
          c.runs = s.count[slot]!;
          offer(c);
        }
      });
      return { lines, winners: scans };
    },
  );
}

/** Where each scan's winning lines are, by slot: their byte offset and length. */
type Places = readonly Pick<Scan, 'offset' | 'length'>[];

/**
 * The winners, read back by their byte place in one pass per file, on this thread, and judged. (Sharing them
 * out among the workers cost more in copying the jobs across than it saved: see BENCHMARKS.md.)
 */
function readBack(
  { table, winners }: Picked<Places>,
  { files, options }: Picking<Scan>,
  judge: Judge,
): ReadBack {
  const bytes = (row: number) => {
    const ref = table.ref[row]!;
    const s = winners[refHi(ref)]!;
    return { offset: s.offset[refLo(ref)]!, length: s.length[refLo(ref)]! };
  };
  const byFile = new Map<number, number[]>();
  for (let row = 0; row < table.present.length; row++) {
    if (!table.present[row]) continue;
    const file = table.file[row]!;
    const rows = byFile.get(file);
    if (rows) rows.push(row);
    else byFile.set(file, [row]);
  }
  for (const [file, rows] of byFile) readBackLines(files[file]!, rows, table, bytes, judge, options.traces);
  return { bytes };
}
