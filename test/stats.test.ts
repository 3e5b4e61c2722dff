import { describe, expect, it } from 'vitest';
import { mcnemarExact } from '../src/metrics/mcnemar.js';
import { wilson } from '../src/metrics/wilson.js';

describe('wilson', () => {
  it('matches hand-computed 95% intervals', () => {
    // 9/10: p = 0.9, z² = 3.841459; denom = 1.3841459; center = (0.9 + 0.1920729)/1.3841459 = 0.788869;
    // half = 1.959964·√(0.009 + 0.0096036)/1.3841459 = 0.193075 → [0.595850, 0.982124].
    const [lo, hi] = wilson(9, 10);
    expect(lo).toBeCloseTo(0.59585, 5);
    expect(hi).toBeCloseTo(0.982124, 5);
    // 30/33 (the example's precision): z²/n = 0.116408, denom = 1.116408; center = (0.909091 + 0.058204)/1.116408
    // = 0.866433; half = 1.959964·√(0.0025044 + 0.00088188)/1.116408 = 0.102162 → [0.764271, 0.968595].
    const [lo2, hi2] = wilson(30, 33);
    expect(lo2).toBeCloseTo(0.764271, 4);
    expect(hi2).toBeCloseTo(0.968595, 4);
  });

  it('is exact at the ends and symmetric', () => {
    expect(wilson(0, 10)[0]).toBe(0);
    expect(wilson(10, 10)[1]).toBe(1);
    // 0/10: upper = z²/n / (1 + z²/n) = 0.3841459/1.3841459 = 0.277533.
    expect(wilson(0, 10)[1]).toBeCloseTo(0.277533, 5);
    const [a, b] = wilson(3, 10);
    const [c, d] = wilson(7, 10);
    expect(a).toBeCloseTo(1 - d, 12);
    expect(b).toBeCloseTo(1 - c, 12);
    expect(() => wilson(0, 0)).toThrow(RangeError);
  });
});

describe('mcnemarExact', () => {
  it('matches hand-computed binomial tails', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    // b=5, c=0: 2 · (1/2)^5 = 0.0625.
    expect(mcnemarExact(5, 0)).toBe(0.0625);
    // b=6, c=1: 2 · (1 + 7)/128 = 0.125.
    expect(mcnemarExact(6, 1)).toBeCloseTo(0.125, 15);
    // b=10, c=2: 2 · (1 + 12 + 66)/4096 = 0.0385742...
    expect(mcnemarExact(10, 2)).toBeCloseTo(158 / 4096, 15);
    expect(mcnemarExact(2, 10)).toBeCloseTo(158 / 4096, 15);
    expect(mcnemarExact(3, 3)).toBe(1);
  });

  it('stays finite for thousands of flips', () => {
    const p = mcnemarExact(2000, 1900);
    expect(p).toBeGreaterThan(0.1);
    expect(p).toBeLessThan(0.12);
    expect(mcnemarExact(3000, 0)).toBe(0);
  });
});
