import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines, type TextLine } from '../src/io/jsonl.js';
import { splitLines } from '../src/io/split.js';
import { tmpTree } from './helpers/tmp.js';

async function whole(file: string): Promise<TextLine[]> {
  const out: TextLine[] = [];
  for await (const l of readLines(file)) out.push(l);
  return out;
}

describe('splitLines', () => {
  const dir = tmpTree({});
  const a = path.join(dir, 'a.jsonl');
  const b = path.join(dir, 'b.jsonl');
  const empty = path.join(dir, 'empty.jsonl');
  // A BOM, CRLF, blank lines, multi-byte text, a 100 kB line (longer than the newline probe) and a last
  // line without a newline.
  writeFileSync(
    a,
    `\ufeff{"n":1}\r\n\n{"s":"${'ü'.repeat(50_000)}"}\n{"n":3}\r\n` +
      Array.from({ length: 40 }, (_, i) => `{"i":${i}}`).join('\n'),
  );
  writeFileSync(b, Array.from({ length: 25 }, (_, i) => `{"b":"${'é'.repeat(i)}"}\n`).join(''));
  writeFileSync(empty, '');
  const files = [a, empty, b];

  it('cuts files into runs of whole lines that, read in order, give every line once', async () => {
    const expected = [...(await whole(a)), ...(await whole(b))].map((l) => [l.text, l.offset, l.length]);
    for (const parts of [1, 2, 3, 5, 8, 50, 400]) {
      const split = await splitLines(files, parts);
      expect(split.length).toBeLessThanOrEqual(parts);
      const seen: [string, number, number][] = [];
      const linesBefore = new Map<string, number>();
      for (const part of split) {
        for (const segment of part) {
          let last = 0;
          for await (const l of readLines(segment.file, segment)) {
            // Line numbers count from the segment's start; the lines before it make them absolute.
            const absolute = (linesBefore.get(segment.file) ?? 0) + l.line;
            const reference = (await whole(segment.file))[absolute - 1]!;
            expect([absolute, l.offset]).toEqual([reference.line, reference.offset]);
            seen.push([l.text, l.offset, l.length]);
            last = l.line;
          }
          linesBefore.set(segment.file, (linesBefore.get(segment.file) ?? 0) + last);
        }
      }
      expect(seen).toEqual(expected);
    }
  });

  it('drops the BOM only at the start of the file, and keeps parts of a minimum size', async () => {
    const [first] = await splitLines([a], 1);
    expect(first).toEqual([{ file: a, fileIndex: 0, start: 0, end: expect.any(Number) as number }]);
    expect((await whole(a))[0]!.text).toBe('{"n":1}');
    expect(await splitLines(files, 8, 1e9)).toHaveLength(1);
    expect(await splitLines([empty], 4)).toEqual([]);
  });

  it('cuts into at least as many parts as runs of a maximum size take, up to a cap', async () => {
    const c = path.join(dir, 'c.jsonl');
    writeFileSync(
      c,
      Array.from({ length: 2000 }, (_, i) => `{"i":${String(i).padStart(40, '0')}}\n`).join(''),
    );
    const sizes = (parts: Awaited<ReturnType<typeof splitLines>>) =>
      parts.map((p) => p.reduce((n, s) => n + s.end - s.start, 0));
    // 100 kB of 50-byte lines: 10 parts of 10 kB, not the 2 asked for; 64 at most; 2 when 2 are small enough.
    const cut = sizes(await splitLines([c], 2, 0, 10_000, 64));
    expect(cut).toHaveLength(10);
    expect(Math.max(...cut)).toBeLessThanOrEqual(10_050);
    expect(await splitLines([c], 2, 0, 100, 64)).toHaveLength(64);
    expect(await splitLines([c], 2, 0, 1e9, 64)).toHaveLength(2);
  });

  it('names a missing file', async () => {
    await expect(splitLines([path.join(dir, 'nope.jsonl')], 2)).rejects.toThrow(
      /nope\.jsonl: file not found/,
    );
  });
});
