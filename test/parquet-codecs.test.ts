import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { snappyCompress } from 'hysnappy';
import { compressors, MAX_PAGE_BYTES } from '../src/io/parquet-codecs.js';
import { seeded } from './helpers/random.js';

const TEXT = Buffer.from('groundgate reads zstd pages. '.repeat(40));
/** TEXT as one zstd frame, written by the zstd command-line tool (Node 20 cannot compress zstd). */
const ZSTD_FRAME = Buffer.from(
  'KLUv/WSIAy0BAOhncm91bmRnYXRlIHJlYWRzIHpzdGQgcGFnZXMuIAEAoQF+5QQCs3WL',
  'base64',
);

const decode = (codec: 'SNAPPY' | 'ZSTD' | 'GZIP' | 'BROTLI', input: Uint8Array, size: number) =>
  Buffer.from(compressors[codec]!(input, size));
const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('Parquet page codecs: bounded by the size a page declares', () => {
  it('zstd: one frame, and a page of two frames', () => {
    expect(TEXT.length).toBe(1160);
    expect(decode('ZSTD', ZSTD_FRAME, 1160)).toEqual(TEXT);
    expect(decode('ZSTD', Buffer.concat([ZSTD_FRAME, ZSTD_FRAME]), 2320)).toEqual(
      Buffer.concat([TEXT, TEXT]),
    );
  });

  it('zstd: more or fewer bytes than declared, a forged size and corrupt data are errors', () => {
    expect(errorOf(() => decode('ZSTD', ZSTD_FRAME, 1159))).toBe(
      'a zstd page decodes to more than the 1159 bytes it declares',
    );
    expect(errorOf(() => decode('ZSTD', ZSTD_FRAME, 1161))).toBe(
      'a zstd page decodes to 1160 bytes; it declares 1161',
    );
    expect(errorOf(() => decode('ZSTD', ZSTD_FRAME, MAX_PAGE_BYTES + 1))).toBe(
      `a zstd page declares ${MAX_PAGE_BYTES + 1} bytes; expected at most ${MAX_PAGE_BYTES}`,
    );
    const corrupt = Buffer.from(ZSTD_FRAME);
    corrupt[0] = 0;
    expect(errorOf(() => decode('ZSTD', corrupt, 1160))).toMatch(/^a zstd page does not decode: .+/);
  });

  it('snappy: the block’s own length must be the declared size', () => {
    const page = snappyCompress(TEXT);
    expect(decode('SNAPPY', page, 1160)).toEqual(TEXT);
    expect(errorOf(() => decode('SNAPPY', page, 1100))).toBe(
      'a snappy page holds 1160 bytes by its own header; its page header declares 1100',
    );
    expect(errorOf(() => decode('SNAPPY', page, MAX_PAGE_BYTES + 1))).toBe(
      `a snappy page declares ${MAX_PAGE_BYTES + 1} bytes; expected at most ${MAX_PAGE_BYTES}`,
    );
  });

  it.each([
    ['GZIP', 'gzip', gzipSync],
    ['BROTLI', 'brotli', brotliCompressSync],
  ] as const)('%s through zlib, stopped at the declared size', (codec, name, compress) => {
    const page = compress(TEXT);
    expect(decode(codec, page, 1160)).toEqual(TEXT);
    expect(errorOf(() => decode(codec, page, 100))).toBe(
      `a ${name} page decodes to more than the 100 bytes it declares`,
    );
    expect(errorOf(() => decode(codec, page, -1))).toBe(
      `a ${name} page declares -1 bytes; expected at most ${MAX_PAGE_BYTES}`,
    );
    expect(errorOf(() => decode(codec, page.subarray(0, 8), 1160))).toMatch(
      new RegExp(`^a ${name} page does not decode: .+`),
    );
  });

  it.each([
    ['SNAPPY', 'snappy', snappyCompress],
    ['ZSTD', 'zstd', () => ZSTD_FRAME],
    ['GZIP', 'gzip', gzipSync],
    ['BROTLI', 'brotli', brotliCompressSync],
  ] as const)(
    '%s fuzzed: flipped or cut bytes, or another declared size: the page decodes to that size or says why',
    (codec, name, compress) => {
      const page = compress(TEXT);
      const rnd = seeded(codec.length * 7919);
      const outcomes = { decoded: 0, refused: 0 };
      for (let n = 0; n < 400; n++) {
        const bytes = Buffer.from(page);
        for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--)
          bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
        const cut = rnd() < 0.2 ? bytes.subarray(0, Math.floor(rnd() * bytes.length)) : bytes;
        const size = rnd() < 0.3 ? Math.floor(rnd() * 2 * TEXT.length) : TEXT.length;
        try {
          expect(compressors[codec]!(cut, size).length).toBe(size);
          outcomes.decoded++;
        } catch (err) {
          expect((err as Error).message).toMatch(new RegExp(`^a ${name} page `));
          outcomes.refused++;
        }
      }
      // Both happen (gzip's checksum refuses most changed bytes): the cases are not all one kind.
      expect(outcomes.refused).toBeGreaterThan(100);
      expect(outcomes.decoded).toBeGreaterThan(0);
    },
  );
});
