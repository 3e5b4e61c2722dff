import { InputError } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import { notComputable, type MetricValue } from '../../metrics/spec.js';
import type { ItemVerdicts, ScoreContext, SuiteResult } from '../types.js';
import { mean, taskValue, type TaskRecord } from './aggregate.js';
import { writeArtifacts } from './artifacts.js';
import { MIN_MATCHED } from './compare.js';
import type { EventDocument } from './contract.js';
import { offenders } from './offenders.js';
import type { Outcome } from './outcomes.js';
import { scoreTask } from './stages/task.js';
import { comparison, runSummary, type Comparison } from './summary.js';
import type { AgentRetrievalConfig } from './config.js';

/** The suite's result from its documents: one function for a run and a merge, so they agree to the byte. */
export function agentResult(
  config: AgentRetrievalConfig,
  ctx: ScoreContext,
  loaded: readonly Loaded[],
  outcomesGiven: boolean,
  warnings: string[],
): SuiteResult {
  const cutoffs = [
    ...new Set([...config.k, ...ctx.metrics.flatMap((m) => (m.k === undefined ? [] : [m.k]))]),
  ].sort((a, b) => a - b);
  const records = toRecords(loaded, cutoffs);

  const configs = [...new Set(records.map((r) => r.doc.provenance.config_name))].sort(compareCodeUnits);
  const where = { file: loaded[0]?.file ?? config.runs ?? ctx.suite };
  const known = (name: string, key: string) => {
    if (configs.includes(name)) return;
    throw new InputError(
      where,
      `suite "${ctx.suite}": ${key} ${JSON.stringify(name)} is not a config of the documents; expected one of ${configs.map((c) => JSON.stringify(c)).join(', ')}`,
    );
  };
  if (config.config_name) known(config.config_name, 'config_name');
  if (config.compare) {
    known(config.compare.baseline, 'compare.baseline');
    known(config.compare.candidate, 'compare.candidate');
  }
  const scoped = config.config_name
    ? records.filter((r) => r.doc.provenance.config_name === config.config_name)
    : records;

  const values: Record<string, MetricValue> = {};
  for (const m of ctx.metrics) if (!m.name.startsWith('delta.')) values[m.name] = mean(scoped, m.name);
  const compared = config.compare
    ? comparison(records, config.compare.baseline, config.compare.candidate, cutoffs)
    : undefined;
  for (const m of ctx.metrics) if (m.name.startsWith('delta.')) values[m.name] = delta(m.name, compared);

  const counts: Record<string, number> = {
    documents: records.length,
    ...(config.config_name ? { in_config: scoped.length } : {}),
    scored: scoped.filter((r) => r.score.fileLevel.reason === undefined).length,
    no_ground_truth: scoped.filter((r) => r.score.fileLevel.missing === 'ground_truth').length,
    no_trace: scoped.filter((r) => r.score.fileLevel.missing === 'trace').length,
    chunk_level: scoped.filter((r) => r.score.chunkLevel.resolution === 'chunk_level').length,
  };
  for (const size of ['small', 'medium', 'large'] as const) {
    counts[`slice_${size}`] = scoped.filter((r) => r.score.taxonomy?.candidate_set_size === size).length;
  }
  for (const type of ['local', 'mcp'] as const) {
    counts[`slice_${type}`] = scoped.filter((r) => r.score.taxonomy?.evidence_type === type).length;
  }
  if (compared) {
    counts.matched_tasks = compared.matched_tasks;
    const recall = compared.metrics.file_recall;
    if (recall && !('reason' in recall)) {
      counts.file_recall_wins = recall.wins;
      counts.file_recall_losses = recall.losses;
      counts.file_recall_ties = recall.ties;
    }
  }

  warnings.push(...coverageWarnings(scoped, outcomesGiven));
  if (compared && compared.excluded.length > 0) {
    const shown = compared.excluded.slice(0, 5).map((e) => `${e.task} (${e.reason})`);
    warnings.push(
      `compare: ${compared.excluded.length} task${compared.excluded.length === 1 ? '' : 's'} not matched: ${shown.join(', ')}${compared.excluded.length > 5 ? ', …' : ''}`,
    );
  }
  if (config.artifacts) {
    // Written into: no link under it may lead out (a planted one would turn a write into an overwrite).
    const dir = ctx.resolvePath('artifacts', { tree: true });
    writeArtifacts(
      dir,
      records,
      runSummary(records, {
        cutoffs,
        outcomes: outcomesGiven,
        ...(compared ? { comparison: compared } : {}),
      }),
      cutoffs,
    );
  }
  const offending = offenders(scoped, ctx.relative);
  return {
    metrics: values,
    counts,
    offenders: offending,
    items: taskItems(scoped, new Set(offending.map((o) => o.id)), Object.keys(config.gates)),
    warnings,
    // Means over tasks; the matched comparisons (delta.*) pair configs and are not resampled.
    resample: {
      items: scoped.length,
      metric: (name, pick) =>
        name.startsWith('delta.') || !ctx.metrics.some((m) => m.name === name)
          ? undefined
          : mean(
              Array.from(pick, (i) => scoped[i]!),
              name,
            ).value,
    },
  };
}

