import { compareCodeUnits } from '../../io/files.js';
import type { ItemVerdicts, Offender, ScoreContext, SuiteResult } from '../types.js';
import { INSTANCE_ERRORS, LEVELS, type InstanceError, type Level } from './contract.js';
import type { InstanceOutcome } from './evaluate.js';
import type { GoldInstance } from './gold.js';
import { aggregate } from './score.js';

const NO_REPOS =
  'needs file contents: set "repos" to the repository checkouts (symbols and byte spans are read from files)';

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
    items: instanceItems(outcomes, levels),
  };
}

/**
 * Every prediction's verdict (it passes when scored with line F1 1, the offenders' bar) and its value of each
 * metric that is a mean of per-instance values (F1, AUC-coverage, redundancy per level), for a later run to
 * pair with. Coverage and precision pool sizes over instances, so no instance's value is a term of them.
 */
function instanceItems(outcomes: readonly InstanceOutcome[], levels: readonly Level[]): ItemVerdicts {
  const per: [string, (s: NonNullable<InstanceOutcome['score']>) => number][] = levels.flatMap((level) => [
    [`${level}.f1`, (s) => s.final[level]!.f1] as const,
    [`auc.${level}`, (s) => s.auc[level]!] as const,
    [`redundancy.${level}`, (s) => s.redundancy[level]!] as const,
  ]);
  return {
    ids: outcomes.map((o) => o.id),
    pass: Uint8Array.from(outcomes, (o) => (o.score && o.score.final.line!.f1 >= 1 ? 1 : 0)),
    values: Object.fromEntries(
      per.map(([name, of]) => [
        name,
        Float64Array.from(outcomes, (o) => (o.score ? of(o.score) : Number.NaN)),
      ]),
    ),
  };
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
