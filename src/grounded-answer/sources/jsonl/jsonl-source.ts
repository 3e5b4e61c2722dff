import { isParquet } from '../../../io/records.js';
import { lineBases, throwFirstError } from '../../pipeline/chunk-scan.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import type { ReadBack } from '../../pipeline/judged-runs.js';
import { readBackLines } from './jsonl-read-back.js';
import { scanRuns, type Scan } from './jsonl-scan.js';
import { offerSlots, refHi, refLo, type Offer, type Picked } from '../../pipeline/pick.js';
import type { Picking, TraceSource } from '../source.js';

// Traces as JSON Lines, canonical or read through a `fields:` mapping: threads take chunks of whole lines in
// order and note, per qid, where its winning line is (jsonl-scan.ts); a qid's winning run depends only on
// `ts` and position in the input, so the result is the one a single pass gives, the first input error in
// file order included. The winners alone are then read again by their byte place, on this thread, and
// judged against gold (jsonl-read-back.ts).

export const jsonlSource: TraceSource<Scan, Places> = {
  name: 'jsonl',
  explanation: 'JSON Lines of runs, canonical or read through `fields:` (format: jsonl, no .parquet file)',
  formats: ['jsonl'],
  accepts: (files, input) => input.format === 'jsonl' && !files.some(isParquet),
  layout: { chunks: 'lines', heap: 'lines' },
  scan: (queue, input) => scanRuns(queue, input.fields, input.markers),
  candidates,
  readBack,
};

/**
 * Every thread's winners offered to the pick. Line numbers become absolute: a chunk's count from its own
 * first line, and the lines of the same file in the chunks before it come first. Every chunk before the
 * first failed one was read whole. A ref is the scan and its slot, where the line's bytes are.
 */
function candidates(scans: readonly Scan[], { chunks }: Picking, offer: Offer) {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);
  offerSlots(scans, chunks, offer, lineBase);
  return { lines: scans.reduce((n, s) => n + s.lines, 0), winners: scans };
}

/** Where each scan's winning lines are, by slot: their byte offset and length. */
type Places = readonly Pick<Scan, 'offset' | 'length'>[];

/**
 * The winners, read back by their byte place in one pass per file, on this thread, and judged. (Sharing them
 * out among the workers cost more in copying the jobs across than it saved: see BENCHMARKS.md.)
 */
function readBack({ table, winners }: Picked<Places>, { files, options }: Picking, judge: Judge): ReadBack {
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
