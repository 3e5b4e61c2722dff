import { notComputable, type MetricValue } from '../../../metrics/spec.js';
import type { EventDocument } from '../contract.js';
import { normalizePath } from '../paths.js';

/** Stage 2: chunk-level relevance of one task. */
export interface ChunkLevel {
  resolution: 'chunk_level' | 'file_level_only';
  /** v1 granularity: a chunk counts as covered when its file was accessed (no line overlap). */
  validity: 'file_match_only' | 'unsupported';
  chunks_total: number;
  chunks_hit: number;
  chunk_recall: MetricValue;
}

/**
 * Chunk recall = ground-truth chunks (line ranges) whose file some event targeted, over all chunks. Line
 * ranges are not compared: events carry files, not lines, in schema 1.0.
 */
export function chunkLevel(doc: EventDocument, retrieved: readonly string[]): ChunkLevel {
  const chunks = doc.ground_truth.chunks ?? [];
  if (!doc.coverage.has_chunk_ground_truth || chunks.length === 0) {
    return {
      resolution: 'file_level_only',
      validity: 'unsupported',
      chunks_total: 0,
      chunks_hit: 0,
      chunk_recall: notComputable('no chunk-level ground truth (resolution: file_level_only)'),
    };
  }
  const seen = new Set(retrieved);
  const hit = chunks.filter((c) => seen.has(normalizePath(c.file))).length;
  return {
    resolution: 'chunk_level',
    validity: 'file_match_only',
    chunks_total: chunks.length,
    chunks_hit: hit,
    chunk_recall: { value: hit / chunks.length, numerator: hit, denominator: chunks.length },
  };
}
