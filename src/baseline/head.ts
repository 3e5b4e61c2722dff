import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const SHA = /^[0-9a-f]{40}$/;

/**
 * The commit a baseline is made at: GITHUB_SHA in a workflow, else HEAD as git would resolve it, read from
 * the repository's files (.git/HEAD, the ref it names, packed-refs; a worktree's .git file and commondir
 * followed) without running git. Null outside a repository or for a HEAD it cannot resolve.
 */
export function headCommit(dir: string, env: NodeJS.ProcessEnv): string | null {
  const fromEnv = env.GITHUB_SHA?.toLowerCase();
  if (fromEnv && SHA.test(fromEnv)) return fromEnv;
  const gitDir = findGitDir(path.resolve(dir));
  return gitDir ? resolveHead(gitDir) : null;
}

function findGitDir(dir: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return dotGit;
    if (stat?.isFile()) {
      // A worktree or submodule: "gitdir: <path>", relative to where the file is.
      const m = /^gitdir: (.+)$/m.exec(readOrEmpty(dotGit));
      return m ? path.resolve(at, m[1]!.trim()) : undefined;
    }
    if (path.dirname(at) === at) return undefined;
  }
}

function resolveHead(gitDir: string): string | null {
  const head = readOrEmpty(path.join(gitDir, 'HEAD')).trim();
  if (SHA.test(head)) return head;
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
  if (!ref) return null;
  // A linked worktree keeps its HEAD; branches live in the common directory.
  const common = readOrEmpty(path.join(gitDir, 'commondir')).trim();
  const dirs = [gitDir, ...(common ? [path.resolve(gitDir, common)] : [])];
  for (const d of dirs) {
    const loose = readOrEmpty(path.join(d, ref)).trim();
    if (SHA.test(loose)) return loose;
  }
  for (const d of dirs) {
    for (const line of readOrEmpty(path.join(d, 'packed-refs')).split('\n')) {
      const [sha, name] = line.trim().split(' ');
      if (name === ref && sha && SHA.test(sha)) return sha;
    }
  }
  return null;
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
