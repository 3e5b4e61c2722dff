import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { PartialFile, Scratch, writePartial, type Sections } from '../src/partial/file.js';
import { seeded } from './helpers/random.js';
import { tmpTree } from './helpers/tmp.js';

/** A partial of one grounded-qa suite with these inputs and sections, and nothing else that a merge needs. */
function writeOne(file: string, inputs: Record<string, string[]>, sections: Sections): void {
  writePartial(
    file,
    {
      tool: { name: 'groundgate', version: 'test' },
      config: { file: 'gates.yaml', sha256: 'c' },
      release: false,
    },
    { qa: { kind: 'grounded-qa', inputs, digests: {}, utf8_warnings: [], state: {}, sections } },
  );
}

describe('PartialFile.open: the header line', () => {
  it('reads a header of any length, in one read or several, and the section after it', () => {
    const dir = tmpTree({});
    // 10, 300 and 3000 file names: a header of about 1 KB, past the first 8 KB read, and past 64 KB.
    for (const files of [10, 300, 3000]) {
      const traces = Array.from({ length: files }, (_, i) => `runs/shard-${i}/trace.jsonl`);
      const file = path.join(dir, `${files}.partial`);
      writeOne(file, { traces }, { bytes: Uint8Array.from([1, 2, 3]) });
      const p = PartialFile.open(file);
      try {
        expect(p.header.suites.qa!.inputs.traces).toEqual(traces);
        expect([...new Uint8Array(p.section('qa', 'bytes'))]).toEqual([1, 2, 3]);
      } finally {
        p.close();
      }
    }
  });

  it('refuses an empty file, and one without a header line, in one line each', () => {
    const dir = tmpTree({});
    const cases: [string, string, RegExp][] = [
      ['empty.partial', '', /the partial is empty/],
      ['long.partial', '{"format":' + ' '.repeat(20_000), /no header line/],
      ['text.partial', 'hello\n', /the header is not JSON/],
    ];
    for (const [name, text, message] of cases) {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      let error: unknown;
      try {
        PartialFile.open(file);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

describe('PartialFile.ranges', () => {
  it('hands each span its own bytes, near or far, in any order, repeated or overlapping; refuses one outside', () => {
    const file = path.join(tmpTree({}), 'ranges.partial');
    const data = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7 + (i >> 8)) % 251);
    writeOne(file, {}, { pad: new Uint8Array(5), data });
    const p = PartialFile.open(file);
    try {
      const rnd = seeded(5);
      const scratch = new Scratch();
      for (let round = 0; round < 50; round++) {
        // Spans a few bytes to 60 KB apart, some twice, some empty, some at either end.
        const spans = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => {
          const offset = rnd() < 0.1 ? 0 : Math.floor(rnd() * (data.length - 1));
          return { offset, length: Math.min(data.length - offset, Math.floor(rnd() * 3000)) };
        });
        if (rnd() < 0.3) spans.push({ ...spans[0]! });
        const got = new Map<number, number[]>();
        p.ranges('qa', 'data', spans, (i, b) => got.set(i, [...b]), scratch);
        expect(got.size).toBe(spans.length);
        spans.forEach(({ offset, length }, i) =>
          expect(got.get(i)).toEqual([...data.subarray(offset, offset + length)]),
        );
      }
      expect(() =>
        p.ranges('qa', 'data', [{ offset: data.length - 10, length: 11 }], () => undefined),
      ).toThrow(/bytes 199990–200001 are outside section qa\.data \(200000 bytes\)/);
      expect(() => p.ranges('qa', 'data', [{ offset: -1, length: 1 }], () => undefined)).toThrow(InputError);
    } finally {
      p.close();
    }
  });
});
