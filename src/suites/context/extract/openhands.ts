import { compiled, JS_BLANKS, JS_DOT, JS_S } from '../../../config/pattern.js';
import type { StepJson, TrajData } from '../contract.js';
import type { Interval } from '../../../metrics/intervals.js';
import {
  addSpan,
  isRecord,
  lstripChars,
  mergedSpans,
  sortedUnique,
  str,
  stripChars,
  toInt,
  type SpansByFile,
} from './common.js';

/** Commands that change files rather than read them. */
const WRITES = ['git add', 'git commit', 'rm ', 'mkdir', 'echo ', 'sed -i'];
// A trajectory comes from a pull request: on RE2, linear in the command (JavaScript's engine took 15 s on
// `grep` and 4,000 spaces), with JavaScript's `\s` and `.`.
export const GREP_FILE = String.raw`\bgrep${JS_S}+${JS_DOT}*${JS_S}+([^${JS_BLANKS}&|>;<'"]+\.(?:py|js|java|go|rs|c|cpp|h|hpp|ts|tsx|jsx|rb|php|cs|kt|scala|swift))(?:${JS_S}*(?:\||&|;|$))`;

/**
 * One record of an OpenHands `output.jsonl`: its `history` of `read` actions (a `view_range`, else
 * `start`/`end`; `start: 0, end: -1` is the whole file, a file without a span) and `run` actions (files that
 * `sed -n`, `nl | sed -n`, `head -n`, `cat` or a single-file `grep` read). OpenHands states no final
 * context, so it is everything the steps saw. Paths lose `/testbed/` and leading `/`.
 */
export function extractOpenHandsRecord(record: Record<string, unknown>): { traj: TrajData; patch: string } {
  const steps: StepJson[] = [];
  for (const item of Array.isArray(record.history) ? record.history : []) {
    if (!isRecord(item)) continue;
    const args = isRecord(item.args) ? item.args : {};
    const step =
      item.action === 'read'
        ? readAction(args)
        : item.action === 'run'
          ? runCommand(str(args.command))
          : undefined;
    if (step && step.files.length > 0) steps.push(step);
  }
  const result = isRecord(record.test_result) ? record.test_result : {};
  return { traj: aggregate(steps), patch: str(result.git_patch) };
}

/**
 * The last file of an OpenHands `llm_completions/<instance>/` folder (each holds the conversation so far):
 * its assistant tool calls, `str_replace_editor` views (with `view_range`) and `execute_bash` commands
 * (`sed -n`, `head -n`, and `cat` of a path with a `/`). Paths lose `/workspace/` and leading `/`.
 */
export function extractOpenHandsCompletions(data: unknown): TrajData {
  const root = isRecord(data) ? data : {};
  const steps: StepJson[] = [];
  for (const msg of Array.isArray(root.messages) ? root.messages : []) {
    if (!isRecord(msg) || msg.role !== 'assistant' || !Array.isArray(msg.tool_calls)) continue;
    for (const call of msg.tool_calls) {
      const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
      let args: unknown;
      try {
        args = JSON.parse(typeof fn.arguments === 'string' ? fn.arguments : '{}');
      } catch {
        continue;
      }
      if (!isRecord(args)) continue;
      let step: StepJson | undefined;
      if (fn.name === 'str_replace_editor' && args.command === 'view') step = editorView(args);
      else if (fn.name === 'execute_bash') step = bashCommand(str(args.command));
      if (step && step.files.length > 0) steps.push(step);
    }
  }
  return aggregate(steps);
}

function readAction(args: Record<string, unknown>): StepJson | undefined {
  const file = normalizeOutputPath(str(args.path));
  if (!file) return undefined;
  const spans: SpansByFile = {};
  const range = viewRange(args.view_range);
  if (range) {
    addSpan(spans, file, ...range);
    return { files: [file], spans };
  }
  const start = toInt(args.start);
  const end = toInt(args.end);
  if (start !== undefined && end !== undefined && start >= 0 && end > 0) {
    const first = start > 0 ? start : 1;
    addSpan(spans, file, Math.min(first, end), Math.max(first, end));
  }
  return { files: [file], spans };
}

/** `[a, b]` with both ends positive, ordered. */
function viewRange(value: unknown): [number, number] | undefined {
  if (!Array.isArray(value) || value.length < 2) return undefined;
  const a = toInt(value[0]);
  const b = toInt(value[1]);
  if (a === undefined || b === undefined || a <= 0 || b <= 0) return undefined;
  return [Math.min(a, b), Math.max(a, b)];
}

interface View {
  file: string;
  lines?: [number, number];
}

