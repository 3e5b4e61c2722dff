import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

// A header or a JSON section as JSON, edited freely by a forger.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Forged = Record<string, any>;

/**
 * A header line as a forger writes it: its own sha256 (its first field) made to match. `text` replaces the
 * JSON text of the header, if given (e.g. a state nested too deep to stringify).
 */
export function headerLine(header: Forged, text?: (json: string) => string): Buffer {
  // The sha256 first, its value 64 zeros while the line is hashed.
  const zeros = JSON.stringify(Object.assign({ sha256: '' }, header, { sha256: '0'.repeat(64) }));
  const json = text ? text(zeros) : zeros;
  return Buffer.from(`${json.replace('0'.repeat(64), sha(json))}\n`);
}

/** Rewrites a partial's header as a forger would: changed by `edit`, its sha256 made to match. */
export function forgeHeader(
  file: string,
  edit: (header: Forged) => void,
  text?: (json: string) => string,
): void {
  const bytes = readFileSync(file);
  const nl = bytes.indexOf(10);
  const header = JSON.parse(bytes.subarray(0, nl).toString()) as Forged;
  edit(header);
  writeFileSync(file, Buffer.concat([headerLine(header, text), bytes.subarray(nl + 1)]));
}

/**
 * Rewrites one section of a partial as a forger would: its bytes (inflated, if stored deflated) changed by
 * `edit`, stored again at the body's end, its place and digests (and the header's) made to match, so that
 * only the merge's own checks of the values can refuse it.
 */
export function forgeSection(
  file: string,
  suite: string,
  key: string,
  edit: (bytes: Buffer) => Buffer | void,
): void {
  const bytes = readFileSync(file);
  const nl = bytes.indexOf(10);
  const header = JSON.parse(bytes.subarray(0, nl).toString()) as Forged;
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
  writeFileSync(file, Buffer.concat([headerLine(header), body, pad, out]));
}
