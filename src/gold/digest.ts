import { createHash, hash } from 'node:crypto';
import { compareCodeUnits } from '../io/files.js';
import { resized } from '../io/resized.js';
import { isBlank, parseJsonLine, readLineBatches } from '../io/jsonl.js';
import { canonicalJson, canonicalJsonOfBytes } from './canonical.js';
import { canonicalBytesWriter } from './canonical-bytes.js';

/** Field names that identify a gold item, tried in order. */
export const ID_FIELDS = ['qid', 'id', 'instance_id', 'inst_id', 'original_inst_id', 'query_id'] as const;

/** Item ids in gold order and their digests: a GoldDigest, or the 64-bit prefixes a partial holds. */
export interface ItemDigests {
  readonly ids: readonly string[];
  readonly size: number;
  /** The digests as bytes, item `index`'s from byte `index * stride` (at least its first 8: all a report shows). */
  readonly raw: Uint8Array;
  readonly stride: number;
}

/**
 * A gold set's digest. Item digests stay raw, 32 bytes an item in the order read: 200k items as hex strings
 * in a map held about 25 MB until the report was written.
 */
export class GoldDigest implements ItemDigests {
  private readonly bytes: Buffer;

  constructor(
    /**
     * sha256 over "id<TAB>item sha256<LF>" for every item, sorted by id (a one-level Merkle list): line and
     * key order do not matter, any changed value does, and no item text has to be kept to compute it.
     */
    readonly sha256: string,
    /** Item ids in the order read. */
    readonly ids: readonly string[],
    /** Each item's sha256, 32 bytes, in the same order. */
    readonly digests: Uint8Array,
  ) {
    this.bytes = Buffer.from(digests.buffer, digests.byteOffset, digests.byteLength);
  }

  get raw(): Uint8Array {
    return this.digests;
  }

  readonly stride = 32;

  get size(): number {
    return this.ids.length;
  }

  /** Item `index`'s sha256 (of its canonical JSON) in hex, or its first `bytes` bytes. */
  hex(index: number, bytes = 32): string {
    return this.bytes.toString('hex', index * 32, index * 32 + bytes);
  }

  /** Every item's sha256 by id, in the order read: to name the items that changed. */
  items(): Map<string, string> {
    return new Map(this.ids.map((id, i) => [id, this.hex(i)]));
  }
}

/** An item's digest: the sha256 of its canonical JSON. */
export function valueDigest(value: unknown): Buffer {
  return hash('sha256', canonicalJson(value), 'buffer');
}

/** Item digests, 32 bytes an item in the order added. */
class DigestList {
  private bytes = new Uint8Array(32 * 1024);
  private count = 0;

  /** Adds a value, by its digest when that is made already (valueDigest's, on another thread). */
  add(value: unknown, digest?: Uint8Array): void {
    this.push(digest ?? valueDigest(value));
  }

  /** Adds a value by its canonical JSON, as text or as UTF-8. */
  addCanonical(text: string | Uint8Array): void {
    this.push(hash('sha256', text, 'buffer'));
  }

  private push(digest: Uint8Array): void {
    const at = this.count++ * 32;
    if (at === this.bytes.length) this.bytes = resized(this.bytes, 2 * at);
    this.bytes.set(digest, at);
  }

  done(): Uint8Array {
    return this.bytes.slice(0, this.count * 32);
  }
}

/** Accumulates item digests as a loader reads the gold set, so the set is read once. */
export class GoldDigester {
  private readonly ids: string[] = [];
  private readonly list = new DigestList();

  /**
   * Adds one parsed gold line; `id` is the loader's own id for it (checked unique by the loader), `digest`
   * its valueDigest when a decoding thread made it.
   */
  add(id: string, value: unknown, digest?: Uint8Array): void {
    this.list.add(value, digest);
    this.ids.push(id);
  }

  finish(): GoldDigest {
    return digestOf(this.ids, this.list.done());
  }
}

/** The digest of items `ids`, whose own digests are `digests` (32 bytes each, in the same order). */
export function digestOf(ids: readonly string[], digests: Uint8Array): GoldDigest {
  return new GoldDigest(merkle(ids, digests), ids, digests);
}

/**
 * The digest of each line of a JSONL gold set, in file order, blank lines skipped: for a worker thread
 * digesting what another thread loads and checks, and so holding no ids (see digestOf).
 */
export async function lineDigests(files: readonly string[]): Promise<Uint8Array> {
  const list = new DigestList();
  const canonicalBytes = canonicalBytesWriter();
  for (const file of files) {
    for await (const batch of readLineBatches(file)) {
      for (let i = 0; i < batch.length; i++) {
        if (batch.blank(i)) continue;
        const bytes = canonicalBytes(batch.buf, batch.start(i), batch.end(i));
        if (bytes) {
          list.addCanonical(bytes);
          continue;
        }
        const canonical = canonicalJsonOfBytes(batch.buf, batch.start(i), batch.end(i));
        if (canonical !== undefined) {
          list.addCanonical(canonical);
          continue;
        }
        const text = batch.text(i);
        // A first line holding only a BOM is blank once text() drops it.
        if (!isBlank(text)) list.add(parseJsonLine(file, batch.line(i), text));
      }
    }
  }
  return list.done();
}

function merkle(ids: readonly string[], digests: Uint8Array): string {
  const bytes = Buffer.from(digests.buffer, digests.byteOffset, digests.byteLength);
  const order = ids.map((_, i) => i).sort((a, b) => compareCodeUnits(ids[a]!, ids[b]!));
  const h = createHash('sha256');
  for (const i of order) h.update(`${ids[i]}\t${bytes.toString('hex', i * 32, i * 32 + 32)}\n`);
  return h.digest('hex');
}

export function itemId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const field of ID_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
