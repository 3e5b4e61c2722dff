import { resolveMetric, type ResolvedMetric } from '../metrics/spec.js';
import { suiteKind } from '../suites/registry.js';

export interface LegendLine {
  metric: string;
  /** One line: what the metric measures, from its spec. */
  text: string;
}

/**
 * A family's description says "k" for its cutoff; the legend of `recall@5` says 5, so a reader sees what
 * the number in the name means.
 */
export function describeMetric(resolved: ResolvedMetric): string {
  const { spec, k } = resolved;
  return k === undefined ? spec.description : spec.description.replace(/\bk\b/g, String(k));
}

/** The legend line of one metric of a suite kind; undefined when no spec knows the name. */
export function legendLine(kind: string, metric: string): string | undefined {
  const specs = suiteKind(kind)?.metrics;
  const resolved = specs && resolveMetric(metric, specs);
  return resolved ? describeMetric(resolved) : undefined;
}

/** One line per metric, in the order given; names no spec knows are left out. */
export function legend(kind: string, metrics: readonly string[]): LegendLine[] {
  return metrics.flatMap((metric) => {
    const text = legendLine(kind, metric);
    return text === undefined ? [] : [{ metric, text }];
  });
}
