import { readsSpans } from '../../grounded-answer/load.js';
import { traceInput } from '../../grounded-answer/trace-input.js';
import type { SuiteKind } from '../types.js';
import { latencySplit } from './split.js';
import { configSchema, knownConfiguration, type LatencyConfig } from './config.js';
import { metrics } from './metrics.js';
import { readLatencies } from './read.js';
import { scoreConfigurations } from './accuracy.js';
import { latencyResult } from './result.js';

export const latency: SuiteKind<LatencyConfig> = {
  kind: 'latency',
  description: 'Latency: P50/P90/P95/P99 end to end and per stage, tail amplification, latency vs accuracy',
  configSchema,
  inputKeys: ['csv', 'traces', 'gold'],
  metrics,
  offenderColumns: ['configuration', 'e2e_ms', 'slowest_stage'],
  defaultCutoffs: (config) => config.percentiles,

  async score(config, ctx) {
    const { csv, traces, gold } = ctx.inputs;
    const read = await readLatencies(config, ctx);
    // Before accuracy is scored: a configuration that is not in the input is named before any gold error.
    knownConfiguration(config, ctx, read.configurations);
    const accuracy =
      traces && gold && read.configurations.length > 1
        ? await scoreConfigurations(traces, gold, config, ctx.relative)
        : undefined;
    const hasStages =
      csv !== undefined ||
      (traces !== undefined && readsSpans(traces, traceInput({ ...config, fields: config.fields?.traces })));
    return latencyResult(config, ctx, { ...read, accuracy, hasStages });
  },
  split: latencySplit,
};
