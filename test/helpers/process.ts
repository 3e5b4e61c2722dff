import { spawnSync } from 'node:child_process';
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
