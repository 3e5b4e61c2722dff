import path from 'node:path';
import type { Interval } from '../../metrics/intervals.js';
import { parserFor, type Language, type SyntaxNode } from './tree-sitter.js';

/** File extension → grammar, as the ContextBench evaluator maps them (lower-cased extension). */
export const LANGUAGE_OF_EXTENSION: Readonly<Record<string, Language>> = {
  '.py': 'python',
  '.js': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.tsx': 'tsx',
  '.java': 'java',
  '.go': 'go',
  '.rs': 'rust',
  '.c': 'c',
  '.h': 'c',
  '.cpp': 'cpp',
  '.cc': 'cpp',
  '.hpp': 'cpp',
};

/**
 * Extensions the evaluator also parses (with grammars groundgate does not ship): their files have no
 * symbols here, and the suite warns when gold or predictions touch them.
 */
export const UNSUPPORTED_EXTENSIONS: ReadonlySet<string> = new Set([
  '.cs',
  '.php',
  '.rb',
  '.swift',
  '.kt',
  '.scala',
]);

/** The node types the evaluator counts as definitions, per language. */
export const DEFINITION_TYPES: Readonly<Record<Language, ReadonlySet<string>>> = {
  python: new Set(['function_definition', 'class_definition', 'async_function_definition']),
  javascript: new Set(['function_declaration', 'class_declaration', 'method_definition', 'arrow_function']),
  typescript: new Set([
    'function_declaration',
    'class_declaration',
    'method_definition',
    'interface_declaration',
  ]),
  tsx: new Set(['function_declaration', 'class_declaration', 'method_definition', 'interface_declaration']),
  java: new Set([
    'method_declaration',
    'class_declaration',
    'interface_declaration',
    'constructor_declaration',
  ]),
  go: new Set(['function_declaration', 'method_declaration', 'type_declaration']),
  rust: new Set(['function_item', 'impl_item', 'struct_item', 'trait_item']),
  c: new Set(['function_definition', 'struct_specifier']),
  cpp: new Set(['function_definition', 'class_specifier', 'struct_specifier']),
};

export function languageOf(file: string): Language | undefined {
  return LANGUAGE_OF_EXTENSION[path.extname(file).toLowerCase()];
}

/** A definition node: its type, UTF-8 byte offsets (`end` exclusive, as tree-sitter gives them) and name. */
export interface Definition {
  kind: string;
  start: number;
  end: number;
  /** Empty when the evaluator's name heuristics find none; such a definition is never matched by name. */
  name: string;
}

const IDENTIFIER_RANK: Readonly<Record<string, number>> = {
  identifier: 0,
  field_identifier: 1,
  property_identifier: 2,
  method_identifier: 3,
  type_identifier: 100,
  scoped_identifier: 100,
  namespace_identifier: 100,
  constant_identifier: 100,
};

/**
 * Every definition in a source file, in document order. Nodes that are anonymous or comments are not
 * descended into, as in the evaluator. Offsets are UTF-8 bytes of `bytes`.
 */
export async function extractDefinitions(bytes: Uint8Array, language: Language): Promise<Definition[]> {
  const { text, byteOffset } = decode(bytes);
  const parser = await parserFor(language);
  const tree = parser.parse(text);
  if (!tree) return [];
  // A cursor walk, pre-order: only definitions become Node objects (node.children would build an array
  // of them for every node of the file).
  const cursor = tree.walk();
  try {
    const types = DEFINITION_TYPES[language];
    const out: Definition[] = [];
    for (;;) {
      const type = cursor.nodeType;
      const descend = cursor.nodeIsNamed && !type.includes('comment');
      if (descend && types.has(type)) {
        const node = cursor.currentNode;
        out.push({
          kind: type,
          start: byteOffset(node.startIndex),
          end: byteOffset(node.endIndex),
          name: definitionName(node),
        });
      }
      if (descend && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return out;
    }
  } finally {
    cursor.delete();
    tree.delete();
  }
}

/**
 * The evaluator's name heuristic: the `name` field; else the best identifier under the `declarator` field
 * (C, C++) or the node itself, preferring plain identifiers, first found wins among equals.
 */
function definitionName(node: SyntaxNode): string {
  const named = node.childForFieldName('name')?.text.trim();
  if (named) return named;
  const root = node.childForFieldName('declarator') ?? node;
  let best = '';
  let bestRank = Infinity;
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const rank = n.isNamed ? IDENTIFIER_RANK[n.type] : undefined;
    if (rank !== undefined && rank < bestRank) {
      const text = n.text.trim();
      if (text) {
        best = text;
        bestRank = rank;
        if (rank === 0) break;
      }
    }
    const children = n.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return best;
}

/** Definitions that share at least one byte with a span, in the evaluator's sense (see docs/metrics.md). */
export function definitionsInSpans(
  definitions: readonly Definition[],
  spans: readonly Interval[],
): Definition[] {
  // The evaluator compares tree-sitter's exclusive end with inclusive span bounds; kept for parity.
  return definitions.filter((d) => spans.some(([s, e]) => !(d.end < s || d.start > e)));
}

/**
 * Definitions named by a predicted symbol: the exact name, else (for `Class.method`) the last dotted part.
 * Every definition with the matching name counts.
 */
export function definitionsNamed(
  definitions: readonly Definition[],
  symbols: readonly string[],
): Definition[] {
  const byName = new Map<string, Definition[]>();
  for (const d of definitions) {
    if (!d.name) continue;
    const list = byName.get(d.name);
    if (list) list.push(d);
    else byName.set(d.name, [d]);
  }
  const out: Definition[] = [];
  for (const raw of symbols) {
    const symbol = raw.trim();
    if (!symbol) continue;
    const candidates = symbol.includes('.') ? [symbol, symbol.split('.').pop()!] : [symbol];
    const match = candidates.map((c) => byName.get(c)).find((defs) => defs !== undefined);
    if (match) out.push(...match);
  }
  return out;
}

/**
 * Tree-sitter reads a JavaScript string and reports UTF-16 offsets; the evaluator counts UTF-8 bytes. A
 * file that is not valid UTF-8 is read as Latin-1, one character per byte, so offsets stay byte offsets.
 */
function decode(bytes: Uint8Array): { text: string; byteOffset: (index: number) => number } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { text: Buffer.from(bytes).toString('latin1'), byteOffset: (i) => i };
  }
  if (text.length === bytes.length) return { text, byteOffset: (i) => i };
  const offsets = new Uint32Array(text.length + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    offsets[i] = b;
    const c = text.charCodeAt(i);
    if (c < 0x80) b += 1;
    else if (c < 0x800) b += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      // A surrogate pair is one 4-byte character; no node boundary falls between its halves.
      offsets[++i] = b;
      b += 4;
    } else b += 3;
  }
  offsets[text.length] = b;
  return { text, byteOffset: (i) => offsets[i]! };
}
