import type { Interval } from '../../../metrics/intervals.js';
import type { TrajData } from '../contract.js';
import { isRecord, mergedSpans, sortedUnique, splitLines, str, type SpansByFile } from './common.js';

/**
 * An Agentless `*_traj.json`, one step: the files of its final file-level stage (`3_final_combined_files`,
 * else `2_embedding_selected_files`), the functions, classes and variables of `4_related_elements` as
 * symbols, and as spans the `line:` / `lines:` entries of the first sampled edit location that has any.
 * The patch (`6_final_selected_patch`) is for EditLoc only.
 */
export function extractAgentless(data: unknown): { traj: TrajData; patch: string; instanceId?: string } {
  const root = isRecord(data) ? data : {};
  const listed =
    Array.isArray(root['3_final_combined_files']) && root['3_final_combined_files'].length > 0
      ? root['3_final_combined_files']
      : Array.isArray(root['2_embedding_selected_files'])
        ? root['2_embedding_selected_files']
        : [];
  const files = sortedUnique(listed.filter((f): f is string => typeof f === 'string' && f !== ''));
  const symbols = relatedSymbols(root['4_related_elements']);
  const spans = editLocationSpans(root['5_sampled_edit_locs_and_patches']);
  const traj: TrajData = {
    pred_steps: [{ files, spans, symbols }],
    pred_files: files,
    pred_spans: spans,
    pred_symbols: symbols,
  };
  const id = root.instance_id;
  return {
    traj,
    patch: str(root['6_final_selected_patch']),
    instanceId: typeof id === 'string' && id ? id : undefined,
  };
}

/** `{file: ["function: f\nclass: C", ...]}` → `{file: ["C", "f"]}` (sorted, distinct; empty files left out). */
function relatedSymbols(value: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!isRecord(value)) return out;
  for (const [file, items] of Object.entries(value)) {
    if (!file || !Array.isArray(items)) continue;
    const names: string[] = [];
    for (const item of items) {
      if (typeof item !== 'string') continue;
      for (const raw of splitLines(item)) {
        const line = raw.trim();
        if (/^(?:function|class|variable):/.test(line)) {
          const name = line
            .replace(/^function\s*:\s*/, '')
            .replace(/^class\s*:\s*/, '')
            .replace(/^variable\s*:\s*/, '')
            .trim();
          if (name) names.push(name);
        }
      }
    }
    if (names.length > 0) out[file] = sortedUnique(names);
  }
  return out;
}

const LINE = /^line\s*:\s*(\d+)\s*$/;
const LINES = /^lines\s*:\s*(\d+)\s*-\s*(\d+)\s*$/;

/** Spans of the first sample whose edit locations mention a line at all. */
function editLocationSpans(samples: unknown): SpansByFile {
  const out: SpansByFile = {};
  if (!Array.isArray(samples)) return out;
  const chosen = samples.find(
    (s) =>
      isRecord(s) &&
      isRecord(s.edit_locs) &&
      Object.values(s.edit_locs).some(
        (locs) =>
          Array.isArray(locs) &&
          locs.some((raw) => typeof raw === 'string' && (raw.includes('line:') || raw.includes('lines:'))),
      ),
  ) as { edit_locs: Record<string, unknown> } | undefined;
  if (!chosen) return out;
  for (const [file, locs] of Object.entries(chosen.edit_locs)) {
    if (!file || !Array.isArray(locs)) continue;
    const ranges = lineRanges(locs);
    if (ranges.length > 0) out[file] = mergedSpans(ranges);
  }
  return out;
}

/** `line: N` and `lines: A-B`, whole entries first, else each line of a multi-line entry. */
function lineRanges(locs: readonly unknown[]): Interval[] {
  const out: Interval[] = [];
  const parse = (text: string): boolean => {
    let m = LINES.exec(text);
    if (m) {
      const a = Number(m[1]);
      const b = Number(m[2]);
      out.push([Math.min(a, b), Math.max(a, b)]);
      return true;
    }
    m = LINE.exec(text);
    if (m) {
      out.push([Number(m[1]), Number(m[1])]);
      return true;
    }
    return false;
  };
  for (const loc of locs) {
    const raw = str(loc).trim();
    if (!raw || parse(raw)) continue;
    for (const line of splitLines(raw)) {
      const t = line.trim();
      if (t) parse(t);
    }
  }
  return out;
}
