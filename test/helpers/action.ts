import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { qaOnlyGates, REPO, tmpTree } from './tmp.js';

export const TOKEN = 'ghs_testtoken1234567890SECRET';

export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** Wall time of the process, in milliseconds. */
  ms: number;
}

/** A workspace like a checkout of this repo: gates.yaml, gold/, runs/ (only the qa suite's inputs). */
export function workspace(): string {
  const dir = tmpTree({});
  for (const p of ['gold', 'runs']) cpSync(path.join(REPO, p), path.join(dir, p), { recursive: true });
  writeFileSync(path.join(dir, 'gates.yaml'), qaOnlyGates());
  writeFileSync(
    path.join(dir, 'event.json'),
    JSON.stringify({ pull_request: { number: 7, head: { sha: 'abc123' } } }),
  );
  return dir;
}

export function parseOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^(.+?)<<(ghadelimiter_[\w-]+)\n([\s\S]*?)\n\2$/gm;
  for (const m of readFileSync(file, 'utf8').matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}

export function runAction(
  ws: string,
  api: string,
  inputs: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<ActionRun> {
  writeFileSync(path.join(ws, 'out.txt'), '');
  writeFileSync(path.join(ws, 'summary.md'), '');
  const inputEnv = Object.fromEntries(
    Object.entries({ 'github-token': TOKEN, ...inputs }).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]),
  );
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO, 'dist', 'index.js')],
      {
        cwd: ws,
        // A hung Action fails its test instead of hanging the suite.
        timeout: 120_000,
        killSignal: 'SIGKILL',
        env: {
          PATH: process.env.PATH,
          GITHUB_WORKSPACE: ws,
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: path.join(ws, 'event.json'),
          GITHUB_REPOSITORY: 'acme/rag',
          GITHUB_API_URL: api,
          GITHUB_SERVER_URL: 'https://github.example',
          GITHUB_RUN_ID: '42',
          GITHUB_OUTPUT: path.join(ws, 'out.txt'),
          GITHUB_STEP_SUMMARY: path.join(ws, 'summary.md'),
          ...inputEnv,
          ...env,
        },
      },
      (err, stdout, stderr) => {
        resolve({
          code: err ? ((err as { code?: number }).code ?? -1) : 0,
          stdout,
          stderr,
          outputs: parseOutputs(path.join(ws, 'out.txt')),
          summary: readFileSync(path.join(ws, 'summary.md'), 'utf8'),
          ms: Date.now() - started,
        });
      },
    );
  });
}

export const regress = (ws: string) =>
  cpSync(path.join(ws, 'runs/qa-regressed.trace.jsonl'), path.join(ws, 'runs/qa.trace.jsonl'));
