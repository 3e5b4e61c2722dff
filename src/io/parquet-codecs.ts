import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Decompress } from 'fzstd';
import type { Compressors } from 'hyparquet';
import { snappyUncompressor } from 'hysnappy';

// The codecs a page may be compressed with. Snappy, what most writers use, is hysnappy's WebAssembly build
// (hyparquet's own reads it in JavaScript); the others are left to hyparquet's caller, and writers pick them:
// Polars writes zstd by default, Spark and Hive pipelines often gzip, pyarrow any of them on request. LZ4 and
// LZO are not read.

/**
 * The most a page may declare it decodes to. Writers cut pages at about 1 MB; the declared size is what is
 * allocated, and a forged one must not take the machine's memory.
 */
export const MAX_PAGE_BYTES = 256 * 1024 * 1024;

/** The codecs read, as a Parquet error message names them. */
export const CODECS_READ = 'snappy, zstd, gzip, brotli or none';

/** An error of a page this module names itself: passed on as it is. */
class PageError extends Error {}

/**
 * A decoder of one codec as hyparquet calls it, bounded: the size a page declares is checked before anything is
 * allocated for it, the page must decode to exactly that size, and every error says which codec's page failed.
 */
function bounded(codec: string, decode: (input: Uint8Array, size: number) => Uint8Array) {
  return (input: Uint8Array, size: number): Uint8Array => {
    if (!Number.isSafeInteger(size) || size < 0 || size > MAX_PAGE_BYTES)
      throw new PageError(`a ${codec} page declares ${size} bytes; expected at most ${MAX_PAGE_BYTES}`);
    let out: Uint8Array;
    try {
      out = decode(input, size);
    } catch (err) {
      if (err instanceof PageError) throw err;
      throw new PageError(`a ${codec} page does not decode: ${(err as Error).message}`, { cause: err });
    }
    if (out.length !== size)
      throw new PageError(`a ${codec} page decodes to ${out.length} bytes; it declares ${size}`);
    return out;
  };
}

/** zlib stops at `maxOutputLength`: a page that decodes to more than it declares is an error, not a bomb. */
const zlib = (codec: string, inflate: typeof gunzipSync) =>
  bounded(codec, (input, size) => {
    let out: Buffer;
    try {
      out = inflate(input, { maxOutputLength: Math.max(1, size) });
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') throw err;
      throw new PageError(`a ${codec} page decodes to more than the ${size} bytes it declares`, {
        cause: err,
      });
    }
    // A plain Uint8Array: a Buffer's slice() is a view, not the copy hyparquet may expect.
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  });

let wasmSnappy: ReturnType<typeof snappyUncompressor> | undefined;

/** The length a snappy block begins with (a varint of up to 32 bits), or -1 when it has none. */
function snappyLength(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < 5 && i < b.length; i++) {
    n += (b[i]! & 0x7f) * 2 ** (7 * i);
    if (b[i]! < 0x80) return n;
  }
  return -1;
}

export const compressors: Compressors = {
  // The wasm decodes 0.4 s of the 0.5x Parquet benchmark's 2.9 s in snappy faster (0.966 of its wall, 4 pairs):
  // its copies into and out of wasm memory cost the rest. It writes as many bytes as the block's own header says,
  // wherever its memory allows: that must be the size the page header declares.
  SNAPPY: bounded('snappy', (input, size) => {
    const said = snappyLength(input);
    if (said !== size)
      throw new PageError(
        `a snappy page holds ${said} bytes by its own header; its page header declares ${size}`,
      );
    wasmSnappy ??= snappyUncompressor();
    return wasmSnappy(input, size);
  }),
  GZIP: zlib('gzip', gunzipSync),
  BROTLI: zlib('brotli', brotliDecompressSync),
  // Streamed into a buffer of the declared size, frame after frame: fzstd's one-shot call into a given buffer
  // fails on a page of several frames, and without one it allocates what the frame claims.
  ZSTD: bounded('zstd', (input, size) => {
    const out = new Uint8Array(size);
    let at = 0;
    new Decompress((chunk) => {
      if (at + chunk.length > size)
        throw new PageError(`a zstd page decodes to more than the ${size} bytes it declares`);
      out.set(chunk, at);
      at += chunk.length;
    }).push(input, true);
    return out.subarray(0, at);
  }),
};
