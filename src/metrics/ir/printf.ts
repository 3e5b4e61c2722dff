/**
 * `x` as C's printf("%.4f") prints it (x ≥ 0), the way trec_eval prints every measure. toFixed(4) already
 * rounds the exact binary value, except on an exact tie at the fifth decimal, which it breaks upward where
 * glibc rounds half to even. At four decimals such ties are exactly the odd multiples of 1/32 (1/32 prints
 * 0.0312, not 0.0313), and means over 32 queries hit them.
 */
export function printf4(x: number): string {
  const t = x * 32; // exact: a power of two
  if (Number.isInteger(t) && t % 2 === 1) {
    const [whole, fraction] = x.toFixed(5).split('.') as [string, string]; // exact: x has 5 decimals
    if (Number(fraction[3]) % 2 === 0) return `${whole}.${fraction.slice(0, 4)}`;
  }
  return x.toFixed(4);
}
