import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { PartialFile, Scratch, writePartial, type Sections } from '../src/partial/file.js';
import { forgeHeader } from './helpers/forge-partial.js';
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

/** PartialFile.open's error for a file, or undefined if it opens. */
function openError(file: string): Error | undefined {
  try {
    PartialFile.open(file).close();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).not.toContain('\n');
    return err as Error;
  }
  return undefined;
}

describe('PartialFile: what a partial from another job may hold', () => {
  it('refuses any flipped bit of the header line, by its sha256, before reading it', () => {
    const file = path.join(tmpTree({}), 'h.partial');
    writeOne(file, { traces: ['runs/a.jsonl'] }, { bytes: Uint8Array.from([1, 2, 3]) });
    const good = readFileSync(file);
    const nl = good.indexOf(10);
    expect(good.subarray(0, 11).toString()).toBe('{"sha256":"');
    const messages = new Set<string>();
    // Every 5th bit of the line (a few hundred): each byte's, a digit's, a name's and a count's.
    for (let bit = 0; bit < 8 * nl; bit += 5) {
      const bad = Buffer.from(good);
      bad[bit >> 3]! ^= 1 << (bit & 7);
      writeFileSync(file, bad);
      const error = openError(file);
      expect(error, `bit ${bit}`).toBeDefined();
      messages.add(error!.message.replace(file, 'FILE'));
    }
    // Most flips break the digest; the rest break the line itself (a newline made, the sha256 field renamed).
    expect(messages).toContain(
      'FILE:1: the header does not match its sha256; expected the bytes the partial was written with (was it altered, or damaged in an upload?)',
    );
    expect([...messages].every((m) => /^FILE(:1)?: /.test(m))).toBe(true);
  });

  it('refuses a section that ends past the body, though it starts inside it', () => {
    const file = path.join(tmpTree({}), 's.partial');
    writeOne(file, {}, { a: new Uint8Array(16), b: Uint8Array.from([1, 2, 3]) });
    forgeHeader(file, (h) => (h.suites.qa.sections.b.length = 9));
    expect(openError(file)?.message).toMatch(
      /s\.partial: section qa\.b ends at byte 25 of 19; expected sections inside the file$/,
    );
  });

  it('checks every section against its sha256 before handing out its bytes (stored, inflated, or in spans)', () => {
    const file = path.join(tmpTree({}), 'd.partial');
    const data = Uint8Array.from({ length: 5000 }, (_, i) => i % 251);
    writeOne(file, {}, { plain: data, packed: { deflate: data }, other: new Uint8Array(8) });
    const good = readFileSync(file);
    const body = good.indexOf(10) + 1;
    const { sections } = JSON.parse(good.subarray(0, body - 1).toString()).suites.qa;
    const reads: [string, (p: PartialFile) => unknown][] = [
      ['plain', (p) => p.section('qa', 'plain')],
      ['plain', (p) => p.sections('qa', ['other', 'plain'])],
      ['plain', (p) => p.ranges('qa', 'plain', [{ offset: 4000, length: 10 }], () => undefined)],
      ['packed', (p) => p.section('qa', 'packed')],
    ];
    for (const [key, read] of reads) {
      // A flipped bit far from the bytes asked for (ranges) is found as well.
      const bad = Buffer.from(good);
      bad[body + sections[key].offset + 7]! ^= 4;
      writeFileSync(file, bad);
      const p = PartialFile.open(file);
      try {
        expect(() => read(p)).toThrow(
          new RegExp(`d\\.partial: section qa\\.${key} does not match its sha256; expected the bytes`),
        );
        // The other sections are still read.
        expect(new Uint8Array(p.section('qa', 'other'))).toEqual(new Uint8Array(8));
      } finally {
        p.close();
      }
    }
    // Deflated bytes that inflate to other bytes of the same length: refused by the inflated sha256.
    writeFileSync(file, good);
    forgeHeader(file, (h) => (h.suites.qa.sections.packed.inflated.sha256 = 'f'.repeat(64)));
    const p = PartialFile.open(file);
    try {
      expect(() => p.section('qa', 'packed')).toThrow(/section qa\.packed does not match its sha256/);
    } finally {
      p.close();
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
