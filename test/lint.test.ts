import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck, type CheckName, type CheckOutcome } from './helpers/house-style.mjs';
import { REPO } from './helpers/tmp.js';

const bin = (name: string) => path.join(REPO, 'node_modules', '.bin', name);

/**
 * .ci/run runs the three checks before the tests, beside the bundle, and names the folder of their outcomes
 * in GROUNDGATE_LINT_RESULTS: the same commands on the same tree (the bundle writes only dist/ and lib/, which
 * all three leave out). Anywhere else each runs here, one at a time: all three at once on two cores slowed
 * the test file beside them to near its timeout.
 */
const RECORDED = process.env.GROUNDGATE_LINT_RESULTS;
const outcome = async (name: CheckName): Promise<CheckOutcome> =>
  RECORDED
    ? (JSON.parse(readFileSync(path.join(RECORDED, `${name}.json`), 'utf8')) as CheckOutcome)
    : runCheck(name);

describe('house style', () => {
  it('passes eslint', async () => {
    const r = await outcome('eslint');
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('passes prettier --check', async () => {
    const r = await outcome('prettier');
    expect(r.output).toBe('');
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

  it('type-checks src and tests', async () => {
    const r = await outcome('tsc');
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
