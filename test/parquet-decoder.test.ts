import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GoldLine } from '../src/grounded-answer/contract.js';
import { valueDigest } from '../src/gold/digest.js';
import { decodeOnThread, readParquetHere, type DecodeJob, type DecodeMessage } from '../src/io/parquet.js';
import { brokenSecondGroup, parquetGold, readJsonlFile } from './helpers/formats.js';
import { REPO, tmpTree } from './helpers/tmp.js';

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');

/** The messages a decoding thread posts for `job`, read as readParquet reads them: the next batch when asked. */
async function exchange(job: DecodeJob, digestOf?: (value: unknown) => Uint8Array) {
  const messages: DecodeMessage[] = [];
  await decodeOnThread(
    job,
    (m) => messages.push(structuredClone(m)),
    () => new Promise((next) => setImmediate(next)),
    digestOf,
  );
  return messages;
}

const rowsOf = (messages: DecodeMessage[]) => messages.flatMap((m) => ('rows' in m ? m.rows : []));

describe("a Parquet decoding thread's rows", () => {
  it('come a batch at a time, each with its rows’ digests when asked: valueDigest of the values sent', async () => {
    // 8,200 rows: a full batch of 8,192, then the rest.
    const many = Array.from({ length: 8200 }, (_, i) => ({ ...GOLD[i % GOLD.length]!, qid: `q${i}` }));
    const file = path.join(tmpTree({}), 'gold.parquet');
    writeFileSync(file, parquetGold(many));
    const asked = await exchange({ file, digests: true }, valueDigest);
    expect(asked.map((m) => ('rows' in m ? [m.rows.length, m.done ?? false] : m))).toEqual([
      [8192, false],
      [8, true],
    ]);
    const rows = rowsOf(asked);
    expect(rows.map(([line]) => line)).toEqual(many.map((_, i) => i + 1));
    for (const m of asked) {
      if (!('rows' in m)) continue;
      expect(m.rowDigests).toHaveLength(32 * m.rows.length);
      m.rows.forEach(([, value], i) =>
        expect(Buffer.from(m.rowDigests!.subarray(32 * i, 32 * i + 32))).toEqual(valueDigest(value)),
      );
    }
    // The values are the rows read on this thread; and none has a digest unless asked for.
    const here: unknown[] = [];
    for await (const r of readParquetHere(file)) here.push(r.value);
    expect(rows.map(([, value]) => value)).toEqual(here);
    const plain = await exchange({ file }, valueDigest);
    expect(plain.some((m) => 'rowDigests' in m)).toBe(false);
    expect(rowsOf(plain)).toEqual(rows);
  });

  it('read before a page that does not decode are sent before its error: one of them may hold the first error', async () => {
    const file = path.join(tmpTree({}), 'gold.parquet');
    writeFileSync(file, await brokenSecondGroup(parquetGold(GOLD), file));
    const messages = await exchange({ file, digests: true }, valueDigest);
    expect(messages).toHaveLength(2);
    expect(rowsOf(messages).map(([line]) => line)).toEqual(GOLD.slice(0, 16).map((_, i) => i + 1));
    expect(messages[1]).toEqual({
      error: {
        where: { file, line: 17 },
        detail: expect.stringMatching(
          /^cannot decode rows 17–32 \(.+\); expected a Parquet file compressed with/,
        ),
      },
    });
  });
});

describe('a damaged Parquet file', () => {
  /** DuckDB's trace export with one byte of its footer set to `value`, read whole; the error's message. */
  async function readDamaged(at: number, value = 0): Promise<string> {
    const bytes = readFileSync(path.join(REPO, 'test/fixtures/duckdb/qa.trace.snappy.parquet'));
    bytes[at] = value;
    const file = path.join(tmpTree({}), 'traces.parquet');
    writeFileSync(file, bytes);
    try {
      for await (const _ of readParquetHere(file)) void _;
    } catch (err) {
      return (err as Error).message.replace(file, 'traces.parquet');
    }
    throw new Error('read without an error');
  }

  it("is said to be damaged where it is, not in the library's words (a TypeError reading its fields)", async () => {
    // hyparquet meets undefined where a list should be: "Cannot read properties of undefined (reading 'map')".
    expect(await readDamaged(7112)).toBe(
      'traces.parquet: not a Parquet file (its footer is damaged: a field holds a value of the wrong type or size); expected a .parquet file',
    );
    // Thrift's own words are kept, after what they are about: "thrift unhandled type: 15" alone said nothing.
    expect(await readDamaged(7112, 0xff)).toBe(
      'traces.parquet: not a Parquet file (its footer is damaged: its encoding (Thrift) cannot be read (thrift unhandled type: 15)); expected a .parquet file',
    );
    // The footer reads, but a column chunk's fields then fail the page decoder the same way.
    expect(await readDamaged(7146)).toBe(
      'traces.parquet row 1: cannot decode rows 1–50 (a page is damaged: a field holds a value of the wrong type or size); expected a Parquet file compressed with snappy, zstd, gzip, brotli or none',
    );
  });
});
