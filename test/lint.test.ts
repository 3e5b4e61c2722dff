import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/tmp.js';

const bin = (name: string) => path.join(REPO, 'node_modules', '.bin', name);

describe('house style', () => {
  it('passes eslint', () => {
    const r = spawnSync(bin('eslint'), ['.'], { cwd: REPO, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('passes prettier --check', () => {
    const r = spawnSync(bin('prettier'), ['--check', '.', '--log-level', 'warn'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it("leaves the Action's default report file to itself: prettier ignores it, git does not list it", () => {
    // The Action writes groundgate-report.json into the workspace; this project's own check then failed on it.
    const info = spawnSync(bin('prettier'), ['--file-info', 'groundgate-report.json'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(JSON.parse(info.stdout)).toEqual({ ignored: true, inferredParser: null });
    const git = spawnSync('git', ['check-ignore', '-q', 'groundgate-report.json'], { cwd: REPO });
    expect(git.status).toBe(0);
  });

  it('type-checks src and tests', () => {
    const r = spawnSync(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit'], { cwd: REPO, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
