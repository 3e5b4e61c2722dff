import { GROUNDED_METRICS } from '../../grounded-answer/metrics/index.js';
import { pairedPopulations } from '../../grounded-answer/metrics/suite.js';
import type { SuiteKind } from '../types.js';
import { traceInput } from '../../grounded-answer/trace-input.js';
import { sourceFor } from '../../grounded-answer/sources/index.js';
import { isParquet } from '../../io/records.js';
import { describer, goldColumns, judgeSuite, resultOf } from './judged.js';
import { groundedQaSplit } from './split.js';
import { configSchema, type GroundedQaConfig } from './config.js';
import { semanticPass, semanticSettings, withSemantic } from '../../claims/semantic.js';
import { asksJudge } from '../../claims/rules/index.js';
import { isUsageMetric } from '../../cost/usage-metrics.js';
import { answerUsage, asksUsage, USAGE_METRICS, winnersUsage } from './usage.js';

/** The answers' token percentiles reported when no gate names another (the issue's p50 and p95). */
const USAGE_PERCENTILES = [50, 95];

export const groundedQa: SuiteKind<GroundedQaConfig> = {
  kind: 'grounded-qa',
  description: 'Grounded Q&A: precision, citation hit rate, refusal rates, constraint integrity, Recall@k',
  configSchema,
  inputKeys: ['gold', 'traces'],
  goldKey: 'gold',
  objectHeap: true,
  readsRecords: (config, inputs) =>
    sourceFor(inputs.traces ?? [], traceInput({ ...config, fields: config.fields?.traces })).layout.heap ===
      'records' || (inputs.gold ?? []).some(isParquet),
  // The table as it is now: a metric registered later is the suite's too.
  get metrics() {
    return [...GROUNDED_METRICS, ...USAGE_METRICS];
  },
  offenderColumns: ['question', 'claim', 'citations', 'retrieved_ids', 'gold_citations'],
  defaultCutoffs: (config) => [config.k],
  familyCutoffs: (_config, spec) => (isUsageMetric(spec) ? USAGE_PERCENTILES : undefined),
  get populations() {
    // Tokens and cost have no pass or fail of an item: no paired gate counts their new failures.
    return {
      ...pairedPopulations(GROUNDED_METRICS),
      ...Object.fromEntries(USAGE_METRICS.map((m) => [m.name, null])),
    };
  },

  async score(config, ctx) {
    const judged = await judgeSuite(config, ctx);
    // The judge rescues claim misses in the table before anything is counted from it.
    const semantic = asksJudge(config.claims)
      ? await semanticPass(judged, semanticSettings(config.claims, ctx.resolvePath), ctx, process.env)
      : undefined;
    const gold = goldColumns(judged.gold);
    const { table } = judged.loaded;
    const usage = asksUsage(config)
      ? answerUsage(config, ctx, table.present, winnersUsage(judged.options.traces, gold.qids, judged.loaded))
      : undefined;
    const result = {
      ...resultOf(
        gold,
        judged.loaded,
        judged.options,
        ctx.relative,
        describer(judged, ctx, gold.qids),
        usage,
      ),
      goldDigest: judged.digest,
    };
    return semantic ? withSemantic(result, semantic) : result;
  },
  split: groundedQaSplit,
};
