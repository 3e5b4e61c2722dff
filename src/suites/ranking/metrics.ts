import { IR_MEASURES } from '../../metrics/ir.js';
import { resolveMetric, type MetricSpec } from '../../metrics/spec.js';
import type { MeasureRequest } from './evaluate.js';

export const metrics: readonly MetricSpec[] = IR_MEASURES.map((m) => ({
  name: m.name,
  direction: 'higher',
  unit: 'ratio',
  description: m.description,
}));

const MEASURES = new Map(IR_MEASURES.map((m) => [m.name, m]));

/** A metric name as written (`ndcg@10`) → what to compute for each query; `k` is the suite's cutoff. */
export function measureRequest(name: string, k: number): MeasureRequest {
  const resolved = resolveMetric(name, metrics)!;
  return { name, measure: MEASURES.get(resolved.spec.name)!, k: resolved.k ?? k };
}
