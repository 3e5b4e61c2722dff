import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import { resolveMetric } from '../../metrics/spec.js';
import {
  answerSettings,
  checkInputSettings,
  checkMarkers,
  fieldsSchema,
  inputSettings,
} from '../../grounded-answer/config.js';
import { goldShape, traceShape } from '../../grounded-answer/contract.js';
import type { ScoreContext } from '../types.js';
import { metrics } from './metrics.js';
import { pricingSetting } from '../../cost/pricing-file.js';

const percentileK = z
  .int()
  .min(1, 'expected a percentile from 1 to 100')
  .max(100, 'expected a percentile from 1 to 100');

/** A latency suite's keys in gates.yaml. */
export const configSchema = z
  .strictObject({
    kind: z.literal('latency'),
    csv: z.string().min(1).optional(),
    traces: z.string().min(1).optional(),
    /** With traces from several configurations: scores each one for the latency-vs-accuracy points. */
    gold: z.string().min(1).optional(),
    /** The configuration (knobs value or trace file) the metrics and gates describe; default all pooled. */
    configuration: z.string().optional(),
    percentiles: z.array(percentileK).min(1).default([50, 90, 95, 99]),
    refusal_token: answerSettings.refusal_token,
    refusal: answerSettings.refusal,
    citation_markers: answerSettings.citation_markers,
    scu: answerSettings.scu,
    format: inputSettings.format,
    openinference: inputSettings.openinference,
    fields: fieldsSchema({ traces: traceShape, gold: goldShape }),
    pricing: pricingSetting,
    gates: gatesSchema.default({}),
  })
  .superRefine((config, ctx) => {
    checkInputSettings(config, ctx);
    checkMarkers(config, ctx);
    if ((config.csv === undefined) === (config.traces === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected exactly one of csv (a latency CSV) or traces (lines with qid and latency_ms)',
      });
    }
    if (config.gold !== undefined && config.traces === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['gold'],
        message: 'gold scores traces, and a csv has no answers to score; expected traces with gold',
      });
    }
    for (const name of Object.keys(config.gates)) {
      const k = resolveMetric(name, metrics)?.k;
      if (k !== undefined && k > 100) {
        ctx.addIssue({
          code: 'custom',
          path: ['gates', name],
          message: `percentile ${k} is above 100; expected p1_ms to p100_ms`,
        });
      }
    }
  });

export type LatencyConfig = z.infer<typeof configSchema>;

/** The configuration the gates apply to, checked to be one of the input's (undefined: all pooled). */
export function knownConfiguration(
  config: LatencyConfig,
  ctx: ScoreContext,
  configurations: readonly string[],
): string | undefined {
  const scope = config.configuration;
  // A CSV without requests has no configurations: its metrics are not computable, whatever is named.
  if (scope !== undefined && configurations.length > 0 && !configurations.includes(scope)) {
    throw new InputError(
      { file: (ctx.inputs.csv ?? ctx.inputs.traces ?? [])[0]! },
      `suite "${ctx.suite}": configuration ${JSON.stringify(scope)} is not in the input; expected one of ${configurations.map((c) => JSON.stringify(c)).join(', ')}`,
    );
  }
  return scope;
}
