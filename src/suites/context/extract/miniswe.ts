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
      const m = /```bash\s*\r?\n([\s\S]*?)\r?\n```/.exec(str(msg.content));
      if (!m) continue;
      const cmd = m[1]!.trim();
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

function tagBlocks(text: string, tag: string): string[] {
  const re = new RegExp(`<${tag}>\\s*([\\s\\S]*?)\\s*</${tag}>`, 'g');
  return [...text.matchAll(re)].map((m) => m[1]!);
}

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

/**
 * The files a bash command reads, for trajectories without `<explore_context>`: per `&&`/`||`/`;` part,
 * the first of `nl … | sed -n 'a,bp'`, `sed -n 'a,bp' file`, `head -n N file`, `cat file`, `grep … file`
 * that matches. Commands that write (`sed -i`, `echo`, `rm`, `git add`, …) read nothing.
 */
function viewsOfCommand(cmd: string): View[] {
  if (['sed -i', 'echo ', 'mkdir', 'rm ', 'git add', 'git commit'].some((k) => cmd.includes(k))) return [];
  const views: View[] = [];
  const take = (file: string, lines?: [number, number]) => {
    let f = stripChars(file, `'"`);
    if (f.startsWith('/testbed/')) f = f.slice('/testbed/'.length);
    if (SOURCE_EXTENSIONS.some((ext) => f.endsWith(ext)))
      views.push(lines ? { file: f, lines } : { file: f });
  };
  for (const chunk of cmd.split(/\s*(?:&&|\|\||;)\s*/)) {
    const c = chunk.trim();
    if (!c) continue;
    let m = /nl\s+[^|]+\s+([^\s|]+)\s*\|\s*sed\s+-n\s+['"]?(\d+),(\d+)p/.exec(c);
    if (m) {
      take(m[1]!, [Number(m[2]), Number(m[3])]);
      continue;
    }
    m = /sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s&|>;<]+)/.exec(c);
    if (m) {
      take(m[3]!, [Number(m[1]), Number(m[2])]);
      continue;
    }
    m = /\bhead\s+-n\s+(\d+)\s+([^\s&|>]+)/.exec(c);
    if (m) {
      take(m[2]!, [1, Number(m[1])]);
      continue;
    }
    m = /\bcat\s+([^\s&|>]+)/.exec(c);
    if (m) {
      take(m[1]!);
      continue;
    }
    m =
      /\bgrep\s+.*?\s+([^\s&|>]+\.(?:py|js|java|go|rs|c|cpp|h|hpp|ts|tsx|jsx|rb|php|cs|kt|scala|swift))\b/.exec(
        c,
      );
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