/**
 * Every task's verdict (it passes when it is not an offender: its file recall reaches 1, or it has no ground
 * truth to miss) and its value of each gated per-task metric (NaN where the task has none), for a later run
 * to pair with. The matched comparisons (delta.*) pair configs, not runs, and have no per-task value.
 */
function taskItems(
  scoped: readonly TaskRecord[],
  offending: ReadonlySet<string>,
  gated: readonly string[],
): ItemVerdicts {
  const names = gated.filter((name) => !name.startsWith('delta.'));
  return {
    ids: scoped.map((r) => r.id),
    pass: Uint8Array.from(scoped, (r) => (offending.has(r.id) ? 0 : 1)),
    values: Object.fromEntries(
      names.map((name) => [name, Float64Array.from(scoped, (r) => taskValue(r, name).value ?? Number.NaN)]),
    ),
  };
}

export interface Loaded {
  doc: EventDocument;
  file?: string;
  trial?: string;
  outcome?: Outcome;
}

/** Scores every document; one task may appear once per run and config. */
function toRecords(loaded: readonly Loaded[], cutoffs: readonly number[]): TaskRecord[] {
  const runs = new Set(loaded.map((l) => l.doc.provenance.run_id));
  const seen = new Map<string, string>();
  const records = loaded.map((l): TaskRecord => {
    const p = l.doc.provenance;
    const id = `${runs.size > 1 ? `${p.run_id}/` : ''}${p.config_name}/${p.task_name}`;
    const first = seen.get(id);
    if (first !== undefined) {
      throw new InputError(
        { file: l.file ?? l.trial ?? id },
        `task ${JSON.stringify(p.task_name)} of config ${JSON.stringify(p.config_name)} in run ${JSON.stringify(p.run_id)} is also in ${first}; expected one document per task, config and run`,
      );
    }
    seen.set(id, l.file ?? l.trial ?? id);
    return {
      id,
      doc: l.doc,
      ...(l.file ? { file: l.file } : {}),
      ...(l.trial ? { trial: l.trial } : {}),
      score: scoreTask(l.doc, cutoffs),
      ...(l.outcome ? { outcome: l.outcome } : {}),
    };
  });
  return records.sort((a, b) => compareCodeUnits(a.id, b.id));
}

function delta(name: string, compared: Comparison | undefined): MetricValue {
  if (!compared) return notComputable('no compare: configs named in gates.yaml');
  const metric = name.slice('delta.'.length);
  const result = metric === 'reward' ? compared.outcomes.reward : compared.metrics[metric];
  if (!result) return notComputable(`${metric} is not compared`);
  if ('reason' in result) {
    return notComputable(
      `${result.reason}; ${compared.matched_tasks} of the tasks are matched (needs ≥ ${MIN_MATCHED}: same task, ground truth, model and harness in both configs, a result.json reward for both)`,
    );
  }
  return { value: result.delta_mean };
}

function coverageWarnings(records: readonly TaskRecord[], outcomesGiven: boolean): string[] {
  const out: string[] = [];
  const list = (rs: readonly TaskRecord[]) =>
    rs
      .slice(0, 5)
      .map((r) => r.id)
      .join(', ') + (rs.length > 5 ? `, … (${rs.length - 5} more)` : '');
  const tasks = (n: number) => `${n} of ${records.length} task${records.length === 1 ? '' : 's'}`;
  const noTruth = records.filter((r) => r.score.fileLevel.missing === 'ground_truth');
  if (noTruth.length > 0) {
    out.push(`${tasks(noTruth.length)} without ground truth, not scored: ${list(noTruth)}`);
  }
  const noTrace = records.filter((r) => r.score.fileLevel.missing === 'trace');
  if (noTrace.length > 0) {
    out.push(
      `${tasks(noTrace.length)} without a usable trace (degraded: no events), not scored: ${list(noTrace)}`,
    );
  }
  if (outcomesGiven) {
    const noOutcome = records.filter((r) => r.outcome?.reward == null);
    if (noOutcome.length > 0)
      out.push(`${tasks(noOutcome.length)} without a result.json reward: ${list(noOutcome)}`);
  }
  return out;
}
