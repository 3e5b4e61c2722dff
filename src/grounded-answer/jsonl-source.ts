import type { LineRef } from '../io/jsonl.js';
import { lineBases, throwFirstError } from './chunk-scan.js';
import { judgeOptions } from './judge.js';
import { judged, type RunsLoad } from './judged-runs.js';
import { judgeRows } from './jsonl-read-back.js';
import { scanBuffers, scanRuns, type Scan } from './jsonl-scan.js';
import { Picker } from './pick.js';
import { byLines } from './threads.js';
import type { Picking, TraceSource } from './trace-source.js';

// Traces as JSON Lines, canonical or read through a `fields:` mapping: threads take chunks of whole lines in
// order and note, per qid, where its winning line is (jsonl-scan.ts); a qid's winning run depends only on
// `ts` and position in the input, so the result is the one a single pass gives, the first input error in
// file order included. The winners alone are then read again by their byte place, on this thread, and
// judged against gold (jsonl-read-back.ts).

export const jsonlSource: TraceSource<Scan> = {
  name: 'jsonl',
  reads: () => true,
  cut: (files) => byLines(files),
  scan: (queue, input) => scanRuns(queue, input.fields, input.markers),
  buffers: scanBuffers,
  pick,
  mainReads: true,
  // Once their scans are in, the helpers go, heaps and all, before judging takes memory of its own. A fresh
  // one digests gold meanwhile, on the core judging leaves idle (the scan's garbage does not come along: a
  // scan worker digesting raised the peak by 25 MB).
  digest: 'after-scan',
};

/** Folds the scans into one winner per gold item, then reads the winners back and judges them. */
function pick(scans: readonly Scan[], { chunks, gold, options }: Picking<Scan>): RunsLoad {
  // The fold's map of gold qids is let go before the winners are judged.
  const { table, lines, known, unknown } = fold(scans, chunks, gold, options.cutoffs.length);
  const ref = (row: number): LineRef | undefined =>
    table.present[row]
      ? {
          file: chunks[table.chunk[row]!]!.file,
          line: table.line[row]!,
          offset: table.offset[row]!,
          length: table.length[row]!,
        }
      : undefined;
  // The winners, read back in one pass per file and judged. (Sharing them out among the
  // workers cost more in copying the jobs across than it saved, measured at 200k winners.)
  const byFile = new Map<string, number[]>();
  for (let row = 0; row < gold.length; row++) {
    if (!table.present[row]) continue;
    const file = chunks[table.chunk[row]!]!.file;
    const rows = byFile.get(file);
    if (rows) rows.push(row);
    else byFile.set(file, [row]);
  }
  const judge = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs, options);
  for (const [file, rows] of byFile)
    judgeRows(file, rows, table, gold, options.scuRules, judge, options.traces);

  return { ...judged(table, lines, known, unknown, options), ref };
}

/**
 * Every thread's scan folded into one winner per gold item. Line numbers become absolute: a chunk's count
 * from its own first line, and the lines of the same file in the chunks before it come first. Every chunk
 * before the first failed one was read whole.
 */
function fold(
  scans: readonly Scan[],
  chunks: Picking<Scan>['chunks'],
  gold: Picking<Scan>['gold'],
  cutoffs: number,
) {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);

  const picker = new Picker(gold, cutoffs);
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
  return { table: picker.table, lines, known: picker.known, unknown: picker.unknown };
}
