import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import type { MetricSpec } from '../../metrics/spec.js';
import type { Offender, ScoreContext, SuiteKind, SuiteResult } from '../types.js';
import { contextSplit } from './split.js';
import { AGENTS, INSTANCE_ERRORS, LEVELS, type InstanceError, type Level } from './contract.js';
import { evaluate, LAYOUTS, type InstanceOutcome } from './evaluate.js';
import { loadGold, type GoldInstance } from './gold.js';
import { loadPredictions } from './predictions.js';
import { aggregate } from './score.js';

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

export const configSchema = z.strictObject({
  kind: z.literal('context'),
  gold: z.string().min(1),
  predictions: z.string().min(1),
  /** `extracted` (the evaluator's prediction form), or the agent whose raw trajectories `predictions` names. */
  agent: z.enum(['extracted', ...AGENTS]).default('extracted'),
  /** Repository contents: a folder, relative to gates.yaml. Without it, symbol and span are not computable. */
  repos: z.string().min(1).optional(),
  repos_layout: z.enum(LAYOUTS).default('per-instance'),
  patch_fallback: z.boolean().default(false),
  gates: gatesSchema.default({}),
});
export type ContextConfig = z.infer<typeof configSchema>;

const NO_REPOS =
  'needs file contents: set "repos" to the repository checkouts (symbols and byte spans are read from files)';

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

/** The suite's result from every prediction's outcome: one function for a run and a merge, so they agree. */
export function contextResult(
  ctx: Pick<ScoreContext, 'relative'>,
  gold: readonly GoldInstance[],
  outcomes: readonly InstanceOutcome[],
  unsupported: ReadonlySet<string>,
  repos: boolean,
): SuiteResult {
  const errors = Object.fromEntries(INSTANCE_ERRORS.map((e) => [e, 0])) as Record<InstanceError, number>;
  for (const o of outcomes) if (o.error) errors[o.error]++;
  const scored = outcomes.filter((o) => o.score);
  const levels: Level[] = repos ? [...LEVELS] : ['file', 'line'];
  const values = aggregate(
    scored.map((o) => o.score!),
    levels,
    errors,
    NO_REPOS,
  );

  const predicted = new Set(outcomes.filter((o) => o.gold).map((o) => o.gold!));
  const unpredicted = gold.filter((g) => !predicted.has(g));
  const warnings: string[] = [];
  for (const error of INSTANCE_ERRORS) {
    const ids = outcomes.filter((o) => o.error === error).map((o) => o.id);
    if (ids.length > 0)
      warnings.push(`${plural(ids.length, 'instance')} not scored (${error}): ${listed(ids)}`);
  }
  if (unpredicted.length > 0) {
    warnings.push(
      `${plural(unpredicted.length, 'gold row')} without a prediction, not scored: ${listed(unpredicted.map((g) => g.ids[g.ids.length - 1]!))}`,
    );
  }
  if (!repos)
    warnings.push(`no "repos": symbol and span metrics are not computable; file paths are not checked`);
  if (unsupported.size > 0) {
    warnings.push(
      `no symbols from ${plural(unsupported.size, 'file')} in languages without a grammar here: ${listed([...unsupported].sort(compareCodeUnits))}`,
    );
  }

  return {
    metrics: values,
    // Instances are the items: a bootstrap over them keeps each instance's lines together.
    resample: {
      items: scored.length,
      metric: (name, pick) =>
        aggregate(
          Array.from(pick, (i) => scored[i]!.score!),
          levels,
          errors,
          NO_REPOS,
        )[name]?.value,
    },
    counts: {
      gold_rows: gold.length,
      predictions: outcomes.length,
      scored: scored.length,
      ...errors,
      gold_without_prediction: unpredicted.length,
      steps: scored.reduce((n, o) => n + o.steps, 0),
      with_patch: scored.filter((o) => o.score!.editloc).length,
    },
    offenders: offenders(outcomes, ctx.relative),
    warnings,
  };
}

/** The checkouts the suite reads files from, when its config names them. */
export function reposOf(config: ContextConfig, ctx: ScoreContext) {
  return config.repos ? { dir: reposDir(ctx), layout: config.repos_layout } : undefined;
}

/**
 * The folder `repos` names, relative to gates.yaml. Files under it are read only when they resolve inside
 * it (DirectoryWorkspace), so the folder alone is checked against the workspace, not each of its files.
 */
function reposDir(ctx: ScoreContext): string {
  const dir = ctx.resolvePath('repos');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new InputError(
      { file: dir },
      `suite "${ctx.suite}": repos: folder not found; expected the repository checkouts`,
    );
  }
  return dir;
}

/**
 * Scored instances whose line F1 is below 1, lowest first (then by id), each with the gold files it never
 * opened; then the instances that could not be scored.
 */
function offenders(outcomes: readonly InstanceOutcome[], relative: (file: string) => string): Offender[] {
  const round = (x: number | undefined) => (x === undefined ? null : Number(x.toFixed(4)));
  const scored = outcomes
    .filter((o) => o.score && o.score.final.line!.f1 < 1)
    .sort((a, b) => a.score!.final.line!.f1 - b.score!.final.line!.f1 || compareCodeUnits(a.id, b.id));
  const failed = outcomes
    .filter((o) => o.error)
    .sort((a, b) => compareCodeUnits(a.error!, b.error!) || compareCodeUnits(a.id, b.id));
  return [
    ...scored.map((o): Offender => {
      const s = o.score!;
      const line = s.final.line!;
      const labels = [line.intersection === 0 ? 'no_line_overlap' : 'partial_line_overlap'];
      if (s.neverOpened.length > 0) labels.push('gold_file_never_opened');
      return {
        id: o.id,
        labels,
        fields: {
          line_f1: round(line.f1),
          line_coverage: round(line.coverage),
          line_precision: round(line.precision),
          file_coverage: round(s.final.file!.coverage),
          never_opened: s.neverOpened,
          gold_files: [...new Set([...o.gold!.init, ...o.gold!.add].map((r) => r.file))].sort(
            compareCodeUnits,
          ),
          final_files: [...new Set(o.prediction.traj.pred_files)].sort(compareCodeUnits),
          steps: o.steps,
          editloc_recall: round(s.editloc?.recall),
          prediction: `${relative(o.prediction.source.file)}:${o.prediction.source.line}`,
        },
        source: { file: relative(o.gold!.source.file), line: o.gold!.source.line },
      };
    }),
    ...failed.map((o): Offender => ({
      id: o.id,
      labels: [o.error!],
      fields: {
        final_files: [...new Set(o.prediction.traj.pred_files)].sort(compareCodeUnits),
        prediction: `${relative(o.prediction.source.file)}:${o.prediction.source.line}`,
      },
      source: o.gold
        ? { file: relative(o.gold.source.file), line: o.gold.source.line }
        : { file: relative(o.prediction.source.file), line: o.prediction.source.line },
    })),
  ];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
