import { z } from 'zod';
import { CONFIDENCES, type GroundTruthChunk } from '../contract.js';
import { readJsonFile, validateJson } from '../../../io/json-document.js';
import { unique, type TaskGroundTruth } from './types.js';

const entrySchema = z.looseObject({
  files: z.array(z.string()),
  source: z.string().optional(),
  confidence: z.enum(CONFIDENCES).optional(),
  benchmark: z.string().optional(),
  defect_annotations: z
    .array(
      z.looseObject({
        file: z.string(),
        line_start: z.int().min(1).nullable().optional(),
        line_end: z.int().min(1).nullable().optional(),
        defect_type: z.string().nullable().optional(),
      }),
    )
    .optional(),
});
const registrySchema = z.record(z.string(), entrySchema);

export interface RegistryEntry {
  truth?: TaskGroundTruth;
  benchmark?: string;
}

/**
 * A ground-truth registry (CodeScaleBench's `configs/ground_truth_files.json`): task id →
 * `{files, source, confidence, benchmark?, defect_annotations?}`, built once from the task folders.
 */
export function loadRegistry(file: string): Map<string, RegistryEntry> {
  const what = 'a ground-truth registry {task: {files, source, confidence}}';
  const registry = validateJson(registrySchema, readJsonFile(file, what), what);
  const out = new Map<string, RegistryEntry>();
  for (const [task, entry] of Object.entries(registry)) {
    const chunks: GroundTruthChunk[] = (entry.defect_annotations ?? []).flatMap((d) =>
      d.line_start === undefined || d.line_start === null
        ? []
        : [
            {
              file: d.file,
              line_start: d.line_start,
              line_end: Math.max(d.line_end ?? d.line_start, d.line_start),
              annotation: d.defect_type ?? null,
            },
          ],
    );
    const files = unique(entry.files);
    out.set(task, {
      ...(entry.benchmark ? { benchmark: entry.benchmark } : {}),
      ...(files.length > 0
        ? {
            truth: {
              files,
              source: entry.source ?? 'registry',
              confidence: entry.confidence ?? 'medium',
              file,
              ...(chunks.length > 0 ? { chunks } : {}),
            },
          }
        : {}),
    });
  }
  return out;
}
