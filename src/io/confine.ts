import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { InputError, type Where } from '../errors.js';

/**
 * Where paths named by gates.yaml (and --input) may lead. gates.yaml, gold and traces can come from a
 * fork's pull request: a path such as `../../etc/passwd`, an absolute one or a symbolic link pointing out
 * would put a runner file's text into a public comment. So every path must resolve, symbolic links
 * followed, inside the workspace.
 */
export interface PathScope {
  /** The real path every input must resolve inside; undefined lets paths go anywhere (CLI only). */
  root?: string;
  /** The workspace as given, before links were resolved (for confineIfInside). */
  given?: string;
  /** How the root was chosen, for the error (e.g. "GITHUB_WORKSPACE"). */
  origin: string;
  /** What lifts the restriction, appended to the error (the CLI's flag); none in the Action. */
  hint?: string;
}

export const UNCONFINED: PathScope = { origin: '--allow-outside-workspace' };

/** A scope rooted at `dir` (made real, so that /tmp and /private/tmp are one place). */
export function scopeAt(dir: string, origin: string, hint?: string): PathScope {
  const given = path.resolve(dir);
  return { root: realOrAbsolute(given) ?? given, given, origin, ...(hint ? { hint } : {}) };
}

/**
 * The CLI's workspace for a config file: the git repository holding it; else the working directory when
 * the config is inside it; else the config's folder. Decided where the config is as written: a gates.yaml
 * that is a link out of the repository is then outside its workspace, refused before a byte of it is read,
 * where following the link made the link's target the workspace.
 */
export function cliScope(configFile: string, cwd = process.cwd()): PathScope {
  const hint = '; --allow-outside-workspace allows it';
  const configDir = path.dirname(path.resolve(cwd, configFile));
  for (let dir = configDir; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return scopeAt(dir, 'the git repository of the config', hint);
    if (path.dirname(dir) === dir) break;
  }
  const realCwd = realOrAbsolute(cwd) ?? path.resolve(cwd);
  if (isInside(realCwd, configDir)) return scopeAt(realCwd, 'the working directory', hint);
  return scopeAt(configDir, 'the folder of the config', hint);
}

/**
 * `file` (absolute) when it resolves inside the scope, symbolic links followed (for a file not yet written,
 * those of its nearest existing folder); else an input error at `where` that names the path as written and
 * never reads it.
 */
export function confine(file: string, scope: PathScope, written: string, where: Where, label = ''): string {
  refuseNul(file, written, where, label);
  if (scope.root === undefined) return file;
  const real = realOrAbsolute(file);
  if (real === undefined || !isInside(scope.root, real)) throw outside(scope, written, where, label);
  return file;
}

/**
 * For paths the trusted side names (the Action's inputs, the CLI's --report): they may point anywhere, but
 * one that is inside the workspace as written must not lead out through a link the pull request planted
 * (`groundgate-report.json -> ~/.bashrc` would turn writing the report into writing the runner's files).
 */
export function confineIfInside(
  file: string,
  scope: PathScope,
  written: string,
  where: Where,
  label = '',
): string {
  refuseNul(file, written, where, label);
  if (scope.root === undefined) return file;
  // Inside is decided on the path as written (a planted `reports -> /home` keeps `reports/x` inside).
  return writtenInside(scope, path.resolve(file)) ? confine(file, scope, written, where, label) : file;
}

/** Whether `abs`, as written (no link followed), is inside the workspace as given or as resolved (or it has none). */
export function writtenInside(scope: PathScope, abs: string): boolean {
  if (scope.root === undefined) return true;
  return isInside(scope.root, abs) || (scope.given !== undefined && isInside(scope.given, abs));
}

/** A NUL character ends a path in the system's calls: Node refuses it with a TypeError, here it is the user's. */
export function refuseNul(file: string, written: string, where: Where, label = ''): void {
  if (file.includes('\0')) {
    throw new InputError(
      where,
      `${labelled(label)}path ${JSON.stringify(written)} holds a NUL character; expected a file path`,
    );
  }
}

/**
 * A folder whose files a suite walks by itself: no symbolic link under it may lead out of the scope
 * (links that stay inside are followed, once each).
 */
export function confineTree(dir: string, scope: PathScope, written: string, where: Where, label = ''): void {
  const root = scope.root;
  if (root === undefined) return;
  confine(dir, scope, written, where, label);
  const seen = new Set<string>();
  const walk = (real: string, shown: string) => {
    if (seen.has(real)) return;
    seen.add(real);
    let entries;
    try {
      entries = readdirSync(real, { withFileTypes: true });
    } catch {
      return; // not a folder, or unreadable: the suite's own reading says so
    }
    for (const e of entries) {
      const child = `${shown}/${e.name}`;
      if (e.isSymbolicLink()) {
        const target = realOrAbsolute(path.join(real, e.name));
        if (target === undefined || !isInside(root, target))
          throw outside(scope, child, where, label, 'is a symbolic link that ');
        walk(target, child);
      } else if (e.isDirectory()) {
        walk(path.join(real, e.name), child);
      }
    }
  };
  walk(realOrAbsolute(dir)!, written.replace(/\/+$/, ''));
}

/** "suites.qa.gold: " before a message, or nothing without a label. */
export function labelled(label: string): string {
  return label ? `${label}: ` : '';
}

export function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * The real path of `file`; for a path that does not exist yet, that of its nearest existing folder joined
 * with the rest. Undefined for a dangling symbolic link: where a write through it would land is not known.
 */
export function realOrAbsolute(file: string): string | undefined {
  const abs = path.resolve(file);
  const rest: string[] = [];
  for (let p = abs; ; p = path.dirname(p)) {
    try {
      return path.join(realpathSync(p), ...rest);
    } catch {
      if (isLink(p)) return undefined;
      if (path.dirname(p) === p) return abs;
      rest.unshift(path.basename(p));
    }
  }
}

/** Whether `file` is a symbolic link; false for anything lstat cannot see (ENOENT, ENOTDIR, a name too long). */
function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function outside(scope: PathScope, written: string, where: Where, label: string, what = ''): InputError {
  return new InputError(
    where,
    `${labelled(label)}path ${JSON.stringify(written)} ${what}resolves outside the workspace ${scope.root} (${scope.origin}); expected a path inside it${scope.hint ?? ''}`,
  );
}
