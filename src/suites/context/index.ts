import type { MetricSpec } from '../../metrics/spec.js';
import type { SuiteKind } from '../types.js';
import { contextSplit } from './split.js';
import { LEVELS, type Level } from './contract.js';
import { evaluate } from './evaluate.js';
import { loadGold } from './gold.js';
import { loadPredictions } from './predictions.js';
import { configSchema, reposOf, type ContextConfig } from './config.js';
import { contextResult } from './result.js';

const LEVEL_WORDS: Record<Level, string> = {
  file: 'files',
  symbol: 'definitions (tree-sitter)',
  span: 'bytes',
  line: 'lines',
};

export const metrics: readonly MetricSpec[] = [
  ...LEVELS.flatMap((level): MetricSpec[] => [
    {
      name: `${level}.coverage`,
      direction: 'higher',
      unit: 'ratio',
      description: `Final context: gold ${LEVEL_WORDS[level]} found, over gold ${LEVEL_WORDS[level]} (micro)`,
    },
    {
      name: `${level}.precision`,
      direction: 'higher',
      unit: 'ratio',
      description: `Final context: gold ${LEVEL_WORDS[level]} found, over predicted ${LEVEL_WORDS[level]} (micro)`,
    },
    {
      name: `${level}.f1`,
      direction: 'higher',
      unit: 'ratio',
      description: `Final context: mean over instances of the F1 of ${level} coverage and precision (macro)`,
    },
  ]),
  {
    name: 'editloc.recall',
    direction: 'higher',
    unit: 'ratio',
    description: 'Lines the model patch deletes inside gold init regions, over gold init lines (micro)',
  },
  {
    name: 'editloc.precision',
    direction: 'higher',
    unit: 'ratio',
    description: 'Lines the model patch deletes inside gold init regions, over deleted lines (micro)',
  },
  ...LEVELS.map((level): MetricSpec => ({
    name: `auc.${level}`,
    direction: 'higher',
    unit: 'ratio',
    description: `Mean over steps of the ${level} coverage of all steps so far (macro over instances)`,
  })),
  ...LEVELS.map((level): MetricSpec => ({
    name: `redundancy.${level}`,
    direction: 'lower',
    unit: 'ratio',
    description: `1 − distinct ${LEVEL_WORDS[level]} looked at / ${LEVEL_WORDS[level]} looked at over all steps (macro)`,
  })),
];

export const context: SuiteKind<ContextConfig> = {
  kind: 'context',
  description:
    'Context retrieval of code agents (ContextBench): file, symbol, span, line coverage/precision/F1, EditLoc, AUC, redundancy',
  configSchema,
  inputKeys: ['gold', 'predictions'],
  goldKey: 'gold',
  metrics,
  offenderColumns: ['line_f1', 'never_opened', 'gold_files', 'final_files'],
  defaultCutoffs: () => [],

  async score(config, ctx) {
    const gold = await loadGold(ctx.inputs.gold!);
    const predictions = await loadPredictions(ctx.inputs.predictions!, config.agent);
    const repos = reposOf(config, ctx);
    const { outcomes, unsupported } = await evaluate(gold, predictions, {
      repos,
      patchFallback: config.patch_fallback,
    });
    return contextResult(ctx, gold, outcomes, unsupported, repos !== undefined);
  },
  split: contextSplit,
};
