import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './tmp.js';

export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled CLI (dist/cli/index.js) as a real process, the way users and CI do. */
export function runCli(args: readonly string[], cwd = REPO, env: NodeJS.ProcessEnv = {}): ProcessResult {
  const r = spawnSync(process.execPath, [path.join(REPO, 'dist', 'cli', 'index.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A check of `dir`'s gates.yaml on `threads` threads (GROUNDGATE_THREADS), its report written to
 * `<threads>.json`: what the thread-count comparisons read.
 */
export function checkOnThreads(
  dir: string,
  threads: string,
): { status: number | null; stderr: string; report: string } {
  const r = runCli(['--report', `${threads}.json`], dir, { GROUNDGATE_THREADS: threads });
  return {
    status: r.status,
    stderr: r.stderr,
    report: readFileSync(path.join(dir, `${threads}.json`), 'utf8'),
  };
}
