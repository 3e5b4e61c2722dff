import { SUITE_NAME } from '../config/load.js';
import { preview } from '../errors.js';
import { resolveMetric } from '../metrics/spec.js';
import { suiteKind } from '../suites/registry.js';
import type { Report } from './schema.js';

const COUNT_KEY = /^[a-z][a-z0-9_@.]{0,59}$/;

/**
 * A report from another run (mode: comment posts a fork's) passed the report schema, which allows any
 * string as a suite's kind, a metric's name or a count's key. Before it is rendered with this repository's
 * token, it must name only what groundgate writes: suites gates.yaml allows, kinds and metrics it knows.
 */
export function foreignReportProblem(report: Report): string | undefined {
  for (const [name, suite] of Object.entries(report.suites)) {
    if (!SUITE_NAME.test(name) || name.length > 100)
      return `suite name ${preview(name)} is not one gates.yaml allows`;
    const kind = suiteKind(suite.kind);
    if (!kind) return `suite "${name}": unknown kind ${preview(suite.kind)}`;
    for (const metric of Object.keys(suite.metrics))
      if (!resolveMetric(metric, kind.metrics))
        return `suite "${name}": unknown metric ${preview(metric)} for kind ${kind.kind}`;
    for (const key of Object.keys(suite.counts))
      if (!COUNT_KEY.test(key)) return `suite "${name}": count ${preview(key)} is not a groundgate count`;
  }
  for (const g of report.gates) {
    const kind = report.suites[g.suite] && suiteKind(report.suites[g.suite]!.kind);
    if (!kind || !resolveMetric(g.metric, kind.metrics))
      return `gate ${preview(`${g.suite}.${g.metric}`)} is on no suite or metric of the report`;
  }
  return undefined;
}
