import { describe, expect, it } from 'vitest';
import { encodePlaces, Places, type Place } from '../src/suites/grounded-qa/gold-places.js';
import { seeded } from './helpers/random.js';

describe('gold places', () => {
  it('reads back what was written, in order and from any item on, across files, gaps and Parquet rows', () => {
    const rnd = seeded(64);
    for (const n of [0, 1, 63, 64, 65, 300]) {
      const places: Place[] = [];
      let file = 0;
      let line = 0;
      let offset = 0;
      for (let i = 0; i < n; i++) {
        if (rnd() < 0.05) [file, line, offset] = [file + 1 + Math.floor(rnd() * 2), 0, 0];
        // Mostly the next line right after the last; now and then blank lines, CRLF, a row without bytes.
        line += rnd() < 0.9 ? 1 : 2 + Math.floor(rnd() * 5);
        const length = Math.floor(rnd() * 2 ** (rnd() < 0.01 ? 40 : 10));
        const row = rnd() < 0.05;
        places.push({ file, line, offset: row ? -1 : offset, length: row ? 0 : length });
        if (!row) offset += length + 1 + (rnd() < 0.2 ? Math.floor(rnd() * 3) : 0);
      }
      const seen: Place[] = [];
      const read = Places.read(encodePlaces(places), n, (_, p) => seen.push({ ...p }));
      expect(seen).toEqual(places);
      expect(places.map((_, i) => read!.at(i))).toEqual(places);
      expect(() => read!.at(n)).toThrow(RangeError);
    }
  });

  it('is a byte a number when each item is the next line, and refuses bytes for more or fewer items', () => {
    const places = Array.from({ length: 1000 }, (_, i) => ({
      file: 0,
      line: i + 1,
      offset: 300 * i,
      length: 299,
    }));
    const bytes = encodePlaces(places);
    // The first item's 4 numbers take 1 + 1 + 1 + 2 bytes (length 299, zigzagged 598); each later one 4.
    expect(bytes.length).toBe(5 + 999 * 4);
    expect(Places.read(bytes, 999, () => undefined)).toBeUndefined();
    expect(Places.read(bytes, 1001, () => undefined)).toBeUndefined();
    expect(Places.read(bytes.subarray(0, bytes.length - 1), 1000, () => undefined)).toBeUndefined();
  });
});
