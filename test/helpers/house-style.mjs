// The house-style checks of test/lint.test.ts: eslint, prettier and tsc over the whole repository. Plain
// JavaScript so that .ci/run can run them with node before the tests, beside the bundle (which keeps one of
// CI's two cores busy, tsc and ncc being single-threaded): `node test/helpers/house-style.mjs DIR` writes
// each check's outcome to DIR/<name>.json, and the test, told DIR by GROUNDGATE_LINT_RESULTS, asserts on those.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(import.meta.dirname, '..', '..');

/** Each check: a bin of node_modules/.bin and its arguments, run from the repository's root. */
export const CHECKS = {
  eslint: ['eslint', '.'],
  prettier: ['prettier', '--check', '.', '--log-level', 'warn'],
  tsc: ['tsc', '-p', 'tsconfig.json', '--noEmit'],
};

/** Runs check `name`: its exit status and all it printed, stdout then stderr. */
export function runCheck(name) {
  const [bin, ...args] = CHECKS[name];
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(REPO, 'node_modules', '.bin', bin), args, { cwd: REPO });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output: stdout + stderr }));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node test/helpers/house-style.mjs DIR');
  // One after another: the other core is the bundle's.
  for (const name of Object.keys(CHECKS)) {
    writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(await runCheck(name)));
  }
}
