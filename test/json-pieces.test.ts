import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ItemRecord } from '../src/report/item-record.js';
import { holdsMoreThan, stringifyInPieces } from '../src/report/json-pieces.js';
import { serializeReport, writeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { seeded } from './helpers/random.js';
import { REPO, tmpTree } from './helpers/tmp.js';

/** The pieces as written, each copied (a piece is valid during its call only). */
const pieces = (value: unknown, size?: number) => {
  const out: Buffer[] = [];
  stringifyInPieces(value, (p) => out.push(Buffer.from(p)), size);
  return out;
};
const joined = (got: Buffer[]) => Buffer.concat(got).toString('utf8');

/** A random plain value: every kind JSON.stringify treats specially, nested. */
function randomValue(rnd: () => number, depth = 0): unknown {
  const leaves = [
    null,
    true,
    false,
    0,
    -0,
    1.5e300,
    NaN,
    Infinity,
    -1,
    '',
    'é"\\\n\u2028\u0001💥',
    undefined,
  ];
  const r = rnd();
  if (depth > 3 || r < 0.4) return leaves[Math.floor(rnd() * leaves.length)];
  const n = Math.floor(rnd() * 5);
  if (r < 0.7) return Array.from({ length: n }, () => randomValue(rnd, depth + 1));
  const keys = ['a', '10', '2', 'b c', '"q"', '__proto__x', 'ü'];
  return Object.fromEntries(
    Array.from({ length: n }, () => [keys[Math.floor(rnd() * keys.length)]!, randomValue(rnd, depth + 1)]),
  );
}

describe('stringifyInPieces', () => {
  it('writes the bytes JSON.stringify(value, null, 2) does, in pieces of at most the size asked', () => {
    const rnd = seeded(31);
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(rnd);
      if (value === undefined) continue;
      const size = 1 + Math.floor(rnd() * 40);
      const got = pieces(value, size);
      expect(joined(got)).toBe(JSON.stringify(value, null, 2));
      // None is empty; one over the size is a text that could not fit (a UTF-8 character takes up to 3 bytes).
      expect(got.every((p) => p.length > 0)).toBe(true);
      expect(got.filter((p) => p.length > size).every((p) => p.length * 3 > size)).toBe(true);
    }
  });

  it('writes a 200k-item map as pieces of the size, each but the last filled to within an item', () => {
    const items = Object.fromEntries(
      Array.from({ length: 200_000 }, (_, i) => [`Q${i}`, { pass: i % 3 > 0, gold: 'c8417ec845dbfee1' }]),
    );
    const got = pieces({ items });
    expect(joined(got)).toBe(JSON.stringify({ items }, null, 2));
    expect(got.length).toBeGreaterThan(200);
    expect(got.every((p) => p.length <= 1 << 16)).toBe(true);
    expect(got.slice(0, -1).every((p) => p.length > (1 << 16) - 100)).toBe(true);
  });

  it('writes report.json byte for byte as serializeReport does, small (at once) or large (in pieces)', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml') });
    const file = path.join(tmpTree({}), 'report.json');
    writeReport(file, report);
    expect(readFileSync(file, 'utf8')).toBe(serializeReport(report));
    expect(holdsMoreThan(report, 20_000)).toBe(false);
    // 30k items: past the threshold, so the pieces are what is written.
    const qa = report.suites.qa!;
    const items = ItemRecord.fromColumns(
      Array.from({ length: 30_000 }, (_, i) => `Q${i}`),
      Array.from({ length: 30_000 }, (_, i) => (i % 7 > 0 ? 1 : 0)),
      // Item i's digest: i as 8 bytes, big-endian; a third have none.
      {
        bytes: Buffer.from(BigUint64Array.from({ length: 30_000 }, (_, i) => BigInt(i)).buffer).swap64(),
        offset: (i) => (i % 3 ? 8 * i : undefined),
      },
    );
    const large = { ...report, suites: { ...report.suites, qa: { ...qa, items } } };
    expect(holdsMoreThan(large, 20_000)).toBe(true);
    writeReport(file, large);
    expect(readFileSync(file, 'utf8')).toBe(serializeReport(large));
    expect(JSON.parse(readFileSync(file, 'utf8')).suites.qa.items.Q4780).toEqual({
      pass: true,
      gold: '00000000000012ac',
    });
  });
});

describe('holdsMoreThan', () => {
  it('counts every value at any depth, the container included, and stops past the limit', () => {
    const value = { a: [1, 2, { b: null }], c: 'x' }; // the object, a, 1, 2, {b}, null, 'x': 7
    expect(holdsMoreThan(value, 6)).toBe(true);
    expect(holdsMoreThan(value, 7)).toBe(false);
    expect(holdsMoreThan(42, 0)).toBe(true);
    expect(holdsMoreThan(42, 1)).toBe(false);
    let visited = 0;
    const counting = new Proxy([], {
      get: (t, k) =>
        k === 'length' ? 1e6 : typeof k === 'string' && /^\d+$/.test(k) ? ++visited : Reflect.get(t, k),
    });
    expect(holdsMoreThan(counting, 100)).toBe(true);
    expect(visited).toBeLessThanOrEqual(100);
  });

  it('counts past members it knows the number of without making them; counts a few it knows one by one', () => {
    let made = 0;
    const members = (n: number) => ({
      size: n,
      toJSON: () => ({}),
      *members(): Generator<[string, unknown]> {
        for (let i = 0; i < n; i++) yield [`k${i}`, ++made];
      },
    });
    expect(holdsMoreThan({ items: members(30_000) }, 20_000)).toBe(true);
    expect(made).toBe(0);
    // The object, items, and 3 members: 5.
    expect(holdsMoreThan({ items: members(3) }, 4)).toBe(true);
    expect(holdsMoreThan({ items: members(3) }, 5)).toBe(false);
    expect(made).toBe(3);
  });
});
