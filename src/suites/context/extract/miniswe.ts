import { compiled, JS_BLANKS, JS_DOT, JS_S } from '../../../config/pattern.js';
import type { StepJson, TrajData } from '../contract.js';
import { addSpan, isRecord, sortedUnique, splitLines, str, stripChars, type SpansByFile } from './common.js';

/**
 * A mini-SWE-agent `.traj.json` (the context-aware variant). Steps are its `<explore_context>` blocks
 * (the environment's echo of what the agent said it looked at); when there is none, the files its bash
 * commands read. The final context is the last `<PATCH_CONTEXT>` block. Paths lose `/testbed/`, and
 * `/home/<repo>/` when the Multi-SWE-bench image names that repo.
 */
export function extractMiniSwe(data: unknown): { traj: TrajData; patch: string } {
  const root = isRecord(data) ? data : {};
  const messages = (Array.isArray(root.messages) ? root.messages : []).filter(isRecord);
  const info = isRecord(root.info) ? root.info : {};
  const repoDir = repoDirName(info);

  const steps: StepJson[] = [];
  for (const msg of messages) {
    for (const block of tagBlocks(str(msg.content), 'explore_context')) {
      const spans = fileLinePairs(block, repoDir);
      const files = Object.keys(spans);
      if (files.length > 0) steps.push({ files: sortedUnique(files), spans });
    }
  }
  if (steps.length === 0) {
    for (const msg of messages) {
      if (msg.role !== 'assistant') continue;
      const block = bashBlock(str(msg.content));
      if (block === undefined) continue;
      const cmd = block.trim();
      if (cmd.includes('COMPLETE_TASK')) continue;
      const files: string[] = [];
      const spans: SpansByFile = {};
      for (const view of viewsOfCommand(cmd)) {
        const file = normalizePath(view.file, repoDir);
        if (!file) continue;
        files.push(file);
        // Only an explicit range becomes a span: a whole-file `cat` would count every symbol in it.
        if (view.lines) addSpan(spans, file, Math.min(...view.lines), Math.max(...view.lines));
      }
      if (files.length > 0) steps.push({ files: sortedUnique(files), spans });
    }
  }

  const finals = messages.flatMap((msg) => tagBlocks(str(msg.content), 'PATCH_CONTEXT'));
  const last = finals[finals.length - 1];
  const finalSpans = last === undefined ? {} : fileLinePairs(last, repoDir);
  return {
    traj: { pred_steps: steps, pred_files: sortedUnique(Object.keys(finalSpans)), pred_spans: finalSpans },
    patch: str(info.submission),
  };
}

/** `mswebench/alibaba_m_fastjson2:pr-2559` → `fastjson2`: the folder the image keeps the repo in. */
function repoDirName(info: Record<string, unknown>): string {
  const config = isRecord(info.config) ? info.config : {};
  const env = isRecord(config.environment) ? config.environment : {};
  return /_m_([A-Za-z0-9_.-]+)(?::|$)/.exec(str(env.image))?.[1] ?? '';
}

function normalizePath(raw: string, repoDir: string): string {
  let p = stripChars(raw.trim(), `'"`);
  if (!p) return '';
  if (p.startsWith('/testbed/')) p = p.slice('/testbed/'.length);
  if (p.startsWith('/home/')) {
    const rest = p.slice('/home/'.length);
    const slash = rest.indexOf('/');
    if (slash === -1) return '';
    p = repoDir && rest.slice(0, slash) === repoDir ? rest.slice(slash + 1) : rest;
  }
  p = p.replace(/^\/+/, '');
  if (p.startsWith('./')) p = p.slice(2);
  return p;
}

/**
 * The text of each `<tag>…</tag>` block, trimmed, each closed by the first `</tag>` after it. A scan, not a
 * pattern: a trajectory comes from a pull request, and `<tag>\s*([\s\S]*?)\s*</tag>` backtracked for minutes
 * over an unclosed tag followed by spaces.
 */
export function tagBlocks(text: string, tag: string): string[] {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const blocks: string[] = [];
  for (let at = text.indexOf(open); at !== -1;) {
    const end = text.indexOf(close, at + open.length);
    if (end === -1) break;
    blocks.push(text.slice(at + open.length, end).trim());
    at = text.indexOf(open, end + close.length);
  }
  return blocks;
}

/**
 * What ```` /```bash\s*\r?\n([\s\S]*?)\r?\n```/ ```` captures, found by a scan in time linear in the text: the
 * pattern took minutes on a message of ```` ```bash ```` and a million newlines. Its `\s*` is greedy, so the
 * block starts after the last newline of the blank run after ```` ```bash ````, and ends at the first
 * `\r?\n```` ` after that; with none there, an earlier newline of the run may start it only when the run itself
 * ends in `\n```` `. A later ```` ```bash ```` cannot do better than the first: its search is a part of the first's.
 */
export function bashBlock(text: string): string | undefined {
  const FENCE = '```bash';
  for (let fence = text.indexOf(FENCE); fence !== -1;) {
    const from = fence + FENCE.length;
    let end = from;
    while (end < text.length && /\s/.test(text[end]!)) end++;
    const last = text.lastIndexOf('\n', end - 1);
    // A run without a newline: this fence is no block's, the next one may be.
    if (last < from) {
      fence = text.indexOf(FENCE, end);
      continue;
    }
    const close = text.indexOf('\n```', last + 1);
    if (close !== -1) return text.slice(last + 1, endOfBlock(text, last + 1, close));
    const before = text.lastIndexOf('\n', last - 1);
    return before >= from && text.startsWith('```', last + 1)
      ? text.slice(before + 1, endOfBlock(text, before + 1, last))
      : undefined;
  }
  return undefined;
}

