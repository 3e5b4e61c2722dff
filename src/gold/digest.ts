import { createHash, hash } from 'node:crypto';
import { InputError, type Where } from '../errors.js';
import { compareCodeUnits } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { canonicalJson } from './canonical.js';

/** Field names that identify a gold item, tried in order. */
export const ID_FIELDS = ['qid', 'id', 'instance_id', 'inst_id', 'original_inst_id', 'query_id'] as const;

export interface GoldDigest {
  /**
   * sha256 over "id<TAB>item sha256<LF>" for every item, sorted by id (a one-level Merkle list): line and
   * key order do not matter, any changed value does, and no item text has to be kept to compute it.
   */
  sha256: string;
  /** Per-item sha256 of its canonical JSON, so a change can be named. */
  items: Map<string, string>;
}

export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/** Accumulates item digests as a loader reads the gold set, so the set is read once. */
export class GoldDigester {
  private readonly items = new Map<string, string>();

  /** Adds one parsed gold line; `id` is the loader's own id for it (checked unique by the loader). */
  add(id: string, value: unknown): void {
    this.items.set(id, sha256(canonicalJson(value)));
  }

  finish(): GoldDigest {
    const merkle = createHash('sha256');
    for (const id of [...this.items.keys()].sort(compareCodeUnits)) merkle.update(`${id}\t${this.items.get(id)}\n`);
    return { sha256: merkle.digest('hex'), items: this.items };
  }
}

/** Digests any JSONL gold set with ids (for kinds whose loader does not digest as it reads). */
export async function digestGold(files: readonly string[]): Promise<GoldDigest> {
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
  return digester.finish();
}

export function itemId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const field of ID_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
