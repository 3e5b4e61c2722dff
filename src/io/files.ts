import { statSync } from 'node:fs';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { InputError, type Where } from '../errors.js';
import { confine, type PathScope } from './confine.js';

/**
 * Resolves one input path of a suite: a plain path or a glob (`runs/shard-*\/trace.jsonl`), relative to
 * `baseDir`. Files come back absolute and in sorted order, so shards are always read the same way. Each
 * must resolve inside `scope` (see confine); a glob does not follow symbolic links, and its fixed part
 * must lie inside the scope before anything is listed.
 */
export async function resolveInput(
  spec: string,
  baseDir: string,
  where: Where,
  scope: PathScope,
  label = '',
): Promise<string[]> {
  const normalized = spec.split(path.sep).join('/');
  if (isDynamicPattern(normalized)) {
    const segments = normalized.split('/');
    const fixed = segments
      .slice(
        0,
        segments.findIndex((s) => isDynamicPattern(s)),
      )
      .join('/');
    confine(path.resolve(baseDir, fixed || '.'), scope, spec, where, label);
    const files = await glob(normalized, {
      cwd: baseDir,
      absolute: true,
      onlyFiles: true,
      dot: false,
      followSymbolicLinks: false,
    });
    if (files.length === 0) throw new InputError(where, `no file matches ${JSON.stringify(spec)}`);
    return files
      .map((f) => confine(path.resolve(f), scope, path.relative(baseDir, f), where, label))
      .sort(compareCodeUnits);
  }
  const file = confine(path.resolve(baseDir, spec), scope, spec, where, label);
  let stat;
  try {
    stat = statSync(file);
  } catch {
    throw new InputError(where, `file not found: ${JSON.stringify(spec)} (resolved to ${file})`);
  }
  if (!stat.isFile()) throw new InputError(where, `${JSON.stringify(spec)} is not a file`);
  return [file];
}

/** Locale-independent ordering: the same on every machine. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
