import path from 'node:path';

/** A place in a user's file: 1-based line and column. */
export interface Where {
  file: string;
  line?: number;
  column?: number;
}

/**
 * A problem with the user's input (config, gold, traces, flags). The CLI prints `format()` as one line and
 * exits 2; nothing else about it (stack, cause) is shown, because the fix is in the user's file, not here.
 */
export class InputError extends Error {
  readonly detail: string;

  constructor(
    readonly where: Where | undefined,
    detail: string,
  ) {
    // One line, whatever a library's message or the user's data put into it.
    const line = detail.replace(/\r\n|\r|\n/g, ' ↵ ');
    super(where ? `${formatWhere(where)}: ${line}` : line);
    this.detail = line;
    this.name = 'InputError';
  }
}

/** A bad command line: printed with a hint to `--help`, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What a file's records are numbered by: a Parquet file's are rows, numbered as lines are. */
export const recordWord = (file: string): 'row' | 'line' => (/\.parquet$/i.test(file) ? 'row' : 'line');

export function formatWhere(where: Where): string {
  let s = displayPath(where.file);
  if (where.line !== undefined && recordWord(where.file) === 'row') return `${s} row ${where.line}`;
  if (where.line !== undefined) s += `:${where.line}`;
  if (where.line !== undefined && where.column !== undefined) s += `:${where.column}`;
  return s;
}

/** Paths in messages and reports are relative to the working directory when inside it, with `/` separators. */
export function displayPath(file: string, base = process.cwd()): string {
  const rel = path.relative(base, file);
  const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  return shown.split(path.sep).join('/');
}

/**
 * Two digests (hex) as an error shows them: their first 12 characters, or as many as it takes to tell them
 * apart and 4 more. Fixed prefixes printed `gold 0aa1d6ccfc3b…; expected 0aa1d6ccfc3b…` for digests that
 * differ further on.
 */
export function digestsApart(a: string | undefined, b: string | undefined): [string, string] {
  const x = a ?? 'none';
  const y = b ?? 'none';
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const n = Math.max(12, i + 4);
  const cut = (s: string) => (s.length > n ? `${s.slice(0, n)}…` : s);
  return [cut(x), cut(y)];
}

/** Keeps untrusted values short inside one-line error messages. */
export function preview(value: unknown, max = 40): string {
  const s = previewJson(value, max);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * JSON.stringify's text of a value (String(value) where it has none), or at least its first `budget`
 * characters: a value 200,000 arrays deep, or of a million members, is never walked whole (JSON.stringify
 * overflowed the stack on the first).
 */
function previewJson(value: unknown, budget: number): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > budget ? value.slice(0, budget) : value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? String(value);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return previewJson(toJSON.call(value), budget);
  const absent = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length && s.length <= budget; i++)
      s += (i ? ',' : '') + (absent(value[i]) ? 'null' : previewJson(value[i], budget - s.length));
    return s + ']';
  }
  let s = '{';
  for (const k in value) {
    if (s.length > budget) break;
    const v = (value as Record<string, unknown>)[k];
    if (!Object.hasOwn(value, k) || absent(v)) continue;
    s += `${s.length > 1 ? ',' : ''}${JSON.stringify(k)}:${previewJson(v, budget - s.length)}`;
  }
  return s + '}';
}

/** An I/O error as an input error where it is the user's to fix; `what` is what the file should be. */
export function ioError(file: string, err: unknown, what = 'a JSON Lines file'): unknown {
  if (err instanceof InputError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return new InputError({ file }, 'file not found');
  if (code === 'EISDIR') return new InputError({ file }, `is a directory; expected ${what}`);
  if (code === 'EACCES') return new InputError({ file }, 'permission denied');
  return err;
}
