// Builds the committed bundles: dist/index.js (the Action), dist/cli/index.js (the `groundgate` bin) and
// dist/qa-worker/index.js (the thread that judges a share of a large grounded-qa trace set).
// tsc compiles src/ to lib/, then ncc bundles and minifies the JS with its dependencies (dist/ stays small
// and starts fast), always with source maps: the entry points enable them, so a stack trace points at src/.
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import remapping from '@ampproject/remapping';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { minify } from 'terser';
import { eagerFactories } from './eager-factories.mjs';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
/** `run` without waiting: settles when the child exits, rejected unless it exits 0. */
const start = (cmd, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')}: exit ${code ?? signal}`)),
    );
  });
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
  '--minify',
  '--source-map',
  '--no-source-map-register',
  '--quiet',
  '--target',
  'es2022',
];
// Before it writes a bundle ncc deletes every .js file under its output folder, dist/cli/ and dist/qa-worker/
// among them for the Action's: that one goes first, then the other two at once.
if (existsSync('lib/action/index.js')) run(process.execPath, [...ncc, 'lib/action/index.js', '-o', 'dist']);
await Promise.all([
  start(process.execPath, [...ncc, 'lib/cli/index.js', '-o', 'dist/cli']),
  start(process.execPath, [...ncc, 'lib/grounded-answer/pipeline/worker.js', '-o', 'dist/qa-worker']),
]);

// ncc minifies a bundle's main file but not the chunks split off by a dynamic import(): Octokit's (the
// pull-request comment), with undici in it, came out at 1.2 MB of plain code. They get the same treatment.
for (const rel of readdirSync('dist', { recursive: true, encoding: 'utf8' })) {
  if (!/(^|\/)\d+\.index\.js$/.test(rel)) continue;
  const chunk = path.join('dist', rel);
  const result = await minify(readFileSync(chunk, 'utf8'), {
    module: true,
    compress: false,
    mangle: { keep_classnames: true, keep_fnames: true },
    sourceMap: { content: readFileSync(`${chunk}.map`, 'utf8'), url: `${path.basename(chunk)}.map` },
  });
  writeFileSync(chunk, result.code);
  writeFileSync(`${chunk}.map`, result.map);
}

// ncc's maps point into lib/ (tsc output, not committed); compose them with tsc's maps so that every
// position maps to src/*.ts, whose text the maps carry (inlineSources). ncc names each source "../" + its
// path from the project root, whichever folder the bundle is in.
const fromRoot = (source) => path.resolve(source.replace(/^\.\.\//, ''));
const bundles = readdirSync('dist', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.js') && existsSync(path.join('dist', `${f}.map`)))
  .map((f) => path.join('dist', f));
for (const bundle of bundles) {
  const mapFile = `${bundle}.map`;
  const bundleDir = path.dirname(bundle);
  const code = readFileSync(bundle, 'utf8');
  const nccMap = JSON.parse(readFileSync(mapFile, 'utf8'));
  // With --minify, ncc prepends the bin's shebang line without shifting the map (it does when not
  // minifying): every position would map one line off.
  if (code.startsWith('#!') && !nccMap.mappings.startsWith(';')) nccMap.mappings = `;${nccMap.mappings}`;
  const eager = eagerFactories(code, path.basename(bundle));
  writeFileSync(bundle, eager.code);
  const composed = remapping([eager.map.toString(), nccMap], (source, ctx) => {
    if (ctx.importer) return null; // tsc's own sources: src/*.ts, the end of the chain
    const js = fromRoot(source);
    return js.startsWith(path.resolve('lib') + path.sep) && existsSync(`${js}.map`)
      ? fromLineStart(JSON.parse(readFileSync(`${js}.map`, 'utf8')))
      : null;
  });
  // Sources named as seen from the bundle, so a reader of dist/ finds them.
  composed.sources = composed.sources.map(
    (s) =>
      s &&
      path
        .relative(bundleDir, path.resolve(s.startsWith('../') ? fromRoot(s) : s))
        .split(path.sep)
        .join('/'),
  );
  writeFileSync(mapFile, JSON.stringify(composed));
}

/**
 * tsc's map with each line's first mapping also at column 0. ncc maps its bundle to lib/ by line, always at
 * column 0, where tsc's map has nothing when the line is indented: composing the two kept only the mappings
 * of unindented lines, so a stack frame pointed at the enclosing function's first line.
 */
function fromLineStart(map) {
  const lines = decode(map.mappings).map((segments) =>
    segments.length > 0 && segments[0][0] > 0 ? [[0, ...segments[0].slice(1)], ...segments] : segments,
  );
  return { ...map, mappings: encode(lines) };
}

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
