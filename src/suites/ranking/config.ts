import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { didYouMean } from '../../config/suggest.js';
import { metricNames, resolveMetric } from '../../metrics/spec.js';
import { FORMATS, QRELS_FORMATS } from './contract.js';
import { metrics } from './metrics.js';

const DEFAULT_K = 10;

const metricName = z.string().superRefine((name, ctx) => {
  if (resolveMetric(name, metrics)) return;
  const names = metricNames(metrics, DEFAULT_K);
  ctx.addIssue({
    code: 'custom',
    message: `unknown metric ${JSON.stringify(name)}${didYouMean(name, names)}; expected one of ${names.join(', ')}`,
  });
});

/** A ranking suite's keys in gates.yaml. */
export const configSchema = z.strictObject({
  kind: z.literal('ranking'),
  qrels: z.string().min(1),
  run: z.string().min(1),
  qrels_format: z.enum(QRELS_FORMATS).optional(),
  run_format: z.enum(FORMATS).optional(),
  relevance_level: z.int().min(0).max(1_000_000).default(1),
  complete: z.boolean().default(false),
  k: z.int().min(1).max(100_000).default(DEFAULT_K),
  offender_metric: metricName.optional(),
  gates: gatesSchema.default({}),
});

export type RankingConfig = z.infer<typeof configSchema>;
