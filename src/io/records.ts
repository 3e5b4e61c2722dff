import { isBlank, parseJsonLine, readLines, readRecord, type LineRef } from './jsonl.js';
import { readRecords } from './read-at.js';
// Types only: the reader itself is loaded when a Parquet file is read.
import type { RowRange } from './parquet.js';

/** A `.parquet` file: read as rows (parquet.ts, loaded only then: hyparquet is not small). */
export const isParquet = (file: string): boolean => /\.parquet$/i.test(file);

/** Rows of a Parquet file, all or those asked for (see readParquet). */
export async function* parquetRows(
  file: string,
  range?: Pick<RowRange, 'start' | 'end' | 'rows' | 'digests'>,
): AsyncGenerator<SourceRecord> {
  const { readParquet } = await import('./parquet.js');
  yield* readParquet(file, range);
}

/** How many rows each row group of a Parquet file has. */
export async function parquetRowGroups(file: string): Promise<number[]> {
  const { parquetRowGroups } = await import('./parquet.js');
  return parquetRowGroups(file);
}

/** A record and where it is: a JSON line's bytes, to read it again; a Parquet row has only its number. */
export interface SourceRecord {
  line: number;
  value: unknown;
  offset?: number;
  length?: number;
  /** Its valueDigest (gold/digest.ts), when asked for and made where it was decoded (see readParquet). */
  digest?: Uint8Array;
}

/**
 * The records of a file of one record a line (JSON Lines) or a row (Parquet), numbered from 1; with
 * `digests`, a Parquet row decoded on a thread of its own comes with its digest.
 */
export async function* readRecordsOf(
  file: string,
  options: { digests?: boolean } = {},
): AsyncGenerator<SourceRecord> {
  if (isParquet(file)) {
    yield* parquetRows(file, options);
    return;
  }
  for await (const { line, text, offset, length } of readLines(file))
    if (!isBlank(text)) yield { line, value: parseJsonLine(file, line, text), offset, length };
}

/** Where a record is, to read it again. */
export function refOf(file: string, r: SourceRecord): LineRef {
  return { file, line: r.line, offset: r.offset ?? -1, length: r.length ?? 0 };
}

/** One record again, by where it was read (a Parquet row by its number). */
export async function recordAt(ref: LineRef): Promise<unknown> {
  if (isParquet(ref.file)) {
    for await (const r of parquetRows(ref.file, { start: ref.line - 1, end: ref.line })) return r.value;
    return undefined;
  }
  return readRecord(ref);
}

/** Records again by where they were read, keyed by the references asked for. */
export async function recordsAt(refs: readonly LineRef[]): Promise<Map<LineRef, unknown>> {
  const lines = refs.filter((r) => !isParquet(r.file));
  const out = readRecords(lines);
  // A Parquet file is read once for all the rows asked of it: decoding is by row group, not by row.
  const byFile = new Map<string, LineRef[]>();
  for (const r of refs) if (isParquet(r.file)) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  for (const [file, wanted] of byFile) {
    const rows = new Map<number, unknown>();
    for await (const r of parquetRows(file, { rows: new Set(wanted.map((w) => w.line)) }))
      rows.set(r.line, r.value);
    for (const w of wanted) out.set(w, rows.get(w.line));
  }
  return out;
}
