import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import TreeSitter from './tree-sitter-shim.cjs';

/** The languages groundgate extracts definitions from, each with its grammar's wasm file and package. */
export const GRAMMARS = {
  python: { wasm: 'tree-sitter-python.wasm', pkg: 'tree-sitter-python' },
  javascript: { wasm: 'tree-sitter-javascript.wasm', pkg: 'tree-sitter-javascript' },
  typescript: { wasm: 'tree-sitter-typescript.wasm', pkg: 'tree-sitter-typescript' },
  tsx: { wasm: 'tree-sitter-tsx.wasm', pkg: 'tree-sitter-typescript' },
  java: { wasm: 'tree-sitter-java.wasm', pkg: 'tree-sitter-java' },
  go: { wasm: 'tree-sitter-go.wasm', pkg: 'tree-sitter-go' },
  rust: { wasm: 'tree-sitter-rust.wasm', pkg: 'tree-sitter-rust' },
  c: { wasm: 'tree-sitter-c.wasm', pkg: 'tree-sitter-c' },
  cpp: { wasm: 'tree-sitter-cpp.wasm', pkg: 'tree-sitter-cpp' },
} as const;
export type Language = keyof typeof GRAMMARS;

const RUNTIME = { wasm: 'web-tree-sitter.wasm', pkg: 'web-tree-sitter' };

/**
 * Where a wasm file is. The bundles (dist/index.js, dist/cli/index.js) carry copies in dist/wasm/, next to
 * or one folder above them; from src/ or lib/ (tests, development) they come from the packages.
 */
export function wasmPath(file: { wasm: string; pkg: string }): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const dir of [path.join(here, 'wasm'), path.join(here, '..', 'wasm')]) {
    const candidate = path.join(dir, file.wasm);
    if (existsSync(candidate)) return candidate;
  }
  return createRequire(import.meta.url).resolve(`${file.pkg}/${file.wasm}`);
}

export type Parser = InstanceType<typeof TreeSitter.Parser>;
export type Tree = NonNullable<ReturnType<Parser['parse']>>;
export type SyntaxNode = Tree['rootNode'];

let runtime: Promise<void> | undefined;
const parsers = new Map<Language, Promise<Parser>>();

/** A parser for the language; the runtime and each grammar are loaded once, on first use. */
export function parserFor(language: Language): Promise<Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = (async () => {
      await initRuntime();
      const grammar = await TreeSitter.Language.load(readFileSync(wasmPath(GRAMMARS[language])));
      const p = new TreeSitter.Parser();
      p.setLanguage(grammar);
      return p;
    })();
    parsers.set(language, parser);
  }
  return parser;
}

function initRuntime(): Promise<void> {
  // Baseline (Liftoff) code only: the optimising tier's background compilation of the grammars costs a
  // short run more (about 70 ms of a 450 ms Action run, waited for at exit) than it saves a long one.
  // Node 20's V8 obeys --liftoff-only set at run time; Node 24's does not (its tier-up waits on a budget
  // of bytes executed, which this puts out of reach): without it, TurboFan compiling the grammars was 27%
  // of the Action's instructions on Node 24.
  if (!runtime) {
    const { setFlagsFromString } = process.getBuiltinModule('node:v8');
    setFlagsFromString('--liftoff-only');
    setFlagsFromString('--wasm-tiering-budget=2000000000');
  }
  // The Emscripten loader reads __dirname even when handed the wasm bytes; an ES module bundle has none.
  const g = globalThis as { __dirname?: string };
  g.__dirname ??= path.dirname(wasmPath(RUNTIME));
  runtime ??= TreeSitter.Parser.init({ wasmBinary: readFileSync(wasmPath(RUNTIME)) });
  return runtime;
}
