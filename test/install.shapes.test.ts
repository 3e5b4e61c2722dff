import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  // Each shape's folder gets its own copy of the installed package, as a project installs it, so that the
  // docs the outputs name are where they say, beside the project's files.
  const pkg = path.join(project, 'node_modules', 'groundgate');
  installed = (cwd, args) => {
    const own = path.join(cwd, 'node_modules', 'groundgate');
    if (!existsSync(own)) cpSync(pkg, own, { recursive: true });
    return sh(cwd, process.execPath, [path.join(own, 'dist', 'cli', 'index.js'), ...args]);
  };
}, 120_000);

describe('data as real tools write it, read by the packed tarball', () => {
  it('has the shapes #55 names', () => {
    expect(shapes).toEqual([
      'deepeval',
      'genai-otlp',
      'llamaindex-dataset',
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
      const { dir, init, check } = expectSameAsCanonical(shape, installed);
      // Every doc the outputs name is there, from the project's folder (#55 point 4).
      const outputs = [init.stdout, readFileSync(path.join(dir, 'gates.yaml'), 'utf8'), check.stdout];
      const docs = [...new Set(outputs.join('\n').match(/[\w./-]*\bdocs\/[\w.-]+\.md/g))];
      for (const doc of docs) expect(existsSync(path.join(dir, doc)), doc).toBe(true);
      expect(outputs.join('\n')).not.toContain("groundgate's docs/");
    },
    60_000,
  );
});
