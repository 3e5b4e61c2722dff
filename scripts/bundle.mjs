// Builds the two committed bundles: dist/index.js (the Action) and dist/cli/index.js (the `groundgate` bin).
// tsc compiles src/ to lib/, then ncc bundles the JS with its dependencies, with source maps so a user's
// stack trace points at real lines.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
rmSync('lib', { recursive: true, force: true });
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
// tsc does not emit plain CommonJS sources (src/**/*.cjs, e.g. the web-tree-sitter shim): copy them.
const sources = readdirSync('src', { recursive: true, encoding: 'utf8' });
for (const rel of sources.filter((f) => f.endsWith('.cjs'))) {
  mkdirSync(path.dirname(path.join('lib', rel)), { recursive: true });
  copyFileSync(path.join('src', rel), path.join('lib', rel));
}
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

// The context suite's tree-sitter runtime and grammars, loaded at run time from dist/wasm/ (next to
// dist/index.js, one folder up from dist/cli/index.js).
const require = createRequire(import.meta.url);
const WASM = [
  'web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-python/tree-sitter-python.wasm',
  'tree-sitter-javascript/tree-sitter-javascript.wasm',
  'tree-sitter-typescript/tree-sitter-typescript.wasm',
  'tree-sitter-typescript/tree-sitter-tsx.wasm',
  'tree-sitter-java/tree-sitter-java.wasm',
  'tree-sitter-go/tree-sitter-go.wasm',
  'tree-sitter-rust/tree-sitter-rust.wasm',
  'tree-sitter-c/tree-sitter-c.wasm',
  'tree-sitter-cpp/tree-sitter-cpp.wasm',
];
mkdirSync('dist/wasm', { recursive: true });
for (const file of WASM) copyFileSync(require.resolve(file), path.join('dist/wasm', path.basename(file)));
