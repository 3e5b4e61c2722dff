import { seeded } from './seeded.js';

/** Up to this many nonzero differences, every sign flip is enumerated (2^20, about a million sums). */
export const EXACT_UP_TO = 20;
/** Beyond it, this many random sign flips, unless the differences are so many that WORK caps them. */
export const PERMUTATIONS = 100_000;
/**
 * At most this many additions (flips × differences): 100,000 flips of 100,000 queries would hold a run for
 * tens of seconds. Past 2,000 differences the flips are fewer, never below MIN_PERMUTATIONS, and the
 * standard error (which says how many were drawn) grows with them.
 */
export const WORK = 200_000_000;
export const MIN_PERMUTATIONS = 2_000;

/** How many random sign flips m nonzero differences get. */
export const permutationsFor = (m: number): number =>
  Math.max(MIN_PERMUTATIONS, Math.min(PERMUTATIONS, Math.floor(WORK / m)));
/** The generator's seed: the same differences give the same p on every machine. */
export const PERMUTATION_SEED = 0x72616e6b;

export interface PairedRandomization {
  p: number;
  /** 'exact' over all 2^m sign flips of the m nonzero differences, else 'monte_carlo'. */
  method: 'exact' | 'monte_carlo';
  /** The Monte Carlo standard error √(p(1 − p)/B); 0 when exact. */
  error: number;
  /** The sign assignments counted: 2^m when exact, else B. */
  permutations: number;
}

/**
 * The two-sided paired randomization (sign-flip) test of after − before: under "no difference" each item's
 * difference is as likely negated, so p is the share of sign assignments whose |sum| reaches the observed one
 * (Fisher; the test Smucker, Allan and Carterette, CIKM 2007, recommend for IR). Zero differences flip to
 * themselves and are left out. Monte Carlo p counts the observed assignment too, (hits + 1) / (B + 1), so it
 * is never 0 (Phipson and Smyth 2010).
 */
export function pairedRandomization(differences: ArrayLike<number>): PairedRandomization {
  const d: number[] = [];
  for (let i = 0; i < differences.length; i++) if (differences[i] !== 0) d.push(differences[i]!);
  const m = d.length;
  if (m === 0) return { p: 1, method: 'exact', error: 0, permutations: 1 };
  let observed = 0;
  let scale = 0;
  for (const x of d) {
    observed += x;
    scale += Math.abs(x);
  }
  // Sums of the same numbers in another order differ in the last bits: a flip that ties the observed sum
  // must count as reaching it.
  const reach = Math.abs(observed) - scale * 1e-12;
  return m <= EXACT_UP_TO ? exact(d, observed, reach) : monteCarlo(d, reach);
}

/** Every sign assignment in Gray-code order: one sign changes per step, so each sum is one addition. */
function exact(d: readonly number[], observed: number, reach: number): PairedRandomization {
  const m = d.length;
  const sign = new Int8Array(m).fill(1);
  let sum = observed;
  let hits = Math.abs(sum) >= reach ? 1 : 0;
  const total = 2 ** m;
  for (let step = 1; step < total; step++) {
    const bit = 31 - Math.clz32(step & -step);
    sum -= 2 * sign[bit]! * d[bit]!;
    sign[bit] = -sign[bit]!;
    if (Math.abs(sum) >= reach) hits++;
  }
  return { p: hits / total, method: 'exact', error: 0, permutations: total };
}

function monteCarlo(d: readonly number[], reach: number): PairedRandomization {
  const random = seeded(PERMUTATION_SEED);
  const values = Float64Array.from(d);
  const m = values.length;
  const flips = permutationsFor(m);
  let hits = 0;
  for (let b = 0; b < flips; b++) {
    let sum = 0;
    // 32 signs from each draw of the generator.
    for (let i = 0; i < m; i += 32) {
      const bits = Math.floor(random() * 4294967296);
      const end = Math.min(m, i + 32);
      for (let j = i; j < end; j++) sum += (bits >>> (j - i)) & 1 ? values[j]! : -values[j]!;
    }
    if (Math.abs(sum) >= reach) hits++;
  }
  const p = (hits + 1) / (flips + 1);
  return { p, method: 'monte_carlo', error: Math.sqrt((p * (1 - p)) / flips), permutations: flips };
}
