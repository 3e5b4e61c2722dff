import { open } from 'node:fs/promises';
import { parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { InputError, ioError } from '../errors.js';
import type { JsonlRecord } from './jsonl.js';

// Parquet gold and traces (ContextBench ships its gold as Parquet; Hugging Face datasets publish it), read
// with hyparquet (pure JavaScript, no native build) a row group at a time. A row is a record as a JSON line
// is, numbered from 1 as lines are: errors name `file row N`.

async function fileBuffer(file: string): Promise<{ buffer: AsyncBuffer; close(): Promise<void> }> {
  const handle = await open(file, 'r').catch((err: unknown) => {
    throw ioError(file, err, 'a Parquet file');
  });
  const { size } = await handle.stat();
  return {
    buffer: {
      byteLength: size,
      async slice(start, end = size) {
        const out = Buffer.allocUnsafe(end - start);
        await handle.read(out, 0, out.length, start);
        return out.buffer.slice(out.byteOffset, out.byteOffset + out.length) as ArrayBuffer;
      },
    },
    close: () => handle.close(),
  };
}

async function metadataOf(file: string, buffer: AsyncBuffer): Promise<FileMetaData> {
  try {
    return await parquetMetadataAsync(buffer);
  } catch (err) {
    throw new InputError(
      { file },
      `not a Parquet file (${(err as Error).message}); expected a .parquet file`,
    );
  }
}

/**
 * Rows `[start, end)` (0-based), or only `rows` (numbered from 1), as records numbered from 1; undefined
 * `end` reads to the last row.
 */
export async function* readParquet(
  file: string,
  range: { start?: number; end?: number; rows?: ReadonlySet<number> } = {},
): AsyncGenerator<JsonlRecord> {
  const { buffer, close } = await fileBuffer(file);
  try {
    const metadata = await metadataOf(file, buffer);
    const rows = Number(metadata.num_rows);
    const last = Math.min(range.end ?? rows, rows);
    let groupStart = 0;
    for (const group of metadata.row_groups) {
      const groupEnd = groupStart + Number(group.num_rows);
      let from = Math.max(groupStart, range.start ?? 0);
      let to = Math.min(groupEnd, last);
      if (range.rows) {
        // Only the rows asked for (numbered from 1): the group's span that holds them, if any.
        const wanted = [...range.rows].filter((r) => r > from && r <= to);
        if (wanted.length === 0) to = from;
        else [from, to] = [Math.min(...wanted) - 1, Math.max(...wanted)];
      }
      // A row group is decoded whole whatever part of it is asked for: each is read once, in one call.
      if (from < to) {
        let objects: Record<string, unknown>[];
        try {
          objects = await parquetReadObjects({ file: buffer, metadata, rowStart: from, rowEnd: to });
        } catch (err) {
          throw new InputError(
            { file, line: from + 1 },
            `cannot decode rows ${from + 1}–${to} (${(err as Error).message}); expected a Parquet file compressed with snappy or not at all`,
          );
        }
        for (let i = 0; i < objects.length; i++) {
          if (!range.rows || range.rows.has(from + i + 1))
            yield { line: from + i + 1, value: plain(objects[i]) };
          objects[i] = undefined!;
        }
      }
      groupStart = groupEnd;
    }
  } finally {
    await close();
  }
}

/**
 * A row's values as JSON.parse would give them, so a row checks and digests as the same JSON line would
 * (null members left out): 64-bit integers (BigInt) become numbers, timestamps ISO-8601 strings, byte arrays that are not text
 * base64 strings.
 */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    // Parquet has no absent value, only null: a null column or struct field is an absent member.
    for (const [k, x] of Object.entries(v)) if (x !== undefined && x !== null) out[k] = plain(x);
    return out;
  }
  return v;
}
