import { describe, expect, it } from 'vitest';
import { digestsApart } from '../src/errors.js';
import { goldDifference } from '../src/partial/run.js';

const A = `0aa1d6ccfc3b${'5'.repeat(52)}`;
const B = `0aa1d6ccfc3b${'5'.repeat(20)}7${'5'.repeat(31)}`;

describe('digests in error messages', () => {
  it('are shown until they differ, and 4 characters more; 12 when they differ sooner', () => {
    expect(digestsApart(A, B)).toEqual([
      `0aa1d6ccfc3b${'5'.repeat(20)}5555…`,
      `0aa1d6ccfc3b${'5'.repeat(20)}7555…`,
    ]);
    expect(digestsApart('ab' + A.slice(2), A)).toEqual(['aba1d6ccfc3b…', '0aa1d6ccfc3b…']);
    expect(digestsApart(undefined, A)).toEqual(['none', '0aa1d6ccfc3b…']);
  });

  it("a shard's gold names what differs: the digest, the item count or the lock", () => {
    const lock = { file: 'qa.gold.lock.json', status: 'match' as const, added: [], removed: [], changed: [] };
    expect(goldDifference({ sha256: A, items: 3 }, { sha256: B, items: 3 })).toBe(
      `gold 0aa1d6ccfc3b${'5'.repeat(20)}5555…; expected 0aa1d6ccfc3b${'5'.repeat(20)}7555…`,
    );
    expect(goldDifference({ sha256: A, items: 4 }, { sha256: A, items: 3 })).toBe(
      'gold of 4 items; expected 3',
    );
    expect(
      goldDifference(
        { sha256: A, items: 3, lock: { ...lock, status: 'mismatch', changed: ['q1'] } },
        { sha256: A, items: 3, lock },
      ),
    ).toBe(
      'gold lock qa.gold.lock.json mismatch (0 added, 0 removed, 1 changed); expected lock qa.gold.lock.json match (0 added, 0 removed, 0 changed)',
    );
    expect(goldDifference({ sha256: A, items: 3 }, { sha256: A, items: 3, lock })).toMatch(
      /^gold no lock; expected lock/,
    );
  });
});
