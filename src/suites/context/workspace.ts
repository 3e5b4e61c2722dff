import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../io/confine.js';
import { candidatePaths } from './paths.js';

/** The files of one instance's repository at its commit: a checkout on disk, or a commit of a git repository. */
export interface Workspace {
  /** Whether a repository-relative path names a file (not a folder, not outside the repository). */
  isFile(rel: string): boolean;
  /** The file's bytes, or undefined when it is not a file of the repository. */
  read(rel: string): Uint8Array | undefined;
}

/**
 * The repository file a predicted path means: the longest suffix of it that is a file of the repository
 * (the evaluator's rule), or undefined when none is.
 */
export function resolvePredictedPath(workspace: Workspace, predicted: string): string | undefined {
  return candidatePaths(predicted).find((candidate) => workspace.isFile(candidate));
}

/** A checked-out folder. Paths that leave it (`..`, symbolic links pointing out) are not its files. */
export class DirectoryWorkspace implements Workspace {
  private readonly root: string;
  private readonly known = new Map<string, string | undefined>();

  constructor(dir: string) {
    this.root = realpathSync(dir);
  }

  isFile(rel: string): boolean {
    return this.locate(rel) !== undefined;
  }

  read(rel: string): Uint8Array | undefined {
    const file = this.locate(rel);
    return file === undefined ? undefined : readFileSync(file);
  }

  private locate(rel: string): string | undefined {
    if (this.known.has(rel)) return this.known.get(rel);
    let found: string | undefined;
    if (rel !== '' && !path.isAbsolute(rel)) {
      try {
        const real = realpathSync(path.join(this.root, rel));
        if (real !== this.root && isInside(this.root, real) && statSync(real).isFile()) found = real;
      } catch {
        found = undefined;
      }
    }
    this.known.set(rel, found);
    return found;
  }
}

/**
 * A commit of a local git repository (work tree or bare), read with `git ls-tree` and `git cat-file`.
 * Lazy fetching is switched off, so a partial clone never reaches the network for a missing blob.
 */
export class GitWorkspace implements Workspace {
  private readonly files: ReadonlySet<string>;

  private constructor(
    private readonly repo: string,
    private readonly commit: string,
  ) {
    const listing = git(repo, ['ls-tree', '-r', '-z', '--name-only', `${commit}^{commit}`]);
    this.files = new Set(listing.toString('utf8').split('\0').filter(Boolean));
  }

  /** The commit's tree, or undefined when the repository does not have that commit. */
  static open(repo: string, commit: string): GitWorkspace | undefined {
    if (!/^[0-9a-fA-F]{4,64}$/.test(commit)) return undefined;
    try {
      return new GitWorkspace(repo, commit);
    } catch {
      return undefined;
    }
  }

  isFile(rel: string): boolean {
    return this.files.has(rel);
  }

  read(rel: string): Uint8Array | undefined {
    if (!this.files.has(rel)) return undefined;
    try {
      return git(this.repo, ['cat-file', 'blob', `${this.commit}:${rel}`]);
    } catch {
      return undefined;
    }
  }
}

function git(repo: string, args: readonly string[]): Buffer {
  // Loaded on first use: node:child_process brings net and dgram with it, which a run without git does not
  // need at start-up.
  const { execFileSync } = process.getBuiltinModule('node:child_process');
  return execFileSync('git', ['-C', repo, '-c', 'protocol.allow=never', ...args], {
    env: { ...process.env, GIT_NO_LAZY_FETCH: '1', GIT_TERMINAL_PROMPT: '0' },
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}
