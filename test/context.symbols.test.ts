import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportSchema } from '../src/report/schema.js';
import { extractDefinitions, languageOf } from '../src/suites/context/symbols.js';
import { runCli } from './helpers/process.js';
import { FIXTURES, jsonl, tmpTree } from './helpers/tmp.js';

/** The samples are stored as `NAME.txt` so that linters and tsc leave them alone. */
const SOURCES = path.join(FIXTURES, 'contextbench', 'symbols');
const sample = (file: string) => readFileSync(path.join(SOURCES, `${file}.txt`));

/**
 * Every definition of each sample (kind, name, UTF-8 start, end exclusive). Names follow the evaluator's
 * heuristic, quirks included: a JavaScript arrow function is named after its first identifier (its
 * parameter), a Go type declaration after its best-ranked identifier (a field beats a type name), a Rust
 * impl after the first plain identifier inside it (its first method).
 */
const EXPECTED: Record<string, [string, string, number, number][]> = {
  'shapes.py': [
    ['class_definition', 'Shape', 12, 61],
    ['function_definition', 'area', 29, 61],
    ['function_definition', 'fetch', 64, 100],
    ['function_definition', 'wrapped', 114, 137],
  ],
  'counter.js': [
    ['function_declaration', 'add', 0, 38],
    ['class_declaration', 'Counter', 40, 94],
    ['method_definition', 'increment', 58, 92],
    ['arrow_function', 'x', 111, 123],
  ],
  'vec.ts': [
    ['interface_declaration', 'Point', 0, 32],
    ['function_declaration', 'dist', 34, 94],
    ['class_declaration', 'Vec', 96, 177],
    ['method_definition', 'norm', 136, 175],
  ],
  'hello.tsx': [
    ['interface_declaration', 'Props', 0, 35],
    ['function_declaration', 'Hello', 37, 103],
    ['class_declaration', 'Box', 105, 174],
    ['method_definition', 'render', 137, 172],
  ],
  'Hello.java': [
    ['interface_declaration', 'Greeter', 0, 50],
    ['method_declaration', 'greet', 22, 48],
    ['class_declaration', 'Hello', 52, 166],
    ['constructor_declaration', 'Hello', 87, 97],
    ['method_declaration', 'greet', 101, 164],
  ],
  'point.go': [
    ['type_declaration', 'X', 14, 42],
    ['method_declaration', 'Norm', 44, 85],
    ['function_declaration', 'main', 87, 102],
  ],
  'area.rs': [
    ['struct_item', 'Point', 0, 28],
    ['trait_item', 'Area', 30, 71],
    ['impl_item', 'area', 73, 145],
    ['function_item', 'area', 99, 143],
    ['function_item', 'main', 147, 159],
  ],
  'add.c': [
    ['struct_specifier', 'point', 0, 27],
    ['function_definition', 'add', 30, 80],
    ['function_definition', 'main', 82, 122],
  ],
  'geo.cpp': [
    ['class_specifier', 'Shape', 16, 84],
    ['function_definition', 'area', 41, 82],
    ['struct_specifier', 'Point', 87, 112],
    ['function_definition', 'geo_area', 135, 194],
    ['function_definition', 'size', 196, 235],
  ],
};

describe('definitions with tree-sitter (from src/)', () => {
  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`${file} (${languageOf(file)})`, async () => {
      const defs = await extractDefinitions(sample(file), languageOf(file)!);
      expect(defs.map((d) => [d.kind, d.name, d.start, d.end])).toEqual(expected);
    });
  }

  it('counts UTF-8 bytes, not UTF-16 code units', async () => {
    const bytes = new TextEncoder().encode('s = "日本"\n\ndef f():\n    return "é"\n');
    const [def] = await extractDefinitions(bytes, 'python');
    expect([def!.start, def!.end]).toEqual([14, 38]);
  });

  it('maps the extensions the evaluator maps, and only those', () => {
    expect(['a.PY', 'b.jsx', 'c.h', 'd.cc', 'e.hpp', 'f.tsx', 'g.cs', 'h.txt'].map(languageOf)).toEqual([
      'python',
      'javascript',
      'c',
      'cpp',
      'cpp',
      'tsx',
      undefined,
      undefined,
    ]);
  });
});

/*
 * The same samples through the bundled CLI (dist/, grammars from dist/wasm/): one suite per language, the
 * gold covering the whole file (every definition), the prediction naming some symbols. symbol.coverage is
 * then matched / all definitions, and symbol.precision's denominator the definitions the names select
 * (`Hello.greet` both greet methods, `area` in Rust the impl and the method, Go's `Point` nothing).
 */
const NAMED: Record<string, [string[], number]> = {
  'shapes.py': [['Shape.area', 'wrapped'], 2],
  'counter.js': [['Counter.increment', 'x'], 2],
  'vec.ts': [['Vec.norm'], 1],
  'hello.tsx': [['Hello'], 1],
  'Hello.java': [['Hello.greet'], 2],
  'point.go': [['Point', 'Norm'], 1],
  'area.rs': [['area'], 2],
  'add.c': [['add', 'point'], 2],
  'geo.cpp': [['Shape.area', 'geo::Other::size'], 1],
};

describe('definitions from the bundle (dist/)', () => {
  it('loads every grammar from dist/wasm and extracts the same definitions', () => {
    const files: Record<string, string> = {};
    let gates = 'version: 1\nsuites:\n';
    for (const [file, [names]] of Object.entries(NAMED)) {
      const id = file.replace('.', '_');
      const source = sample(file).toString('utf8');
      const lines = source.split('\n').length - 1;
      files[`repos/${id}/src/${file}`] = source;
      files[`${id}.gold.jsonl`] = jsonl([
        { inst_id: id, gold_ctx: [{ file: `src/${file}`, start_line: 1, end_line: lines }] },
      ]);
      files[`${id}.pred.jsonl`] = jsonl([
        {
          instance_id: id,
          traj_data: { pred_files: [`/testbed/src/${file}`], pred_symbols: { [`src/${file}`]: names } },
        },
      ]);
      gates += `  ${id}:\n    kind: context\n    gold: ${id}.gold.jsonl\n    predictions: ${id}.pred.jsonl\n    repos: repos\n`;
    }
    const dir = tmpTree({ ...files, 'gates.yaml': gates });
    const r = runCli(['--format', 'json'], dir);
    // No warning; the verdict goes to stderr beside the JSON on stdout.
    expect(r.stderr).toBe('groundgate: PASS — no gates configured\n');
    expect(r.status).toBe(0);
    const report = reportSchema.parse(JSON.parse(r.stdout));
    for (const [file, [, selected]] of Object.entries(NAMED)) {
      const m = report.suites[file.replace('.', '_')]!.metrics;
      const all = EXPECTED[file]!.length;
      expect([file, m['symbol.coverage']!.numerator, m['symbol.coverage']!.denominator]).toEqual([
        file,
        selected,
        all,
      ]);
      expect(m['symbol.precision']!.denominator).toBe(selected);
    }
  });
});
