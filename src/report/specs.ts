import { resolveMetric, type MetricSpec } from '../metrics/spec.js';
import { suiteKind } from '../suites/registry.js';

/** The spec behind a metric name of a suite in a report, for units and directions in renderers. */
export function specOf(kind: string, metric: string): MetricSpec | undefined {
  const k = suiteKind(kind);
  return k ? resolveMetric(metric, k.metrics)?.spec : undefined;
}
