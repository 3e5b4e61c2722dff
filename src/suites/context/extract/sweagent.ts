import type { StepJson, TrajData } from '../contract.js';
import { addSpan, isRecord, str, type SpansByFile } from './common.js';

/**
 * A SWE-agent `.checkpoints.jsonl`, one checkpoint a record. Steps are `str_replace_editor view PATH
 * --view_range A B` actions with both ends positive (a whole-file view, `-1` as end, or a malformed range
 * is not a step). The final context is the `patch_context` record (`File:` / `Lines:` pairs), else the
 * last step.
 */
export function extractSweAgent(records: readonly unknown[]): TrajData {
  const steps: StepJson[] = [];
  let final: SpansByFile | undefined;
  for (const record of records) {
    const r = isRecord(record) ? record : {};
    if (r.type === 'patch_context') {
      const text = str(r.patch_context);
      if (text) final = patchContext(text);
      continue;
    }
    const view = viewCommand(str(r.action));
    if (!view) continue;
    const file = normalizePath(view.file);
    const spans: SpansByFile = {};
    addSpan(spans, file, Math.min(view.start, view.end), Math.max(view.start, view.end));
    steps.push({ files: [file], spans });
  }
  const last = final ?? steps[steps.length - 1]?.spans ?? {};
  return { pred_steps: steps, pred_files: Object.keys(last), pred_spans: last };
}

function viewCommand(action: string): { file: string; start: number; end: number } | undefined {
  if (!action.includes('str_replace_editor view')) return undefined;
  const m = /str_replace_editor view\s+(\S+)(?:\s+--view_range\s+(\d+)\s+(\d+))?/.exec(action);
  if (!m || m[2] === undefined) return undefined;
  const start = Number(m[2]);
  const end = Number(m[3]);
  return start > 0 && end > 0 ? { file: m[1]!, start, end } : undefined;
}

function normalizePath(p: string): string {
  if (p.startsWith('/testbed/')) return p.slice('/testbed/'.length);
  return p.startsWith('/') ? p.slice(1) : p;
}

/** `File: path` then `Lines: a-b` lines; a file is kept even without lines (it was named as context). */
function patchContext(text: string): SpansByFile {
  const spans: SpansByFile = {};
  let file: string | undefined;
  for (const raw of text.trim().split('\n')) {
    const line = raw.trim();
    if (line.startsWith('File:')) {
      file = normalizePath(line.replaceAll('File:', '').trim());
      spans[file] ??= [];
    } else if (line.startsWith('Lines:') && file) {
      const m = /^(\d+)\s*-\s*(\d+)$/.exec(line.replaceAll('Lines:', '').trim());
      if (m) addSpan(spans, file, Math.min(Number(m[1]), Number(m[2])), Math.max(Number(m[1]), Number(m[2])));
    }
  }
  return spans;
}
