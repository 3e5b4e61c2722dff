import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Rewrites one section of a partial as a forger would: its bytes (inflated, if stored deflated) changed by
 * `edit`, stored again at the body's end, its place and digests made to match, so that only the merge's own
 * checks of the values can refuse it.
 */
export function forgeSection(
  file: string,
  suite: string,
  key: string,
  edit: (bytes: Buffer) => Buffer | void,
): void {
  const bytes = readFileSync(file);
  const nl = bytes.indexOf(10);
  const header = JSON.parse(bytes.subarray(0, nl).toString());
  const body = bytes.subarray(nl + 1);
  const place = header.suites[suite].sections[key];
  const stored = body.subarray(place.offset, place.offset + place.length);
  const plain = Buffer.from(place.inflated ? inflateRawSync(stored) : stored);
  const changed = edit(plain) ?? plain;
  const out = place.inflated ? deflateRawSync(changed) : changed;
  // Sections start at a multiple of 8.
  const pad = Buffer.alloc((8 - (body.length % 8)) % 8);
  header.suites[suite].sections[key] = {
    offset: body.length + pad.length,
    length: out.length,
    sha256: sha(out),
    ...(place.inflated ? { inflated: { length: changed.length, sha256: sha(changed) } } : {}),
  };
  header.bytes = body.length + pad.length + out.length;
  writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body, pad, out]));
}
