import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSameAsCanonical, SHAPES, type Cli } from './helpers/shapes.js';
import { REPO, tmpDir } from './helpers/tmp.js';

// #55's test: data as each tool writes it, `init --yes` by the packed tarball (no hand edit), and a check that
// scores it exactly as the same items in canonical form. The tarball is packed and installed once; each shape
// runs in its own copy of its files with the installed bin.

const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NO_COLOR: '1',
  npm_config_cache: mkdtempSync(path.join(tmpdir(), 'groundgate-npm-cache-')),
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
const sh = (cwd: string, cmd: string, args: readonly string[]) => {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

const shapes = existsSync(SHAPES)
  ? readdirSync(SHAPES, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(path.join(SHAPES, e.name, 'canonical')))
      .map((e) => e.name)
      .sort()
  : [];

let installed: Cli;
beforeAll(() => {
  const packDir = tmpDir('groundgate-pack-');
  const pack = sh(REPO, 'npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir]);
  expect(pack.status).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as { filename: string }[];
  const project = tmpDir('groundgate-shapes-project-');
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'shapes', version: '1.0.0', private: true }),
  );
  const install = sh(project, 'npm', [
    'install',
    '--offline',
    '--save-dev',
    path.join(packDir, packed!.filename),
  ]);
  expect(install.status, install.stderr).toBe(0);
  const bin = path.join(project, 'node_modules', '.bin', 'groundgate');
  installed = (cwd, args) => sh(cwd, bin, args);
}, 120_000);

describe('data as real tools write it, read by the packed tarball', () => {
  it('has the shapes #55 names', () => {
    expect(shapes).toEqual([
      'deepeval',
      'genai-otlp',
      'llamaindex-py',
      'llamaindex-ts',
      'openinference-otlp',
      'ragas',
      'timed-requests',
    ]);
  });
  it.each(shapes)(
    '%s: init --yes, then check scores it as its canonical form',
    (shape) => {
      expectSameAsCanonical(shape, installed);
    },
    60_000,
  );
});
