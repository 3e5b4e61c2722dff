import { notComputable, type MetricValue } from '../../../metrics/spec.js';
import type { EventDocument, ToolCategory } from '../contract.js';
import { normalizePath } from '../paths.js';

export const UTILIZATION_METRICS = [
  'util_read_overlap_with_relevant_files',
  'util_write_overlap_with_relevant_files_proxy',
  'util_write_overlap_with_expected_edit_files',
  'util_read_before_write_ratio',
] as const;

/** Stage 3: whether the agent used what it retrieved, by file. */
export interface Utilization {
  /** False only without file-level ground truth. */
  probe_available: boolean;
  expected_edit_probe_available: boolean;
  files_read: number;
  files_read_relevant: number;
  files_written: number;
  files_written_relevant: number;
  files_written_expected_edit: number;
  metrics: Record<(typeof UTILIZATION_METRICS)[number], MetricValue>;
}

/** Categories that count as having read a file before writing it (the reference pipeline's choice). */
const READ_BEFORE_WRITE: ReadonlySet<ToolCategory> = new Set(['file_read', 'code_search', 'file_search']);

/** First step at which each file was targeted by an event of the given categories. */
function firstSteps(doc: EventDocument, categories: ReadonlySet<ToolCategory>): Map<string, number> {
  const first = new Map<string, number>();
  for (const e of doc.events) {
    if (!categories.has(e.tool_category)) continue;
    for (const f of e.target_files) {
      const p = normalizePath(f);
      if (p !== '' && !first.has(p)) first.set(p, e.step_index);
    }
  }
  return first;
}

const ratio = (numerator: number, denominator: number): MetricValue => ({
  value: numerator / denominator,
  numerator,
  denominator,
});

/**
 * read overlap = |files read ∩ relevant| / |relevant| (file_read events, MCP read_file included);
 * write proxy = |files written ∩ relevant| / |relevant|; expected-edit overlap = |written ∩ expected edit
 * files| / |expected edit files|; read-before-write = written files first read (or searched) at an
 * earlier step than first written, over written files. Write probes are not computable without writes.
 */
export function utilization(doc: EventDocument, relevant: readonly string[] | undefined): Utilization {
  const expected = [
    ...new Set((doc.ground_truth.expected_edit_files ?? []).map(normalizePath).filter((p) => p !== '')),
  ];
  const read = firstSteps(doc, new Set(['file_read']));
  const written = firstSteps(doc, new Set(['file_write']));
  if (!relevant) {
    const why = notComputable('no ground truth');
    return {
      probe_available: false,
      expected_edit_probe_available: false,
      files_read: read.size,
      files_read_relevant: 0,
      files_written: written.size,
      files_written_relevant: 0,
      files_written_expected_edit: 0,
      metrics: Object.fromEntries(UTILIZATION_METRICS.map((m) => [m, why])) as Utilization['metrics'],
    };
  }
  const isRelevant = new Set(relevant);
  const isExpected = new Set(expected);
  const readRelevant = [...read.keys()].filter((f) => isRelevant.has(f)).length;
  const writtenRelevant = [...written.keys()].filter((f) => isRelevant.has(f)).length;
  const writtenExpected = [...written.keys()].filter((f) => isExpected.has(f)).length;
  const searched = firstSteps(doc, READ_BEFORE_WRITE);
  const readFirst = [...written].filter(([f, step]) => (searched.get(f) ?? Infinity) < step).length;
  const noWrites = notComputable('no file writes');
  return {
    probe_available: true,
    expected_edit_probe_available: expected.length > 0,
    files_read: read.size,
    files_read_relevant: readRelevant,
    files_written: written.size,
    files_written_relevant: writtenRelevant,
    files_written_expected_edit: writtenExpected,
    metrics: {
      util_read_overlap_with_relevant_files: ratio(readRelevant, relevant.length),
      util_write_overlap_with_relevant_files_proxy:
        written.size === 0 ? noWrites : ratio(writtenRelevant, relevant.length),
      util_write_overlap_with_expected_edit_files:
        expected.length === 0
          ? notComputable('no expected_edit_files (not inferable from high-confidence task metadata)')
          : written.size === 0
            ? noWrites
            : ratio(writtenExpected, expected.length),
      util_read_before_write_ratio: written.size === 0 ? noWrites : ratio(readFirst, written.size),
    },
  };
}
