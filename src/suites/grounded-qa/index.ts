import type { MetricSpec } from '../../metrics/spec.js';
import type { SuiteKind } from '../types.js';
import { traceInput } from '../../grounded-answer/trace-input.js';
import { sourceFor } from '../../grounded-answer/sources.js';
import { isParquet } from '../../io/records.js';
import { describer, goldColumns, judgeSuite, resultOf } from './judged.js';
import { groundedQaSplit } from './split.js';
import { configSchema, type GroundedQaConfig } from './config.js';
import { semanticPass, semanticSettings, withSemantic } from '../../claims/semantic.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'precision',
    direction: 'higher',
    unit: 'ratio',
    description: 'Shipped answers that are contained, cited and constraint-safe, over all shipped answers',
  },
  {
    name: 'chr',
    direction: 'higher',
    unit: 'ratio',
    description:
      'Citation hit rate: shipped answers citing a gold id and only retrieved ids, over all shipped answers',
  },
  {
    name: 'under_refusal',
    direction: 'lower',
    unit: 'ratio',
    description: 'Unanswerable gold items that were answered, over all unanswerable items',
  },
  {
    name: 'over_refusal',
    direction: 'lower',
    unit: 'ratio',
    description: 'Answerable gold items that were refused, over all answerable items',
  },
  {
    name: 'recall@{k}',
    direction: 'higher',
    unit: 'ratio',
    description:
      'Answerable items whose gold citations are all in the top k retrieved ids, over all answerable items',
  },
  {
    name: 'chr@{k}_upper_bound',
    direction: 'higher',
    unit: 'ratio',
    description:
      'Shipped answers with a gold id in the top k retrieved ids, over all shipped answers: the highest chr the retriever allows',
  },
  {
    name: 'scu_violations',
    direction: 'lower',
    unit: 'count',
    description: 'Shipped answers with constraints that miss the echo or contradict a lock (scu: true)',
  },
  {
    name: 'constraint_integrity',
    direction: 'higher',
    unit: 'ratio',
    description: '1 − scu_violations / shipped answers with constraints',
  },
  {
    name: 'coverage',
    direction: 'higher',
    unit: 'ratio',
    description: 'Gold items with a trace, over all gold items',
  },
];

export const groundedQa: SuiteKind<GroundedQaConfig> = {
  kind: 'grounded-qa',
  description: 'Grounded Q&A: precision, citation hit rate, refusal rates, constraint integrity, Recall@k',
  configSchema,
  inputKeys: ['gold', 'traces'],
  goldKey: 'gold',
  objectHeap: true,
  readsRecords: (config, inputs) =>
    sourceFor(inputs.traces ?? [], traceInput({ ...config, fields: config.fields?.traces })).readsRecords ||
    (inputs.gold ?? []).some(isParquet),
  metrics,
  offenderColumns: ['question', 'claim', 'citations', 'retrieved_ids', 'gold_citations'],
  defaultCutoffs: (config) => [config.k],
  // Precision's and chr's denominator, the shipped answers, can take in any gold item (an answered
  // unanswerable one lowers both): they count every item. Most items that fail have a trace and keep
  // their constraints, so a failing verdict says nothing of coverage or the SCU metrics (whose count
  // gate already fails on one more violation): no paired gate for them.
  populations: {
    under_refusal: 'unanswerable',
    over_refusal: 'answerable',
    // An item's pass bit does not say whether its retrieval reached the gold chunk (a recall miss with a
    // right answer passes): a baseline's items cannot tell recall's new failures.
    'recall@{k}': null,
    coverage: null,
    scu_violations: null,
    constraint_integrity: null,
  },

  async score(config, ctx) {
    const judged = await judgeSuite(config, ctx);
    // The judge rescues claim misses in the table before anything is counted from it.
    const semantic =
      config.claims?.match === 'semantic'
        ? await semanticPass(judged, semanticSettings(config.claims, ctx.resolvePath), ctx, process.env)
        : undefined;
    const gold = goldColumns(judged.gold);
    const result = {
      ...resultOf(gold, judged.loaded, judged.options, ctx.relative, describer(judged, ctx, gold.qids)),
      goldDigest: judged.digest,
    };
    return semantic ? withSemantic(result, semantic) : result;
  },
  split: groundedQaSplit,
};
