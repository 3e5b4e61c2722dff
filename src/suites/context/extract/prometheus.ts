import { compiled, JS_DOT, JS_S } from '../../../config/pattern.js';
import type { Interval } from '../../../metrics/intervals.js';
import type { StepJson, TrajData } from '../contract.js';
import { mergedSpans, sortedUnique, splitLines, type SpansByFile } from './common.js';

const BEGIN = '--- BEGIN CONTEXT ---';
const END = '--- END CONTEXT ---';
const BEGIN_AGGREGATED = '--- BEGIN AGGREGATED CONTEXT ---';
const END_AGGREGATED = '--- END AGGREGATED CONTEXT ---';

/**
 * A Prometheus answer_issue log (`.log`). Each `--- BEGIN CONTEXT ---` block is a step of `File:` and
 * `Line number range: a - b` lines; the last `--- BEGIN AGGREGATED CONTEXT ---` block is the final
 * context, else the union of the steps. Paths lose `/testbed/` or `/workspace/<dir>/`, and leading `/`.
 */
export function extractPrometheus(text: string): TrajData {
  const steps: StepJson[] = [];
  for (const block of blocks(text, BEGIN, END)) {
    const spans = fileRanges(block);
    const files = Object.keys(spans);
    if (files.length > 0) steps.push({ files: sortedUnique(files), spans });
  }
  const aggregated = blocks(text, BEGIN_AGGREGATED, END_AGGREGATED);
  let final = aggregated.length > 0 ? fileRanges(aggregated[aggregated.length - 1]!) : {};
  if (Object.keys(final).length === 0) {
    const union = new Map<string, Interval[]>();
    for (const step of steps) {
      for (const [file, spans] of Object.entries(step.spans)) {
        union.set(file, [...(union.get(file) ?? []), ...spans.map((s): Interval => [s.start, s.end])]);
      }
    }
    final = Object.fromEntries([...union].map(([file, ranges]) => [file, mergedSpans(ranges)]));
  }
  const files = sortedUnique(Object.keys(final));
  if (steps.length === 0 && files.length > 0) steps.push({ files, spans: final });
  return { pred_steps: steps, pred_files: files, pred_spans: final };
}

function blocks(text: string, begin: string, end: string): string[] {
  const out: string[] = [];
  for (let from = 0; ;) {
    const i = text.indexOf(begin, from);
    if (i < 0) break;
    const j = text.indexOf(end, i + begin.length);
    if (j < 0) break;
    out.push(text.slice(i + begin.length, j).replace(/^\n+|\n+$/g, ''));
    from = j + end.length;
  }
  return out;
}

// Lines of a trajectory from a pull request: on RE2, linear (`\s*(.+?)\s*$` backtracks over a long blank run),
// with JavaScript's `\s` and `.`.
export const FILE = String.raw`^${JS_S}*File:${JS_S}*(${JS_DOT}+?)${JS_S}*$`;
const RANGE = /^\s*Line\s*number\s*range\s*:\s*(\d+)\s*-\s*(\d+)\s*$/i;

/** Ranges per file, merged; a file with no range is left out. */
function fileRanges(block: string): SpansByFile {
  const ranges = new Map<string, Interval[]>();
  let file: string | undefined;
  for (const line of splitLines(block)) {
    let m = compiled(FILE).exec(line) as string[] | null;
    if (m) {
      file = normalizePath(m[1]!) || undefined;
      if (file && !ranges.has(file)) ranges.set(file, []);
      continue;
    }
    m = RANGE.exec(line);
    if (m && file) {
      const a = Number(m[1]);
      const b = Number(m[2]);
      ranges.get(file)!.push([Math.min(a, b), Math.max(a, b)]);
    }
  }
  const out: SpansByFile = {};
  for (const [f, list] of ranges) if (list.length > 0) out[f] = mergedSpans(list);
  return out;
}

function normalizePath(raw: string): string {
  let p = raw.trim().replaceAll('\\\\', '/');
  if (p.startsWith('/testbed/')) p = p.slice('/testbed/'.length);
  else if (p.startsWith('/workspace/')) {
    const rest = p.slice('/workspace/'.length);
    const slash = rest.indexOf('/');
    p = slash === -1 ? rest : rest.slice(slash + 1);
  }
  return p.replace(/^\/+/, '');
}
