import { notComputable, type MetricValue } from '../../../metrics/spec.js';
import type { EventDocument } from '../contract.js';
import { chunkLevel, type ChunkLevel } from './chunk-level.js';
import { fileLevel, type FileLevel } from './file-level.js';
import { ERROR_LABELS, taxonomy, type Taxonomy } from './taxonomy.js';
import { utilization, type Utilization } from './utilization.js';

/** Stages 1–4 of one document. */
export interface TaskScore {
  fileLevel: FileLevel;
  chunkLevel: ChunkLevel;
  utilization: Utilization;
  /** Undefined when stage 1 is not computable. */
  taxonomy?: Taxonomy;
  /** Every per-task metric by its report name: stage 1, `chunk_recall`, the probes, the error-label counts. */
  metrics: Record<string, MetricValue>;
}

export function scoreTask(doc: EventDocument, cutoffs: readonly number[]): TaskScore {
  const files = fileLevel(doc, cutoffs);
  const computable = files.reason === undefined;
  const chunks = chunkLevel(doc, files.retrieved);
  const probes = utilization(doc, computable ? files.relevant : undefined);
  const errors = computable ? taxonomy(doc, files.retrieved, files.relevant) : undefined;
  const metrics: Record<string, MetricValue> = {
    ...files.metrics,
    chunk_recall: chunks.chunk_recall,
    ...probes.metrics,
  };
  for (const label of ERROR_LABELS) {
    metrics[label] = errors ? { value: errors.files[label].length } : notComputable(files.reason!);
  }
  return {
    fileLevel: files,
    chunkLevel: chunks,
    utilization: probes,
    ...(errors ? { taxonomy: errors } : {}),
    metrics,
  };
}
