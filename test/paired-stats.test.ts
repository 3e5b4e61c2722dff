import { describe, expect, it } from 'vitest';
import { pairedDelta } from '../src/metrics/paired-delta.js';
import {
  EXACT_UP_TO,
  MIN_PERMUTATIONS,
  PERMUTATIONS,
  pairedRandomization,
  permutationsFor,
} from '../src/metrics/paired-randomization.js';
import { pairedT } from '../src/metrics/paired-t.js';
import { studentTCritical, studentTTwoSided } from '../src/metrics/student-t.js';
import { seeded } from '../src/metrics/seeded.js';

/**
 * An independent two-sided tail of Student's t: 1 − 2∫₀^|t| f(x) dx by composite Simpson's rule with 400,000
 * steps, the density's constant Γ((ν+1)/2) / (√(νπ) Γ(ν/2)) from exact half-integer gamma values (integer ν).
 * Its error is far below 1e-11 for the |t| < 10 used here.
 */
function tailByIntegration(t: number, df: number): number {
  const gamma = (x: number): number =>
    x === 0.5 ? Math.sqrt(Math.PI) : x === 1 ? 1 : (x - 1) * gamma(x - 1);
  const c = gamma((df + 1) / 2) / (Math.sqrt(df * Math.PI) * gamma(df / 2));
  const f = (x: number) => c * (1 + (x * x) / df) ** (-(df + 1) / 2);
  const steps = 400_000;
  const b = Math.abs(t);
  const h = b / steps;
  let sum = f(0) + f(b);
  for (let i = 1; i < steps; i++) sum += (i % 2 ? 4 : 2) * f(i * h);
  return 1 - 2 * ((h / 3) * sum);
}

/** Every sign assignment counted directly (a bitmask per assignment, each sum from scratch). */
function exactByEnumeration(d: readonly number[]): number {
  const nonzero = d.filter((x) => x !== 0);
  const observed = Math.abs(nonzero.reduce((a, b) => a + b, 0));
  const total = 2 ** nonzero.length;
  let hits = 0;
  for (let mask = 0; mask < total; mask++) {
    let s = 0;
    for (let i = 0; i < nonzero.length; i++) s += mask & (1 << i) ? -nonzero[i]! : nonzero[i]!;
    if (Math.abs(s) >= observed - 1e-9) hits++;
  }
  return hits / total;
}

// R's `sleep` data (datasets package): extra hours of sleep of 10 patients under drug 1 and drug 2.
const DRUG1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const DRUG2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

describe('Student t', () => {
  it('two-sided tails equal an independent numerical integration of the density to 1e-9', () => {
    for (const [t, df] of [
      [-4.062127683382037, 9],
      [2.5, 4],
      [0.3, 1],
      [1.7, 29],
      [6, 12],
    ] as const) {
      expect(Math.abs(studentTTwoSided(t, df) - tailByIntegration(t, df))).toBeLessThan(1e-9);
    }
  });

  it('critical values match the printed t tables', () => {
    // t(0.975, 1) = 12.7062, t(0.975, 9) = 2.2622, t(0.975, 30) = 2.0423; ν → ∞: z = 1.959964.
    expect(studentTCritical(0.05, 1)).toBeCloseTo(12.70620474, 7);
    expect(studentTCritical(0.05, 9)).toBeCloseTo(2.262157163, 8);
    expect(studentTCritical(0.05, 30)).toBeCloseTo(2.042272456, 8);
    expect(studentTCritical(0.05, 1e7)).toBeCloseTo(1.959964, 5);
  });
});

describe('pairedT', () => {
  it("reproduces R's t.test(extra ~ group, data = sleep, paired = TRUE)", () => {
    // R prints t = -4.0621, df = 9, p-value = 0.002833, 95% CI -2.4598858 -0.7001142, mean -1.58.
    // By hand: the differences d = drug1 − drug2 sum to −15.8 (mean −1.58), Σ(d − mean)² = 13.616,
    // sd = √(13.616 / 9) = 1.2299955, se = sd / √10 = 0.3889587, t = −1.58 / se = −4.0621277.
    const r = pairedT(DRUG1.map((x, i) => x - DRUG2[i]!))!;
    expect(r.n).toBe(10);
    expect(r.df).toBe(9);
    expect(r.mean).toBeCloseTo(-1.58, 12);
    expect(r.t!).toBeCloseTo(-4.062127683, 8);
    expect(Math.abs(r.p - tailByIntegration(-4.062127683382037, 9))).toBeLessThan(1e-9);
    expect(r.p).toBeCloseTo(0.002833, 6);
    expect(r.ci95[0]).toBeCloseTo(-2.4598858, 7);
    expect(r.ci95[1]).toBeCloseTo(-0.7001142, 7);
  });

  it('equals scipy.stats.ttest_rel to 1e-9 (t and p printed by scipy 1.17.1, Debian python3-scipy)', () => {
    // before_i = (7919 i mod 1000) / 1000, after_i = before_i + ((104729 i mod 201) − 100) / 1000 + shift,
    // the same doubles in both languages; scipy's ttest_rel(after, before) printed with repr().
    const cases: [n: number, shift: number, t: number, p: number][] = [
      [3, 0.05, -9.093266739736547, 0.011878669475434266],
      [7, 0.01, -10.104145188980608, 5.4595376333708515e-5],
      [25, 0.005, 0.08492077756084608, 0.9330288105941412],
      [60, -0.012, -2.5934987310121675, 0.01196249949010847],
      [485, 0.003, 0.8421123707195274, 0.4001409662531659],
      [5000, -0.0015, -1.8094992600157023, 0.07043351295033877],
    ];
    for (const [n, shift, t, p] of cases) {
      const before = Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000);
      const after = before.map((x, i) => x + (((i * 104729) % 201) - 100) / 1000 + shift);
      const r = pairedT(after.map((y, i) => y - before[i]!))!;
      expect(Math.abs(r.t! - t)).toBeLessThan(1e-9 * Math.max(1, Math.abs(t)));
      expect(Math.abs(r.p - p)).toBeLessThan(1e-9 * Math.max(p, 1e-3));
    }
  });

  it('is undefined for one item and certain for a constant difference', () => {
    expect(pairedT([0.5])).toBeUndefined();
    expect(pairedT([0, 0, 0])).toMatchObject({ p: 1, t: null, ci95: [0, 0] });
    expect(pairedT([-0.25, -0.25])).toMatchObject({ p: 0, t: null, mean: -0.25 });
  });
});