/** Where a block from `start` ends before the newline at `nl` of its closing fence: before `\r\n` too. */
const endOfBlock = (text: string, start: number, nl: number): number =>
  nl - 1 >= start && text[nl - 1] === '\r' ? nl - 1 : nl;

/** Repeated `File: path` / `Lines: a-b` pairs; a file without a `Lines:` line is not kept. */
function fileLinePairs(text: string, repoDir: string): SpansByFile {
  const spans: SpansByFile = {};
  let file = '';
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (line.startsWith('File:')) {
      file = normalizePath(line.slice('File:'.length).trim(), repoDir);
    } else if (line.startsWith('Lines:') && file) {
      const m = /^(\d+)\s*-\s*(\d+)/.exec(line.slice('Lines:'.length).trim());
      if (!m) continue;
      const a = Number(m[1]);
      const b = Number(m[2]);
      addSpan(spans, file, Math.min(a, b), Math.max(a, b));
    }
  }
  return spans;
}

interface View {
  file: string;
  lines?: [number, number];
}

const SOURCE_EXTENSIONS = [
  '.py',
  '.js',
  '.java',
  '.go',
  '.rs',
  '.c',
  '.cpp',
  '.h',
  '.hpp',
  '.ts',
  '.tsx',
  '.jsx',
  '.rb',
  '.php',
  '.cs',
  '.kt',
  '.scala',
  '.swift',
];

// A command comes from a pull request's trajectory: its patterns run on RE2, linear in the command, where
// JavaScript's backtracked for minutes (`nl` and 8,000 spaces). With JavaScript's `\s` and `.` spelled out,
// the views read are the same.
/** Neither a blank nor one of `more`. */
const notS = (more: string) => `[^${JS_BLANKS}${more}]`;
const VIEW_PATTERNS = {
  nl: String.raw`nl${JS_S}+[^|]+${JS_S}+(${notS('|')}+)${JS_S}*\|${JS_S}*sed${JS_S}+-n${JS_S}+['"]?(\d+),(\d+)p`,
  sed: String.raw`sed${JS_S}+-n${JS_S}+['"]?(\d+),(\d+)p['"]?${JS_S}+(${notS('&|>;<')}+)`,
  head: String.raw`\bhead${JS_S}+-n${JS_S}+(\d+)${JS_S}+(${notS('&|>')}+)`,
  cat: String.raw`\bcat${JS_S}+(${notS('&|>')}+)`,
  grep: String.raw`\bgrep${JS_S}+${JS_DOT}*?${JS_S}+(${notS('&|>')}+\.(?:py|js|java|go|rs|c|cpp|h|hpp|ts|tsx|jsx|rb|php|cs|kt|scala|swift))\b`,
};
/** A view pattern, compiled on first use (compiled() keeps it). */
export const view = (name: keyof typeof VIEW_PATTERNS) => compiled(VIEW_PATTERNS[name]);

/**
 * The parts of a command between `&&`, `||` and `;`, as splitting at `\s*(?:&&|\|\||;)\s*` makes them up to the
 * blanks around each, which the caller trims: a scan.
 */
export function commandParts(cmd: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < cmd.length;) {
    const two = cmd.slice(i, i + 2);
    const sep = two === '&&' || two === '||' ? 2 : cmd[i] === ';' ? 1 : 0;
    if (sep === 0) {
      i++;
      continue;
    }
    parts.push(cmd.slice(start, i));
    i += sep;
    start = i;
  }
  parts.push(cmd.slice(start));
  return parts;
}

/**
 * The files a bash command reads, for trajectories without `<explore_context>`: per `&&`/`||`/`;` part,
 * the first of `nl … | sed -n 'a,bp'`, `sed -n 'a,bp' file`, `head -n N file`, `cat file`, `grep … file`
 * that matches. Commands that write (`sed -i`, `echo`, `rm`, `git add`, …) read nothing.
 */
export function viewsOfCommand(cmd: string): View[] {
  if (['sed -i', 'echo ', 'mkdir', 'rm ', 'git add', 'git commit'].some((k) => cmd.includes(k))) return [];
  const views: View[] = [];
  const take = (file: string, lines?: [number, number]) => {
    let f = stripChars(file, `'"`);
    if (f.startsWith('/testbed/')) f = f.slice('/testbed/'.length);
    if (SOURCE_EXTENSIONS.some((ext) => f.endsWith(ext)))
      views.push(lines ? { file: f, lines } : { file: f });
  };
  for (const chunk of commandParts(cmd)) {
    const c = chunk.trim();
    if (!c) continue;
    let m = view('nl').exec(c);
    if (m) {
      take(m[1]!, [Number(m[2]), Number(m[3])]);
      continue;
    }
    m = view('sed').exec(c);
    if (m) {
      take(m[3]!, [Number(m[1]), Number(m[2])]);
      continue;
    }
    m = view('head').exec(c);
    if (m) {
      take(m[2]!, [1, Number(m[1])]);
      continue;
    }
    m = view('cat').exec(c);
    if (m) {
      take(m[1]!);
      continue;
    }
    m = view('grep').exec(c);
    if (m) take(m[1]!);
  }
  const seen = new Set<string>();
  return views.filter((v) => {
    const key = JSON.stringify([v.file, v.lines]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
