import type { MetricSpec } from '../../metrics/spec.js';
import { ERROR_LABELS } from './stages/taxonomy.js';
import { UTILIZATION_METRICS } from './stages/utilization.js';

const MEAN = 'Mean over tasks with ground truth of';

/** Stage 1, per task; the report gives their mean over the tasks where each is computable. */
const FILE_LEVEL: readonly MetricSpec[] = [
  {
    name: 'P@{k}',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} ground-truth files among the first k retrieved, over k`,
  },
  {
    name: 'recall@{k}',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} ground-truth files among the first k retrieved, over all ground-truth files`,
  },
  {
    name: 'f1@{k}',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} the harmonic mean of P@k and recall@k`,
  },
  {
    name: 'ndcg@{k}',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} nDCG at k: binary gains, 1/log2(rank+1), ideal over min(k, |GT|) ranks`,
  },
  {
    name: 'mrr',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} 1 / the rank of the first ground-truth file retrieved`,
  },
  {
    name: 'map',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} average precision (divided by all ground-truth files)`,
  },
  {
    name: 'file_recall',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} ground-truth files retrieved anywhere, over all ground-truth files`,
  },
  {
    name: 'context_efficiency',
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} retrieved files that are ground truth, over all retrieved`,
  },
  {
    name: 'ttfr_seconds',
    direction: 'lower',
    unit: 's',
    description: `${MEAN} seconds from the agent's start to its first ground-truth file`,
  },
  {
    name: 'ttfr_tokens',
    direction: 'lower',
    unit: 'tokens',
    description: `${MEAN} tokens consumed up to the first ground-truth file`,
  },
];

const CHUNK_LEVEL: MetricSpec = {
  name: 'chunk_recall',
  direction: 'higher',
  unit: 'ratio',
  description: 'Mean over tasks with chunk ground truth of chunks whose file was accessed, over all chunks',
};

const PROBES: Record<(typeof UTILIZATION_METRICS)[number], string> = {
  util_read_overlap_with_relevant_files:
    'ground-truth files read (file_read, MCP read_file), over all ground-truth files',
  util_write_overlap_with_relevant_files_proxy:
    'ground-truth files written, over all ground-truth files (tasks with writes)',
  util_write_overlap_with_expected_edit_files:
    'expected edit files written, over all expected edit files (tasks with writes)',
  util_read_before_write_ratio: 'written files read or searched before their first write, over written files',
};

const LABELS: Record<(typeof ERROR_LABELS)[number], string> = {
  irrelevant_retrieval: 'retrieved files not in the ground truth',
  missed_key_evidence: 'ground-truth files never retrieved',
  wrong_evidence_used: 'files written that are not in the ground truth',
  unused_correct_retrieval: 'ground-truth files retrieved but never written',
  ambiguity_near_miss: 'irrelevant files retrieved in the folder of a ground-truth file',
};

/** Retrieval metrics compared between the baseline and candidate configs (`compare:`). */
const DELTA_METRICS = ['file_recall', 'mrr', 'map', 'context_efficiency', 'ndcg@{k}'] as const;

export const metrics: readonly MetricSpec[] = [
  ...FILE_LEVEL,
  CHUNK_LEVEL,
  ...UTILIZATION_METRICS.map((name): MetricSpec => ({
    name,
    direction: 'higher',
    unit: 'ratio',
    description: `${MEAN} ${PROBES[name]}`,
  })),
  ...ERROR_LABELS.map((name): MetricSpec => ({
    name,
    direction: 'lower',
    unit: 'count',
    description: `${MEAN} the number of ${LABELS[name]}`,
  })),
  ...DELTA_METRICS.map((name): MetricSpec => ({
    name: `delta.${name}`,
    direction: 'higher',
    unit: 'ratio',
    description: `compare: mean over matched tasks of candidate − baseline ${name.replace('{k}', 'k')} (≥ 3 tasks)`,
  })),
  {
    name: 'delta.reward',
    direction: 'higher',
    unit: 'ratio',
    description: 'compare: mean over matched tasks of candidate − baseline verifier reward (≥ 3 tasks)',
  },
];

export interface TaskMetric {
  name: string;
  direction: 'higher' | 'lower';
  stage: 1 | 2 | 3 | 4;
}

/** The per-task metrics at the given cutoffs, in report order: stage 1, chunk recall, probes, error labels. */
export function taskMetrics(cutoffs: readonly number[]): TaskMetric[] {
  const out: TaskMetric[] = [];
  for (const spec of FILE_LEVEL) {
    const names = spec.name.includes('{k}')
      ? cutoffs.map((k) => spec.name.replace('{k}', String(k)))
      : [spec.name];
    for (const name of names) out.push({ name, direction: spec.direction, stage: 1 });
  }
  out.push({ name: CHUNK_LEVEL.name, direction: 'higher', stage: 2 });
  for (const name of UTILIZATION_METRICS) out.push({ name, direction: 'higher', stage: 3 });
  for (const name of ERROR_LABELS) out.push({ name, direction: 'lower', stage: 4 });
  return out;
}
