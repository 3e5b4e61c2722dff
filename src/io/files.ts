import { statSync } from 'node:fs';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { InputError, type Where } from '../errors.js';

/**
 * Resolves one input path of a suite: a plain path or a glob (`runs/shard-*\/trace.jsonl`), relative to
 * `baseDir`. Files come back absolute and in sorted order, so shards are always read the same way.
 */
export async function resolveInput(spec: string, baseDir: string, where: Where): Promise<string[]> {
  const normalized = spec.split(path.sep).join('/');
  if (isDynamicPattern(normalized)) {
    const files = await glob(normalized, { cwd: baseDir, absolute: true, onlyFiles: true, dot: false });
    if (files.length === 0) throw new InputError(where, `no file matches ${JSON.stringify(spec)}`);
    return files.map((f) => path.resolve(f)).sort(compareCodeUnits);
  }
  const file = path.resolve(baseDir, spec);
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
