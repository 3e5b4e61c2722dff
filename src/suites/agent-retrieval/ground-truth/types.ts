import type { Confidence, GroundTruthChunk, GroundTruthSymbol } from '../contract.js';

/** A task's ground truth as the priority chain found it. */
export interface TaskGroundTruth {
  /** Repository-relative files relevant to the task, as the source lists them. */
  files: string[];
  /** Which source: `ground_truth_json_files`, `expected_defects_json`, `patch`, `test_script`, … */
  source: string;
  confidence: Confidence;
  /** The file the chain read it from (relative paths in messages). */
  file: string;
  symbols?: GroundTruthSymbol[];
  chunks?: GroundTruthChunk[];
  /** Edit targets, only from a source that names them with high confidence. */
  expectedEditFiles?: { files: string[]; source: string };
}

/** Ground truth, or why there is none. */
export type GroundTruthLookup = { truth: TaskGroundTruth } | { truth?: undefined; reason: string };

export function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
