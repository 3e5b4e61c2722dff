import { compareCodeUnits } from '../../../io/files.js';
import type { EventDocument } from '../contract.js';
import { dirname, normalizePath } from '../paths.js';

export const ERROR_LABELS = [
  'irrelevant_retrieval',
  'missed_key_evidence',
  'wrong_evidence_used',
  'unused_correct_retrieval',
  'ambiguity_near_miss',
] as const;
export type ErrorLabel = (typeof ERROR_LABELS)[number];

export type CandidateSetSize = 'small' | 'medium' | 'large';
export type EvidenceType = 'local' | 'mcp';

/** Stage 4: the files behind each error label (counts are their lengths), and the task's calibration slices. */
export interface Taxonomy {
  files: Record<ErrorLabel, string[]>;
  candidate_set_size: CandidateSetSize;
  candidate_set_count: number;
  evidence_type: EvidenceType;
}

/** ≤ 5 files small, 6–20 medium, more large. */
export function candidateSetSize(count: number): CandidateSetSize {
  return count <= 5 ? 'small' : count <= 20 ? 'medium' : 'large';
}

/**
 * irrelevant = retrieved − GT; missed = GT − retrieved; wrong evidence = written − GT; unused correct =
 * (retrieved ∩ GT) − written; near miss = irrelevant files in the folder of a GT file (a file at the
 * repository root is near nothing). Slices: the number of distinct files retrieved, and whether any MCP
 * tool was used.
 */
export function taxonomy(
  doc: EventDocument,
  retrieved: readonly string[],
  relevant: readonly string[],
): Taxonomy {
  const isRelevant = new Set(relevant);
  const got = new Set(retrieved);
  const written = new Set<string>();
  for (const e of doc.events) {
    if (e.tool_category !== 'file_write') continue;
    for (const f of e.target_files) written.add(normalizePath(f));
  }
  written.delete('');
  const folders = new Set(relevant.map(dirname).filter((d) => d !== ''));
  const irrelevant = retrieved.filter((f) => !isRelevant.has(f));
  const sorted = (files: Iterable<string>) => [...files].sort(compareCodeUnits);
  return {
    files: {
      irrelevant_retrieval: sorted(irrelevant),
      missed_key_evidence: sorted(relevant.filter((f) => !got.has(f))),
      wrong_evidence_used: sorted([...written].filter((f) => !isRelevant.has(f))),
      unused_correct_retrieval: sorted(retrieved.filter((f) => isRelevant.has(f) && !written.has(f))),
      ambiguity_near_miss: sorted(irrelevant.filter((f) => folders.has(dirname(f)))),
    },
    candidate_set_size: candidateSetSize(retrieved.length),
    candidate_set_count: retrieved.length,
    evidence_type: doc.events.some((e) => e.is_mcp) ? 'mcp' : 'local',
  };
}
