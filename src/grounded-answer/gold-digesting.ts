import { digestOf, type GoldDigest } from '../gold/digest.js';
import { digestGold } from '../gold/digest-files.js';
import type { GoldItem } from './contract.js';
import type { Judging } from './judging.js';

// The gold set's digest when a worker makes it from the lines while the main thread loads the items.

/** The gold set's digest from the lines' digests a worker made, or made here if it could not. */
export function goldDigestFrom(
  digests: Uint8Array | null,
  gold: readonly GoldItem[],
  goldFiles: readonly string[],
): Promise<GoldDigest> | GoldDigest {
  // The worker's lines are the ones loadGold checked, in the same order: a count that differs means it read
  // something else (the file changed meanwhile), and the digest is made here instead.
  return digests && digests.length === gold.length * 32
    ? digestOf(
        gold.map((g) => g.qid),
        digests,
      )
    : digestGold(goldFiles);
}

/** For judging where no worker digests gold: the main thread digests it as it loads it. */
export const NO_DIGESTER: Pick<Judging, 'digestsGold' | 'goldDigest'> = {
  digestsGold: Promise.resolve(false),
  goldDigest: () => Promise.reject(new Error('internal: no worker digests this gold set')),
};