describe('pairedRandomization', () => {
  it('enumerates every sign flip up to 20 nonzero differences', () => {
    // Five equal differences: only all-plus and all-minus reach |5|: 2 / 32.
    expect(pairedRandomization([1, 1, 1, 1, 1])).toEqual({
      p: 0.0625,
      method: 'exact',
      error: 0,
      permutations: 32,
    });
    // Zeros flip to themselves and change nothing.
    expect(pairedRandomization([0, 1, 0, 1, 1, 1, 1]).p).toBe(0.0625);
    expect(pairedRandomization([0, 0]).p).toBe(1);
    // Signs of (3, −1, 2): +++ 4, ++− 0, +−+ 6, +−− 2, −++ −2, −+− −6, −−+ 0, −−− −4: |s| ≥ 4 in 4 of 8.
    expect(pairedRandomization([3, -1, 2]).p).toBe(0.5);
  });

  it('equals an independent enumeration for small n', () => {
    const random = seeded(7);
    for (const n of [2, 5, 9, 14, EXACT_UP_TO]) {
      const d = Array.from({ length: n }, () => Math.round((random() - 0.6) * 1000) / 1000);
      const r = pairedRandomization(d);
      expect(r.method).toBe('exact');
      expect(r.p).toBe(exactByEnumeration(d));
    }
  });

  it('the sleep data: the exact p of the ten differences', () => {
    // 9 nonzero differences (patient 5 is 0), all negative: only the all-minus and all-plus flips reach
    // |−15.8|: 2 / 512.
    expect(pairedRandomization(DRUG1.map((x, i) => x - DRUG2[i]!)).p).toBe(2 / 512);
  });

  it('past 20 items, 100,000 seeded flips land within their stated error of the exact p', () => {
    const random = seeded(11);
    const d = Array.from({ length: 22 }, () => Math.round((random() - 0.58) * 100) / 100);
    const exact = exactByEnumeration(d);
    const r = pairedRandomization(d);
    expect(r.method).toBe('monte_carlo');
    expect(exact).toBeGreaterThan(0.01);
    expect(exact).toBeLessThan(0.5);
    expect(r.error).toBeCloseTo(Math.sqrt((r.p * (1 - r.p)) / PERMUTATIONS), 15);
    // Four standard errors, plus the 1 / (B + 1) that counting the observed flip adds.
    expect(Math.abs(r.p - exact)).toBeLessThan(4 * r.error + 1 / (PERMUTATIONS + 1));
    // The seed is fixed: the p is this number on every machine (3,409 flips reached it, plus the observed).
    expect(r.p).toBe(3410 / (PERMUTATIONS + 1));
  });
});

describe('the randomization test on many items', () => {
  it('draws fewer flips past 2,000 differences, so that flips × differences stay at most 2·10^8', () => {
    expect(permutationsFor(21)).toBe(100_000);
    expect(permutationsFor(2_000)).toBe(100_000);
    expect(permutationsFor(2_001)).toBe(99_950);
    expect(permutationsFor(100_000)).toBe(2_000);
    // A million queries still get MIN_PERMUTATIONS flips: a stated error, never no test.
    expect(permutationsFor(1_000_000)).toBe(MIN_PERMUTATIONS);
  });

  it('100,000 differences: 2,000 flips, p within its stated error of the normal approximation', () => {
    // Differences ±1 with 50,300 of the 100,000 positive: the sum is 600, and under the null Σ±1 has
    // variance 100,000, so two-sided p ≈ 2(1 − Φ(600/√100000)) = 2(1 − Φ(1.8974)) = 0.05777.
    const d = Array.from({ length: 100_000 }, (_, i) => (i < 50_300 ? 1 : -1));
    const r = pairedRandomization(d);
    expect(r.method).toBe('monte_carlo');
    expect(r.permutations).toBe(2_000);
    expect(r.error).toBeCloseTo(Math.sqrt((r.p * (1 - r.p)) / 2_000), 15);
    expect(Math.abs(r.p - 0.05777)).toBeLessThan(4 * r.error + 1 / 2_001);
  });
});

describe('pairedDelta', () => {
  it('combines both tests over now − before', () => {
    const d = pairedDelta(DRUG2, DRUG1)!;
    expect(d).toMatchObject({ items: 10, randomization: 'exact', randomization_p: 2 / 512 });
    expect(d.mean_delta).toBeCloseTo(-1.58, 12);
    expect(d.t_p).toBeCloseTo(0.002833, 6);
    expect(pairedDelta([0.5], [0.25])).toBeUndefined();
  });
});
