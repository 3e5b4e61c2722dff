/** A configuration on a trade-off: lower cost (latency) and higher gain (accuracy) are better. */
export interface TradeOff {
  cost: number;
  gain: number;
}

/**
 * For each point, the index of the first point that dominates it — no worse on both axes and strictly
 * better on one — or -1 when none does. The points with -1 are the Pareto set. Equal points do not
 * dominate each other, so ties stay on the frontier together.
 */
export function dominators(points: readonly TradeOff[]): number[] {
  return points.map((p) =>
    points.findIndex((q) => q.cost <= p.cost && q.gain >= p.gain && (q.cost < p.cost || q.gain > p.gain)),
  );
}
