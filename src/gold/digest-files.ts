import { InputError, type Where } from '../errors.js';
import { readRecordsOf } from '../io/records.js';
import { GoldDigester, ID_FIELDS, itemId, type GoldDigest } from './digest.js';

// Apart from digest.ts, which the grounded-qa worker bundles: reading any gold file may load the Parquet reader.

/** Digests any gold set with ids, JSON Lines or Parquet (for kinds whose loader does not digest as it reads). */
export async function digestGold(files: readonly string[]): Promise<GoldDigest> {
  return (await digestLines(files)).finish();
}

async function digestLines(files: readonly string[]): Promise<GoldDigester> {
  const digester = new GoldDigester();
  const seen = new Set<string>();
  for (const file of files) {
    for await (const { line, value, digest } of readRecordsOf(file, { digests: true })) {
      const where: Where = { file, line };
      const id = itemId(value);
      if (id === undefined) throw new InputError(where, `gold item has no id; expected a string field ${ID_FIELDS.join(', ')}`);
      if (seen.has(id)) throw new InputError(where, `duplicate gold id ${JSON.stringify(id)}; expected unique ids`);
      seen.add(id);
      digester.add(id, value, digest);
    }
  }
  return digester;
}

