import { createHash, hash } from 'node:crypto';
import { InputError, type Where } from '../errors.js';
import { compareCodeUnits } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { canonicalJson } from './canonical.js';

/** Field names that identify a gold item, tried in order. */
export const ID_FIELDS = ['qid', 'id', 'instance_id', 'inst_id', 'original_inst_id', 'query_id'] as const;

/**
 * A gold set's digest. Item digests stay raw, 32 bytes an item in the order read: 200k items as hex strings
 * in a map held about 25 MB until the report was written.
 */
export class GoldDigest {
  private readonly bytes: Buffer;

  constructor(
    /**
     * sha256 over "id<TAB>item sha256<LF>" for every item, sorted by id (a one-level Merkle list): line and
     * key order do not matter, any changed value does, and no item text has to be kept to compute it.
     */
    readonly sha256: string,
    /** Item ids in the order read. */
    readonly ids: readonly string[],
    digests: Uint8Array,
  ) {
    this.bytes = Buffer.from(digests.buffer, digests.byteOffset, digests.byteLength);
  }

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

/** Accumulates item digests as a loader reads the gold set, so the set is read once. */
export class GoldDigester {
  private readonly ids: string[] = [];
  private digests = new Uint8Array(32 * 1024);

  /** Adds one parsed gold line; `id` is the loader's own id for it (checked unique by the loader). */
  add(id: string, value: unknown): void {
    const at = this.ids.length * 32;
    if (at === this.digests.length) {
      const bigger = new Uint8Array(this.digests.length * 2);
      bigger.set(this.digests);
      this.digests = bigger;
    }
    this.digests.set(hash('sha256', canonicalJson(value), 'buffer'), at);
    this.ids.push(id);
  }

  finish(): GoldDigest {
    const digests = this.digests.slice(0, this.ids.length * 32);
    return new GoldDigest(merkle(this.ids, digests), this.ids, digests);
  }
}

function merkle(ids: readonly string[], digests: Uint8Array): string {
  const bytes = Buffer.from(digests.buffer, digests.byteOffset, digests.byteLength);
  const order = ids.map((_, i) => i).sort((a, b) => compareCodeUnits(ids[a]!, ids[b]!));
  const h = createHash('sha256');
  for (const i of order) h.update(`${ids[i]}\t${bytes.toString('hex', i * 32, i * 32 + 32)}\n`);
  return h.digest('hex');
}

/** Digests any JSONL gold set with ids (for kinds whose loader does not digest as it reads). */
export async function digestGold(files: readonly string[]): Promise<GoldDigest> {
  return (await digestLines(files)).finish();
}

async function digestLines(files: readonly string[]): Promise<GoldDigester> {
  const digester = new GoldDigester();
  const seen = new Set<string>();
  for (const file of files) {
    for await (const { line, value } of readJsonl(file)) {
      const where: Where = { file, line };
      const id = itemId(value);
      if (id === undefined) throw new InputError(where, `gold item has no id; expected a string field ${ID_FIELDS.join(', ')}`);
      if (seen.has(id)) throw new InputError(where, `duplicate gold id ${JSON.stringify(id)}; expected unique ids`);
      seen.add(id);
      digester.add(id, value);
    }
  }
  return digester;
}

export function itemId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const field of ID_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
