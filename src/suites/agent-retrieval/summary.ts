import { compareCodeUnits } from '../../io/files.js';
import type { MetricValue } from '../../metrics/spec.js';
import { summary, type Summary, type TaskRecord } from './aggregate.js';
import { compareMetric, compareOutcome, matchTasks, type ComparisonResult } from './compare.js';
import { SCHEMA_VERSION } from './contract.js';
import { correlationTable, type Correlation } from './correlate.js';
import { taskMetrics } from './metrics.js';
import { summarizeEvents } from './normalize/events.js';
import { OUTCOMES, type OutcomeName } from './outcomes.js';
import { ERROR_LABELS } from './stages/taxonomy.js';

/** Stage 5: what is written per task (`{task}.retrieval_metrics.json`) and per run (`run_retrieval_summary.json`). */

function split(metrics: Record<string, MetricValue>, names: readonly string[]) {
  const out: Record<string, number | null> = {};
  const reasons: Record<string, string> = {};
  for (const name of names) {
    const m = metrics[name];
    if (!m) continue;
    out[name] = m.value;
    if (m.value === null) reasons[name] = m.reason ?? 'not computable';
  }
  return { values: out, ...(Object.keys(reasons).length > 0 ? { reasons } : {}) };
}

export function taskArtifact(record: TaskRecord, cutoffs: readonly number[]): Record<string, unknown> {
  const { doc, score } = record;
  const names = taskMetrics(cutoffs);
  const stage = (n: number) => names.filter((m) => m.stage === n).map((m) => m.name);
  const files = score.fileLevel;
  const relevant = new Set(files.relevant);
  const probes = score.utilization;
  return {
    schema_version: SCHEMA_VERSION,
    provenance: doc.provenance,
    coverage: doc.coverage,
    event_summary: summarizeEvents(doc.events, doc.ground_truth.files),
    file_level_metrics: {
      computable: files.reason === undefined,
      ...(files.reason !== undefined ? { reason: files.reason } : {}),
      ...split(score.metrics, stage(1)),
      n_retrieved: files.retrieved.length,
      n_ground_truth: files.relevant.length,
      n_overlap: files.retrieved.filter((f) => relevant.has(f)).length,
      first_gt_hit_step: files.firstHitStep,
      retrieved: files.retrieved,
    },
    chunk_level_metrics: { ...score.chunkLevel, chunk_recall: score.chunkLevel.chunk_recall.value },
    utilization_probes: {
      probe_available: probes.probe_available,
      expected_edit_probe_available: probes.expected_edit_probe_available,
      files_read: probes.files_read,
      files_read_relevant: probes.files_read_relevant,
      files_written: probes.files_written,
      files_written_relevant: probes.files_written_relevant,
      files_written_expected_edit: probes.files_written_expected_edit,
      ...split(score.metrics, stage(3)),
    },
    error_taxonomy: score.taxonomy
      ? {
          computable: true,
          labels: Object.fromEntries(ERROR_LABELS.map((l) => [l, score.taxonomy!.files[l].length])),
          files: score.taxonomy.files,
          slices: {
            candidate_set_size: score.taxonomy.candidate_set_size,
            candidate_set_count: score.taxonomy.candidate_set_count,
            evidence_type: score.taxonomy.evidence_type,
          },
        }
      : { computable: false, reason: files.reason },
    outcome: record.outcome ?? null,
  };
}

interface GroupSummary {
  tasks: number;
  computable_tasks: number;
  metrics: Record<string, Summary>;
  slice_distribution: Record<'candidate_set_size' | 'evidence_type', Record<string, number>>;
}

function group(records: readonly TaskRecord[], names: readonly string[]): GroupSummary {
  const distribution = {
    candidate_set_size: {} as Record<string, number>,
    evidence_type: {} as Record<string, number>,
  };
  for (const r of records) {
    const t = r.score.taxonomy;
    if (!t) continue;
    distribution.candidate_set_size[t.candidate_set_size] =
      (distribution.candidate_set_size[t.candidate_set_size] ?? 0) + 1;
    distribution.evidence_type[t.evidence_type] = (distribution.evidence_type[t.evidence_type] ?? 0) + 1;
  }
  return {
    tasks: records.length,
    computable_tasks: records.filter((r) => r.score.fileLevel.reason === undefined).length,
    metrics: Object.fromEntries(names.map((n) => [n, summary(records, n)])),
    slice_distribution: {
      candidate_set_size: sortKeys(distribution.candidate_set_size),
      evidence_type: sortKeys(distribution.evidence_type),
    },
  };
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => compareCodeUnits(a, b)));
}