function runCommand(command: string): StepJson | undefined {
  if (!command || WRITES.some((k) => command.includes(k))) return undefined;
  const views: View[] = [];
  for (const m of command.matchAll(/sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s&|>;<]+)/g)) {
    views.push({ file: normalizeOutputPath(m[3]!), lines: [Number(m[1]), Number(m[2])] });
  }
  for (const m of command.matchAll(/nl\s+[^|]+\s+([^\s|]+)\s*\|\s*sed\s+-n\s+['"]?(\d+),(\d+)p/g)) {
    views.push({ file: normalizeOutputPath(stripChars(m[1]!, `'"`)), lines: [Number(m[2]), Number(m[3])] });
  }
  for (const m of command.matchAll(/\bhead\s+-n\s+(\d+)\s+([^\s&|>]+)/g)) {
    views.push({ file: normalizeOutputPath(stripChars(m[2]!, `'"`)), lines: [1, Number(m[1])] });
  }
  for (const m of command.matchAll(/\bcat\s+(?:-n\s+)?([^\s&|>]+)/g)) {
    views.push({ file: normalizeOutputPath(stripChars(m[1]!, `'"`)) });
  }
  const grep = (compiled(GREP_FILE).exec(command) as string[] | null)?.[1];
  // A glob is a pattern, not a file, unless it has a folder in it.
  if (grep && (grep.includes('/') || !/[*?"]/.test(grep))) views.push({ file: normalizeOutputPath(grep) });
  const seen = new Set<string>();
  return stepOf(
    views.filter((v) => {
      const key = JSON.stringify([v.file, v.lines]);
      if (!v.file || seen.has(key)) return false;
      seen.add(key);
      return true;
    }),
  );
}

function editorView(args: Record<string, unknown>): StepJson | undefined {
  const file = normalizeCompletionsPath(str(args.path));
  if (!file) return undefined;
  const spans: SpansByFile = {};
  const range = viewRange(args.view_range);
  if (range) addSpan(spans, file, ...range);
  return { files: [file], spans };
}

function bashCommand(command: string): StepJson | undefined {
  if (!command || WRITES.some((k) => command.includes(k))) return undefined;
  const views: View[] = [];
  for (const m of command.matchAll(/sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s&|>;<]+)/g)) {
    views.push({ file: normalizeCompletionsPath(m[3]!), lines: [Number(m[1]), Number(m[2])] });
  }
  for (const m of command.matchAll(/\bhead\s+-n\s+(\d+)\s+([^\s&|>]+)/g)) {
    views.push({ file: normalizeCompletionsPath(stripChars(m[2]!, `'"`)), lines: [1, Number(m[1])] });
  }
  for (const m of command.matchAll(/\bcat\s+(?:-n\s+)?([^\s&|>]+)/g)) {
    const raw = stripChars(m[1]!, `'"`);
    if (raw.includes('/')) views.push({ file: normalizeCompletionsPath(raw) });
  }
  return stepOf(views.filter((v) => v.file));
}

function stepOf(views: readonly View[]): StepJson | undefined {
  if (views.length === 0) return undefined;
  const spans: SpansByFile = {};
  for (const v of views) {
    if (v.lines) addSpan(spans, v.file, Math.min(...v.lines), Math.max(...v.lines));
  }
  return { files: sortedUnique(views.map((v) => v.file)), spans };
}

/** Everything the steps saw: their files, and their spans merged per file. */
function aggregate(steps: readonly StepJson[]): TrajData {
  const ranges = new Map<string, Interval[]>();
  for (const step of steps) {
    for (const [file, spans] of Object.entries(step.spans)) {
      const list = ranges.get(file) ?? [];
      for (const s of spans) list.push([s.start, s.end]);
      ranges.set(file, list);
    }
  }
  const spans: SpansByFile = {};
  for (const [file, list] of ranges) spans[file] = mergedSpans(list);
  return {
    pred_steps: [...steps],
    pred_files: sortedUnique(steps.flatMap((s) => s.files)),
    pred_spans: spans,
  };
}

function normalizeOutputPath(raw: string): string {
  let p = stripChars(raw.trim(), `'"`);
  if (p.startsWith('/testbed/')) p = p.slice('/testbed/'.length);
  p = lstripChars(p, '/');
  return p.startsWith('./') ? p.slice(2) : p;
}

function normalizeCompletionsPath(raw: string): string {
  let p = stripChars(raw.trim(), `'"`);
  if (p.startsWith('/workspace/')) p = p.slice('/workspace/'.length);
  p = lstripChars(p, '/');
  return p.startsWith('./') ? p.slice(2) : p;
}
