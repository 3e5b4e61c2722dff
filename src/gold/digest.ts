import { createHash } from 'node:crypto';
import { InputError } from '../errors.js';
import { compareCodeUnits } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { canonicalJson } from './canonical.js';

/** Field names that identify a gold item, tried in order. */
export const ID_FIELDS = ['qid', 'id', 'instance_id', 'query_id'] as const;

export interface GoldDigest {
  /** sha256 of every item's canonical line, items sorted by id: line order does not matter. */
  sha256: string;
  /** Per-item sha256 of its canonical JSON, so a change can be named. */
  items: Map<string, string>;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Digests a JSONL gold set (one or more files), streaming; items need a unique id. */
export async function digestGold(files: readonly string[]): Promise<GoldDigest> {
  const items = new Map<string, string>();
  const canonical = new Map<string, string>();
  for (const file of files) {
    for await (const { line, value } of readJsonl(file)) {
      const id = itemId(value);
      if (id === undefined) {
        throw new InputError({ file, line }, `gold item has no id; expected a string field ${ID_FIELDS.join(', ')}`);
      }
      if (items.has(id)) throw new InputError({ file, line }, `duplicate gold id ${JSON.stringify(id)}; expected unique ids`);
      const text = canonicalJson(value);
      canonical.set(id, text);
      items.set(id, sha256(text));
    }
  }
  const hash = createHash('sha256');
  for (const id of [...items.keys()].sort(compareCodeUnits)) hash.update(`${canonical.get(id)}\n`);
  return { sha256: hash.digest('hex'), items };
}

export function itemId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const field of ID_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