export interface Comparison {
  baseline: string;
  candidate: string;
  matched_tasks: number;
  tasks: string[];
  excluded: { task: string; reason: string }[];
  metrics: Record<string, ComparisonResult>;
  outcomes: Record<OutcomeName, ComparisonResult>;
}

/** The matched baseline-vs-candidate comparison of every stage-1 metric and every outcome. */
export function comparison(
  records: readonly TaskRecord[],
  baseline: string,
  candidate: string,
  cutoffs: readonly number[],
): Comparison {
  const { pairs, excluded } = matchTasks(records, baseline, candidate);
  return {
    baseline,
    candidate,
    matched_tasks: pairs.length,
    tasks: pairs.map((p) => p.task),
    excluded,
    metrics: Object.fromEntries(
      taskMetrics(cutoffs)
        .filter((m) => m.stage === 1)
        .map((m) => [m.name, compareMetric(pairs, m.name, m.direction)]),
    ),
    outcomes: Object.fromEntries(
      OUTCOMES.map((o) => [o, compareOutcome(pairs, o)]),
    ) as Comparison['outcomes'],
  };
}

export interface RunSummaryOptions {
  cutoffs: readonly number[];
  comparison?: Comparison;
  /** Whether outcomes were given: without them there is nothing to correlate. */
  outcomes: boolean;
}

/** run_retrieval_summary.json: every metric pooled and per config, slices, the comparison, correlations. */
export function runSummary(
  records: readonly TaskRecord[],
  options: RunSummaryOptions,
): Record<string, unknown> {
  const all = taskMetrics(options.cutoffs);
  const names = all.map((m) => m.name);
  const stage1 = all.filter((m) => m.stage === 1).map((m) => m.name);
  const configs = [...new Set(records.map((r) => r.doc.provenance.config_name))].sort(compareCodeUnits);
  const inConfig = (c: string) => records.filter((r) => r.doc.provenance.config_name === c);
  const sliceOf = (key: 'candidate_set_size' | 'evidence_type', value: string) =>
    records.filter((r) => r.score.taxonomy?.[key] === value);
  const slices = (key: 'candidate_set_size' | 'evidence_type', values: readonly string[]) =>
    Object.fromEntries(
      values.map((v) => {
        const members = sliceOf(key, v);
        return [
          v,
          { tasks: members.length, metrics: Object.fromEntries(stage1.map((n) => [n, summary(members, n)])) },
        ];
      }),
    );
  const correlations = (subset: readonly TaskRecord[]): Record<string, Record<OutcomeName, Correlation>> =>
    correlationTable(subset, stage1);
  return {
    schema_version: SCHEMA_VERSION,
    k: options.cutoffs,
    total_event_files: records.length,
    computable_tasks: records.filter((r) => r.score.fileLevel.reason === undefined).length,
    skipped_no_ground_truth: records.filter((r) => r.score.fileLevel.missing === 'ground_truth').length,
    skipped_no_trace: records.filter((r) => r.score.fileLevel.missing === 'trace').length,
    chunk_capable_tasks: records.filter((r) => r.score.chunkLevel.resolution === 'chunk_level').length,
    degraded_tasks: records.filter((r) => r.doc.coverage.trace_source === null).length,
    pooled: group(records, names),
    by_config: Object.fromEntries(configs.map((c) => [c, group(inConfig(c), names)])),
    calibration_slices: {
      candidate_set_size: slices('candidate_set_size', ['small', 'medium', 'large']),
      evidence_type: slices('evidence_type', ['local', 'mcp']),
    },
    comparison: options.comparison ?? null,
    correlations: options.outcomes
      ? {
          method: "Spearman's rho (average ranks for ties), n ≥ 5; association only, not causation",
          pooled: correlations(records),
          by_config: Object.fromEntries(configs.map((c) => [c, correlations(inConfig(c))])),
        }
      : null,
  };
}
