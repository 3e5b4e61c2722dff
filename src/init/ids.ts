import { closeSync, openSync, readSync } from 'node:fs';
import { CompiledFieldMap } from '../io/field-map.js';
import { goldShape, traceShape } from '../grounded-answer/contract.js';
import { DEFAULT_MAX_LINE_BYTES } from '../io/jsonl.js';
import { appliedMap, type FieldProposal } from './field-proposal.js';

// A file is recognised by its first 64 KiB (detect.ts), but paired with its partner by the item ids of the
// whole file: a qrels file sorted otherwise than its run shares no qid with it in their first lines.

/**
 * The most distinct ids kept of one file. Past it lines are still counted, but files pair by the first
 * MAX_IDS distinct ids of each: far more than any gold set holds, and a few megabytes of strings.
 */
export const MAX_IDS = 100_000;

export interface FileIds {
  /** Distinct item ids in order of first appearance, at most MAX_IDS. */
  ids: string[];
  /** Lines that are not blank. */
  lines: number;
}

const CHUNK = 1 << 20;

/**
 * Calls `each` with every line of `file` that is not blank, without its leading blanks, its `\r` or the
 * file's BOM, read a megabyte at a time and decoded as UTF-8. A line longer than the loaders accept is
 * skipped, never buffered whole: the suite's loader names it when the suite runs.
 */
export function forEachLine(file: string, each: (line: string) => void): void {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(CHUNK);
    let carry: Buffer[] = [];
    let carried = 0;
    let tooLong = false;
    let atStart = true;
    const end = (bytes: Buffer) => {
      const line = carried ? Buffer.concat([...carry, bytes]) : bytes;
      let from = atStart && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? 3 : 0;
      let to = line.length;
      if (to > from && line[to - 1] === 0x0d) to--;
      // Blank lines are told from the bytes: only a line with something in it is decoded.
      while (from < to && (line[from] === 0x20 || line[from] === 0x09 || line[from] === 0x0d)) from++;
      if (!tooLong && from < to) each(line.toString('utf8', from, to));
      atStart = false;
      carry = [];
      carried = 0;
      tooLong = false;
    };
    for (let n; (n = readSync(fd, buf, 0, CHUNK, null)) > 0;) {
      let from = 0;
      for (let nl; (nl = buf.indexOf(0x0a, from)) !== -1 && nl < n; from = nl + 1)
        end(buf.subarray(from, nl));
      if (from < n && !tooLong) {
        carried += n - from;
        if (carried > DEFAULT_MAX_LINE_BYTES) {
          tooLong = true;
          carry = [];
        } else carry.push(Buffer.from(buf.subarray(from, n)));
      }
    }
    if (carried || tooLong) end(Buffer.alloc(0));
  } finally {
    closeSync(fd);
  }
}

/** The ids of a whole file, each line's found by `idOf`, and its count of lines. */
export function idsInFile(file: string, idOf: (line: string) => string | undefined): FileIds {
  const ids = new Set<string>();
  let lines = 0;
  forEachLine(file, (line) => {
    lines++;
    if (ids.size >= MAX_IDS) return;
    const id = idOf(line);
    if (id !== undefined) ids.add(id);
  });
  return { ids: [...ids], lines };
}

/** A TREC line's qid: its first column (forEachLine drops the leading blanks). */
export const firstColumn = (line: string): string | undefined => /^\S+/.exec(line)?.[0];

/**
 * A JSON line's item id: its qid (or ContextBench instance id), read through the proposed `fields:` mapping
 * when the file needs one. A line that is not JSON has none (the loader names it when the suite runs).
 */
export function recordId(fields?: FieldProposal): (line: string) => string | undefined {
  const qid = fields && appliedMap(fields)['/qid'];
  const map =
    qid === undefined
      ? undefined
      : new CompiledFieldMap({ '/qid': qid }, fields!.input === 'gold' ? goldShape : traceShape);
  return (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof value !== 'object' || value === null) return undefined;
    const r = (map ? map.apply(value) : value) as Record<string, unknown>;
    const id = r.qid ?? r.instance_id ?? r.inst_id ?? r.original_inst_id;
    return typeof id === 'string' ? id : undefined;
  };
}
