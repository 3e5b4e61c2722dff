import { lineBases, throwFirstError } from './chunk-scan.js';
import type { Judge } from './judge-stage.js';
import type { ReadBack } from './judged-runs.js';
import { readBackLines } from './jsonl-read-back.js';
import { scanBuffers, scanRuns, type Scan } from './jsonl-scan.js';
import { Picker, type Picked } from './pick.js';
import { byLines } from './threads.js';
import type { Picking, TraceSource } from './trace-source.js';

// Traces as JSON Lines, canonical or read through a `fields:` mapping: threads take chunks of whole lines in
// order and note, per qid, where its winning line is (jsonl-scan.ts); a qid's winning run depends only on
// `ts` and position in the input, so the result is the one a single pass gives, the first input error in
// file order included. The winners alone are then read again by their byte place, on this thread, and
// judged against gold (jsonl-read-back.ts).

export const jsonlSource: TraceSource<Scan, undefined, undefined> = {
  name: 'jsonl',
  reads: () => true,
  cut: (files) => byLines(files),
  scan: (queue, input) => scanRuns(queue, input.fields, input.markers),
  buffers: scanBuffers,
  pick,
  readBack,
  readsRecords: false,
  mainReads: true,
  // Once their scans are in, the helpers go, heaps and all, before judging takes memory of its own. A fresh
  // one digests gold meanwhile, on the core judging leaves idle (the scan's garbage does not come along: a
  // scan worker digesting raised the peak by 25 MB).
  digest: 'after-scan',
};

/**
 * Every thread's scan folded into one winner per gold item. Line numbers become absolute: a chunk's count
 * from its own first line, and the lines of the same file in the chunks before it come first. Every chunk
 * before the first failed one was read whole.
 */
function pick(scans: readonly Scan[], { chunks, gold, options }: Picking<Scan>): Picked<undefined> {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);

  const picker = new Picker(gold, options.cutoffs.length);
  let lines = 0;
  for (const s of scans) {
    lines += s.lines;
    for (let slot = 0; slot < s.qids.length; slot++) {
      const row = picker.row(s.qids[slot]!, s.count[slot]!);
      if (row < 0) continue;
      const chunk = s.chunk[slot]!;
      picker.offer(row, {
        ts: s.ts[slot]!,
        chunk,
        offset: s.offset[slot]!,
        line: lineBase[chunk]! + s.line[slot]!,
        length: s.length[slot]!,
      });
    }
  }
  return picker.picked(lines, undefined);
}

/**
 * The winners, read back by their byte place in one pass per file, on this thread, and judged. (Sharing them
 * out among the workers cost more in copying the jobs across than it saved, measured at 200k winners.)
 */
function readBack({ table }: Picked<undefined>, { chunks, options }: Picking<Scan>, judge: Judge): ReadBack {
  const fileOf = (row: number) => chunks[table.chunk[row]!]!.file;
  const byFile = new Map<string, number[]>();
  for (let row = 0; row < table.present.length; row++) {
    if (!table.present[row]) continue;
    const file = fileOf(row);
    const rows = byFile.get(file);
    if (rows) rows.push(row);
    else byFile.set(file, [row]);
  }
  for (const [file, rows] of byFile) readBackLines(file, rows, table, judge, options.traces);
  return { fileOf };
}
