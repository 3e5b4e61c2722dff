// Builds the two committed bundles: dist/index.js (the Action) and dist/cli/index.js (the `groundgate` bin).
// tsc compiles src/ to lib/, then ncc bundles the JS with its dependencies, with source maps so a user's
// stack trace points at real lines.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
rmSync('lib', { recursive: true, force: true });
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
rmSync('dist', { recursive: true, force: true });
const ncc = [
  'node_modules/@vercel/ncc/dist/ncc/cli.js',
  'build',
  '--source-map',
  '--no-source-map-register',
  '--quiet',
  '--target',
  'es2022',
];
if (existsSync('lib/action/index.js')) run(process.execPath, [...ncc, 'lib/action/index.js', '-o', 'dist']);
run(process.execPath, [...ncc, 'lib/cli/index.js', '-o', 'dist/cli']);
