/**
 * Exact (binomial) two-sided McNemar test on the discordant pairs of a paired comparison: b items went
 * from pass to fail, c from fail to pass. Under "no change" each discordant item is a fair coin, so
 * p = min(1, 2 · P[X ≤ min(b, c)]) with X ~ Binomial(b + c, 1/2). Computed in log space so that
 * thousands of flips neither overflow nor underflow.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}
