import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { FakeGitHub } from './fake-github.js';
import { REPO } from './tmp.js';

/** A zip as actions/upload-artifact makes it: the report at the root. */
export function reportZip(text: string | Uint8Array, name = 'groundgate-report.json'): Uint8Array {
  return zipSync({ [name]: typeof text === 'string' ? strToU8(text) : text });
}

export const sha = (c: string) => c.repeat(40).slice(0, 40);

/** A completed run of acme/rag (or of a fork), and optionally its report artifact. */
export function addRun(
  gh: FakeGitHub,
  run: {
    id: number;
    commit: string;
    branch?: string;
    event?: string;
    conclusion?: string;
    committedAt?: string;
    fork?: string;
    zip?: Uint8Array;
    artifactName?: string;
    expired?: boolean;
    workflow?: string;
  },
): void {
  const repo = run.fork ?? 'acme/rag';
  gh.runs.push({
    id: run.id,
    head_sha: run.commit,
    head_branch: run.branch ?? 'main',
    event: run.event ?? 'push',
    status: 'completed',
    conclusion: run.conclusion ?? 'success',
    head_commit: { id: run.commit, timestamp: run.committedAt ?? '2026-11-20T08:00:00Z' },
    path: run.workflow ?? '.github/workflows/groundgate.yml',
    head_repository: { full_name: repo, owner: { login: repo.split('/')[0]! } },
  });
  if (run.zip)
    gh.artifacts.push({
      id: run.id * 10,
      name: run.artifactName ?? 'groundgate-report',
      run: run.id,
      zip: run.zip,
      expired: run.expired,
      created_at: run.committedAt ?? '2026-11-20T08:05:00Z',
    });
}

/** The event of a pull request from `acme/rag:feature` (or a fork) onto main at `base`. */
export function pullRequestEvent(ws: string, base: string, fork?: string): void {
  writeFileSync(
    path.join(ws, 'event.json'),
    JSON.stringify({
      pull_request: {
        number: 7,
        head: { sha: sha('e'), ref: 'feature', repo: { full_name: fork ?? 'acme/rag' } },
        base: { sha: base, ref: 'main' },
      },
      repository: { full_name: 'acme/rag', default_branch: 'main' },
    }),
  );
}

/** The bundled CLI as an async process: a fake API in this process must keep answering while it runs. */
export function runCliAsync(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO, 'dist', 'cli', 'index.js'), ...args],
      { cwd, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, timeout: 60_000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) =>
        resolve({ status: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

export function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}
