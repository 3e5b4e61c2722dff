import path from 'node:path';
import { excessDepth, MAX_JSON_DEPTH } from '../src/io/json-depth.js';
import { describe, expect, it } from 'vitest';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import {
  readJsonl,
  readLineBatches,
  readLines,
  readLinesAt,
  readRecord,
  type JsonlRecord,
  type LineBatch,
} from '../src/io/jsonl.js';
import { takeUtf8Notes } from '../src/io/utf8.js';
import { forEachSpan } from '../src/io/read-at.js';
import { tmpTree } from './helpers/tmp.js';

async function read(content: string | Buffer, maxLineBytes?: number): Promise<JsonlRecord[]> {
  const dir = tmpTree({});
  const file = path.join(dir, 'f.jsonl');
  (await import('node:fs')).writeFileSync(file, content);
  const out: JsonlRecord[] = [];
  for await (const r of readJsonl(file, { maxLineBytes })) out.push(r);
  return out;
}

describe('readJsonl', () => {
  it('refuses a line nested deeper than MAX_JSON_DEPTH at its line, and counts brackets in strings as text', async () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    // 100,000 levels: what canonicalJson and JSON.stringify then walked overflowed the stack.
    await expect(read(`{"a":1}\n{"x":${deep(100_000)}}\n`)).rejects.toThrow(
      'f.jsonl:2: JSON nested 100001 levels deep; expected at most 512',
    );
    const atLimit = await read(`{"x":${deep(MAX_JSON_DEPTH - 1)},"s":"${'['.repeat(2000)}"}\n`);
    expect(atLimit).toHaveLength(1);
    expect(excessDepth(`{"x":${deep(MAX_JSON_DEPTH)}}`)).toBe(MAX_JSON_DEPTH + 1);
    expect(excessDepth(`{"s":"\\"${'['.repeat(2000)}"}`)).toBeUndefined();
  });

  it('tolerates CRLF, a BOM, blank lines and a missing final newline, keeping true line numbers', async () => {
    expect(await read('\ufeff{"a":1}\r\n\r\n  \n{"a":2}\n{"a":3}')).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: { a: 2 } },
      { line: 5, value: { a: 3 } },
    ]);
  });

  it('handles lines split across read chunks and multi-byte characters at the boundary', async () => {
    const big = 'é'.repeat(700_000);
    const rows = await read(`{"s":"${big}"}\n{"s":"x"}\n`);
    expect(rows.map((r) => (r.value as { s: string }).s.length)).toEqual([700_000, 1]);
  });

  it('reads right when readers take turns and overlap (their buffers are reused)', async () => {
    // Lines past a megabyte: each reader refills its buffer many times.
    const lines = (tag: string) => Array.from({ length: 30_000 }, (_, i) => `{"${tag}":${i}}`).join('\n');
    const dir = tmpTree({ 'a.jsonl': lines('a'), 'b.jsonl': lines('b'), 'c.jsonl': '{"c":1}' });
    const all = async (name: string) => {
      const out: unknown[] = [];
      for await (const r of readJsonl(path.join(dir, name))) out.push(r.value);
      return out;
    };
    const want = (tag: string) => Array.from({ length: 30_000 }, (_, i) => ({ [tag]: i }));
    expect(await all('a.jsonl')).toEqual(want('a'));
    const early = readJsonl(path.join(dir, 'b.jsonl'));
    expect((await early.next()).value?.value).toEqual({ b: 0 });
    await early.return(undefined); // given back after one window
    const [a, b, c] = await Promise.all([all('a.jsonl'), all('b.jsonl'), all('c.jsonl')]);
    expect([a, b, c]).toEqual([want('a'), want('b'), [{ c: 1 }]]);
  });

  it('reports a malformed line with file:line:column', async () => {
    await expect(read('{"a":1}\n{"a": }\n')).rejects.toThrow(
      /f\.jsonl:2:7: invalid JSON: unexpected token '}'; expected one JSON value per line/i,
    );
    await expect(read('{"a":1}\n{"a":\n')).rejects.toThrow(
      /f\.jsonl:2(:\d+)?: invalid JSON: .*expected one JSON value per line/,
    );
  });

  it('refuses a line over the size limit', async () => {
    await expect(read(`{"a":"${'x'.repeat(100)}"}\n`, 50)).rejects.toThrow(
      /f\.jsonl:1: line is longer than 50 bytes/,
    );
  });

  it('names a missing file', async () => {
    const gen = readJsonl('/nonexistent/groundgate/x.jsonl');
    await expect(gen.next()).rejects.toThrow(/x\.jsonl: file not found/);
  });

  it('keeps byte offsets that read a line back, across a BOM, CRLF, multi-byte text and chunk boundaries', async () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'o.jsonl');
    const big = 'é'.repeat(600_000); // 1.2 MB: the next line starts in a later read chunk
    (await import('node:fs')).writeFileSync(file, `\ufeff{"a":1}\r\n{"s":"${big}"}\n\n{"b":"ü"}`);
    const lines = [];
    for await (const line of readLines(file)) lines.push(line);
    expect(lines.map((l) => l.text.slice(0, 8))).toEqual(['{"a":1}', '{"s":"éé', '', '{"b":"ü"']);
    expect(lines.map((l) => [l.line, l.offset, l.length])).toEqual([
      [1, 0, 10],
      [2, 12, 1_200_008],
      [3, 1_200_021, 0],
      [4, 1_200_022, 10],
    ]);
    expect(await readRecord({ file, ...lines[0]! })).toEqual({ a: 1 });
    expect(((await readRecord({ file, ...lines[1]! })) as { s: string }).s).toHaveLength(600_000);
    expect(await readRecord({ file, ...lines[3]! })).toEqual({ b: 'ü' });
  });
});

