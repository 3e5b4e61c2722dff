import { describe, expect, it } from 'vitest';
import { encodeVarints, unzigzag, VarintReader, zigzag } from '../src/partial/varint.js';
import { seeded } from './helpers/random.js';

const readAll = (bytes: Uint8Array, count: number): number[] | undefined => {
  const r = new VarintReader(bytes);
  const out = Array.from({ length: count }, () => r.next());
  return out.includes(-1) || !r.done ? undefined : out;
};

describe('varints', () => {
  it('encodes 0, 127, 128, 300 and 2^53 - 1 in 1, 1, 2, 2 and 8 bytes, and reads them back', () => {
    const values = [0, 127, 128, 300, Number.MAX_SAFE_INTEGER];
    const bytes = encodeVarints(values);
    expect([...bytes.subarray(0, 6)]).toEqual([0, 127, 0x80, 0x01, 0xac, 0x02]);
    expect(bytes.length).toBe(1 + 1 + 2 + 2 + 8);
    expect(readAll(bytes, 5)).toEqual(values);
  });

  it('round-trips random safe integers of every size, and signed ones through zigzag', () => {
    const rnd = seeded(53);
    const values = Array.from({ length: 5000 }, () => Math.floor(rnd() * 2 ** Math.floor(rnd() * 54)));
    expect(readAll(encodeVarints(values), values.length)).toEqual(values);
    const signed = values.map((v, i) => (i % 2 ? -Math.floor(v / 4) : Math.floor(v / 4)));
    expect(signed.map(zigzag).map(unzigzag)).toEqual(signed);
    expect([0, -1, 1, -2, 2].map(zigzag)).toEqual([0, 1, 2, 3, 4]);
  });

  it('reads -1 where the bytes end early, hold a value past 2^53, or a ninth byte', () => {
    const bytes = encodeVarints([1, 2, 3]);
    expect(readAll(bytes, 4)).toBeUndefined();
    expect(readAll(bytes, 2)).toBeUndefined(); // bytes left over
    expect(new VarintReader(Uint8Array.from([0x80])).next()).toBe(-1);
    expect(new VarintReader(Uint8Array.from([...Array(7).fill(0xff), 0x7f])).next()).toBe(-1); // 2^56 - 1
    expect(new VarintReader(Uint8Array.from([...Array(8).fill(0x80), 0x00])).next()).toBe(-1);
    expect(() => encodeVarints([-1])).toThrow();
    expect(() => encodeVarints([2 ** 53])).toThrow();
  });
});
