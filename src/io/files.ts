import { realpath, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { glob, isDynamicPattern, type FileSystemAdapter } from 'tinyglobby';
import { InputError, type Where } from '../errors.js';
import { confine, isInside, labelled, refuseNul, type PathScope } from './confine.js';

/**
 * Resolves one input path of a suite: a plain path or a glob (`runs/shard-*\/trace.jsonl`), relative to
 * `baseDir`. Files come back absolute and in sorted order, so shards are always read the same way. Each
 * must resolve inside `scope` (see confine); a glob follows links only while they stay inside it, and its
 * fixed part must lie inside the scope before anything is listed.
 */
export async function resolveInput(
  spec: string,
  baseDir: string,
  where: Where,
  scope: PathScope,
  label = '',
): Promise<string[]> {
  refuseNul(spec, spec, where, label);
  const normalized = spec.split(path.sep).join('/');
  if (isDynamicPattern(normalized)) {
    // The fixed part: whole folders before the first character that can be a wildcard.
    const cut = normalized.lastIndexOf('/', normalized.search(/[*?[\]{}()!+@]/)) + 1;
    confine(path.resolve(baseDir, normalized.slice(0, cut) || '.'), scope, spec, where, label);
    // The fixed part is inside; a ".." or an absolute path among the pattern's alternatives would send the
    // listing itself elsewhere (`{/,x}/**` walks the whole disk), so they are refused before it starts.
    const rest = normalized.slice(cut);
    if (/(^|[/{,(|])\.\.($|[/},)|])|[{,(|]\//.test(rest)) {
      throw new InputError(
        where,
        `${labelled(label)}glob ${JSON.stringify(spec)} climbs out of its fixed folder after a wildcard; expected ".." and absolute paths only before the first wildcard`,
      );
    }
    const outside: string[] = [];
    const files = await glob(normalized, {
      cwd: baseDir,
      absolute: true,
      onlyFiles: true,
      dot: false,
      // Links are followed, but one that leads out of the workspace is neither listed nor walked, so the
      // listing never leaves it (`runs/x -> /` under `runs/**`); one the pattern names is refused below.
      ...(scope.root === undefined ? {} : { fs: linksWithin(scope.root, outside) }),
    });
    const matches = outside.length > 0 ? picomatch(normalized, { dot: false }) : undefined;
    for (const link of outside) {
      const rel = path.relative(baseDir, link).split(path.sep).join('/');
      if (matches!(rel)) confine(link, scope, rel, where, label);
    }
    if (files.length === 0) throw new InputError(where, `no file matches ${JSON.stringify(spec)}`);
    return files
      .map((f) => confine(path.resolve(f), scope, path.relative(baseDir, f), where, label))
      .sort(compareCodeUnits);
  }
  const file = confine(path.resolve(baseDir, spec), scope, spec, where, label);
  if (!isRegularFile(file, where, JSON.stringify(spec)))
    throw new InputError(where, `file not found: ${JSON.stringify(spec)} (resolved to ${file})`);
  return [file];
}

/**
 * Whether `file` (links followed) is there: true for a regular file, false for none. Anything else is an
 * InputError at `where` naming it as `shown`: a FIFO would block the read until a writer comes, a device
 * may never end, a folder cannot be read as lines.
 */
export function isRegularFile(file: string, where: Where, shown: string): boolean {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch {
    return false;
  }
  if (!stat.isFile()) throw new InputError(where, `${shown} is not a file (${kindOf(stat)})`);
  return true;
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSocket()) return 'a socket';
  return stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : 'not a regular file';
}

/** The file system as the glob sees it: a link whose target is outside `root` fails to resolve (noted in `outside`). */
function linksWithin(root: string, outside: string[]): FileSystemAdapter {
  // Only the asynchronous realpath: glob() crawls with it (globSync would use realpathSync).
  return {
    realpath: ((file: string, done: (err: Error | null, real?: string) => void) =>
      realpath(file, (err, real) => {
        if (err) return done(err);
        if (isInside(root, real)) return done(null, real);
        outside.push(file);
        done(Object.assign(new Error(`${file} leads out of the workspace`), { code: 'EACCES' }));
      })) as FileSystemAdapter['realpath'],
  };
}

/** Locale-independent ordering: the same on every machine. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