describe('readLinesAt', () => {
  /** Each line of a batch: number, offset, length, blank, bytes (BOM dropped where readLineBatches drops it). */
  const linesOf = (b: LineBatch) =>
    Array.from({ length: b.length }, (_, i) => [
      b.line(i),
      b.offset(i),
      b.byteLength(i),
      b.blank(i),
      b.text(i),
    ]);

  it('gives the lines of a run of whole lines as readLineBatches does, read at once into a buffer it reuses', async () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'r.jsonl');
    const text = `\ufeff{"a":1}\r\n{"s":"é"}\n\n  \n{"b":"${'ü'.repeat(40)}"}\n{"c":3}`;
    writeFileSync(file, text);
    const size = Buffer.byteLength(text);
    const second = Buffer.from(text).indexOf('\n{"b"') + 1;
    const fd = openSync(file, 'r');
    const into = Buffer.alloc(64);
    try {
      for (const [start, end] of [
        [0, size],
        [0, second],
        [second, size],
      ] as const) {
        // A batch's text is read from a buffer the next one reuses: taken as each comes.
        const expected: ReturnType<typeof linesOf> = [];
        for await (const b of readLineBatches(file, { start, end })) expected.push(...linesOf(b));
        // The whole file does not fit the 64 bytes given: a buffer of its own is read into instead.
        expect(linesOf(readLinesAt(fd, file, start, end, into))).toEqual(expected);
      }
      expect(linesOf(readLinesAt(fd, file, second, size, into))[0]).toEqual([
        1,
        second,
        88,
        false,
        `{"b":"${'ü'.repeat(40)}"}`,
      ]);
      expect(() => readLinesAt(fd, file, second, size, into, 50)).toThrow(
        /r\.jsonl:1: line is longer than 50 bytes/,
      );
    } finally {
      closeSync(fd);
    }
  });

  it('notes bytes that are not UTF-8 where readLineBatches does', async () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('{"a":1}\n{"b":"'), Buffer.from([0xff]), Buffer.from('"}\n')]),
    );
    takeUtf8Notes();
    for await (const b of readLineBatches(file, { start: 8, end: 21 })) expect(b.length).toBe(1);
    const expected = takeUtf8Notes();
    expect(expected).toHaveLength(1);
    const fd = openSync(file, 'r');
    try {
      readLinesAt(fd, file, 8, 21, Buffer.alloc(64));
      expect(takeUtf8Notes()).toEqual(expected);
    } finally {
      closeSync(fd);
    }
  });
});

describe('forEachSpan', () => {
  it('reads lines asked for in any order, twice included, in one forward pass, each under its index', async () => {
    const lines = ['\ufeff{"a":0}', '{"a":1}', '', '{"a":3}', '{"a":4}'];
    const file = path.join(tmpTree({}), 'f.jsonl');
    (await import('node:fs')).writeFileSync(file, lines.join('\n'));
    const refs: { offset: number; length: number }[] = [];
    let at = 0;
    for (const l of lines) {
      refs.push({ offset: at, length: Buffer.byteLength(l) });
      at += Buffer.byteLength(l) + 1;
    }
    const read = async (asked: number[]) => {
      const seen: [number, string][] = [];
      await forEachSpan(
        file,
        asked.map((i) => refs[i]!.offset),
        asked.map((i) => refs[i]!.length),
        (k, buf, start, end) => seen.push([k, buf.toString('utf8', start, end)]),
      );
      return seen;
    };
    // In offset order, the BOM dropped.
    expect(await read([4, 0, 3, 1])).toEqual([
      [1, '{"a":0}'],
      [3, '{"a":1}'],
      [2, '{"a":3}'],
      [0, '{"a":4}'],
    ]);
    // A line asked for twice comes under both indexes, in the order given.
    expect(await read([4, 0, 3, 1, 3])).toEqual([
      [1, '{"a":0}'],
      [3, '{"a":1}'],
      [2, '{"a":3}'],
      [4, '{"a":3}'],
      [0, '{"a":4}'],
    ]);
  });
});
