import { z } from 'zod';
import { metricValueSchema } from '../metrics/spec.js';

/**
 * report.json, the public contract (docs/report-schema.md). The JSON Schema in docs/ is generated from
 * this, and every report groundgate writes is checked against it in the tests.
 */
export const offenderSchema = z.looseObject({
  id: z.string(),
  labels: z.array(z.string()),
  source: z.strictObject({ file: z.string(), line: z.int() }).optional(),
});

export const suiteReportSchema = z.strictObject({
  kind: z.string(),
  inputs: z.record(z.string(), z.array(z.string())),
  metrics: z.record(z.string(), metricValueSchema),
  counts: z.record(z.string(), z.number()),
  offenders_total: z.int(),
  offenders: z.array(offenderSchema),
  warnings: z.array(z.string()),
});

export const gateResultSchema = z.strictObject({
  suite: z.string(),
  metric: z.string(),
  op: z.enum(['>=', '<=', '>', '<', '==', 'max_drop']),
  threshold: z.number(),
  value: z.number().nullable(),
  passed: z.boolean(),
  skipped: z.boolean().optional(),
  baseline: z.number().nullable().optional(),
  reason: z.string().optional(),
  line: z.int().optional(),
});

export const reportSchema = z.strictObject({
  schema_version: z.literal('1'),
  tool: z.strictObject({ name: z.literal('groundgate'), version: z.string() }),
  verdict: z.enum(['pass', 'fail']),
  config: z.string(),
  suites: z.record(z.string(), suiteReportSchema),
  gates: z.array(gateResultSchema),
});

export type Report = z.infer<typeof reportSchema>;
export type SuiteReport = z.infer<typeof suiteReportSchema>;
export type GateResult = z.infer<typeof gateResultSchema>;
export type OffenderJson = z.infer<typeof offenderSchema>;

/** Fixed key order and a trailing newline: byte-identical output for identical inputs. */
export function serializeReport(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
