import type { ToolCategory } from './contract.js';
import { looksLikeFile, normalizePath } from './paths.js';

/**
 * Tool name → category, the seed's table. Tools it does not name (TodoWrite, TaskOutput, WebFetch, other
 * MCP servers, …) are not retrieval events; they still count in `step_index`, the ordinal of the call.
 * Grep is listed under both file_search and code_search in the seed; like the reference normalizer it is
 * code_search (it searches contents).
 */
const LOCAL: Readonly<Record<string, ToolCategory>> = {
  Read: 'file_read',
  Glob: 'file_search',
  Grep: 'code_search',
  Write: 'file_write',
  Edit: 'file_write',
  MultiEdit: 'file_write',
  NotebookEdit: 'file_write',
  Bash: 'other',
  Task: 'other',
};

const MCP_PREFIX = 'mcp__sourcegraph__';

/** Sourcegraph MCP tools, named with or without their `sg_` prefix. */
const MCP: Readonly<Record<string, ToolCategory>> = {
  read_file: 'file_read',
  list_files: 'file_search',
  find_references: 'symbol_navigation',
  go_to_definition: 'symbol_navigation',
  keyword_search: 'code_search',
  nls_search: 'code_search',
  commit_search: 'commit_search',
  diff_search: 'commit_search',
  compare_revisions: 'commit_search',
  deepsearch: 'deep_search',
  deepsearch_read: 'deep_search',
  get_contributor_repos: 'other',
  list_repos: 'other',
};

export interface ToolClass {
  category: ToolCategory;
  isMcp: boolean;
}

/** The category of a tracked tool; undefined for a tool that is not a retrieval event. */
export function classifyTool(name: string): ToolClass | undefined {
  if (name.startsWith(MCP_PREFIX)) {
    const bare = mcpName(name);
    return { category: MCP[bare] ?? 'other', isMcp: true };
  }
  const category = LOCAL[name];
  return category ? { category, isMcp: false } : undefined;
}

/** `mcp__sourcegraph__sg_read_file` → `read_file`. */
function mcpName(name: string): string {
  const bare = name.slice(MCP_PREFIX.length);
  return bare.startsWith('sg_') ? bare.slice(3) : bare;
}

/** Input keys that name a file the tool opens or writes. */
const FILE_KEYS = ['file_path', 'notebook_path', 'path', 'file'];

/**
 * Normalized files a call names in its input. Reads and writes name a file by definition; for searches
 * (`path` is usually a folder) and MCP tools only values that look like a file count.
 */
export function inputTargets(name: string, input: Readonly<Record<string, unknown>>): string[] {
  const tool = classifyTool(name);
  if (!tool || name === 'Bash' || name === 'Task') return [];
  const direct = tool.category === 'file_write' || name === 'Read' || mcpIs(name, 'read_file');
  const out: string[] = [];
  for (const key of FILE_KEYS) {
    const value = input[key];
    if (typeof value !== 'string') continue;
    const p = normalizePath(value);
    if (p !== '' && (direct || looksLikeFile(p))) out.push(p);
  }
  return out;
}

function mcpIs(name: string, bare: string): boolean {
  return name.startsWith(MCP_PREFIX) && mcpName(name) === bare;
}

const PATH_FIELD = /"path"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
/** Grep's `path:12:text` (content) and `path:3` (count) lines. */
const GREP_MATCH = /^(.+?):\d+(?::|$)/;

/** A Grep context line, `path-12-text`: the first `-N-` after which the prefix is a file (paths have dashes too). */
function grepContextPath(line: string): string | undefined {
  for (const m of line.matchAll(/-\d+-/g)) {
    const p = normalizePath(line.slice(0, m.index));
    if (looksLikeFile(p)) return p;
  }
  return undefined;
}

/** Whether a tool's output names target files (and so is worth keeping while a trace is read). */
export function readsResults(name: string): boolean {
  return name.startsWith(MCP_PREFIX) || name === 'Glob' || name === 'Grep';
}

/**
 * Normalized files a tool's output names: Glob lists one path a line; Grep lists paths, or prefixes its
 * content and count lines with them; Sourcegraph MCP results carry JSON `"path"` fields. Other tools'
 * output (a Read's file content, Bash output) names no target.
 */
export function resultTargets(name: string, content: string): string[] {
  const out: string[] = [];
  const add = (raw: string) => {
    const p = normalizePath(raw);
    if (looksLikeFile(p)) out.push(p);
  };
  if (name.startsWith(MCP_PREFIX)) {
    for (const m of content.matchAll(PATH_FIELD)) add(unescapeJsonString(m[1]!));
  } else if (name === 'Glob' || name === 'Grep') {
    for (const line of content.split(/\r?\n/)) {
      const text = line.trim();
      if (text === '') continue;
      const p = normalizePath(text);
      if (looksLikeFile(p)) out.push(p);
      else if (name === 'Grep') {
        const m = GREP_MATCH.exec(text);
        const context = m ? normalizePath(m[1]!) : grepContextPath(text);
        if (context !== undefined && looksLikeFile(context)) out.push(context);
      }
    }
  }
  return out;
}

function unescapeJsonString(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

/** Symbols a symbol-navigation call asks about. */
export function inputSymbols(name: string, input: Readonly<Record<string, unknown>>): string[] {
  if (classifyTool(name)?.category !== 'symbol_navigation') return [];
  const symbol = input.symbol;
  return typeof symbol === 'string' && symbol !== '' ? [symbol] : [];
}

/** Input keys worth keeping in `arguments`: what was looked for and where, never file contents. */
const SALIENT = [
  'file_path',
  'notebook_path',
  'path',
  'file',
  'repo',
  'repos',
  'pattern',
  'glob',
  'type',
  'output_mode',
  'query',
  'symbol',
  'command',
  'description',
  'subagent_type',
  'question',
  'identifier',
  'base',
  'head',
  'offset',
  'limit',
  'startLine',
  'endLine',
];
const MAX_ARGUMENT = 500;

/** The salient arguments of a call, long strings cut (a heredoc in a Bash command can be megabytes). */
export function salientArguments(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SALIENT) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') {
      out[key] = value.length > MAX_ARGUMENT ? `${value.slice(0, MAX_ARGUMENT - 1)}…` : value;
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      out[key] = value;
    } else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      out[key] = value;
    }
  }
  return out;
}
