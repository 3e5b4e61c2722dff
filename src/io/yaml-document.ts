import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import { InputError, type Where } from '../errors.js';

/**
 * Aliases may expand to this many nodes: enough for anchors shared by a few suites (a gates block each),
 * far below what makes a small file a large object.
 */
export const MAX_ALIAS_COUNT = 50;

/** What a YAML file is to its reader, for its errors: `what` ("a config"), and the fuller `expected`. */
export interface YamlExpectation {
  what: string;
  expected?: string;
}

/**
 * A YAML file parsed, or an input error at the line:column of its first syntax error (yaml reports its own
 * stack overflow, on a document 50,000 levels deep, as the document's error). `at` turns an offset into a place.
 */
export function parseYaml(
  source: string,
  file: string,
  expect: YamlExpectation,
): { doc: Document; at: (offset: number | undefined) => Where } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined): Where => {
    if (offset === undefined) return { file };
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const firstError = doc.errors[0];
  if (firstError) {
    const message = firstError.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    if (/^Maximum call stack size exceeded/.test(message))
      throw new InputError(
        at(firstError.pos[0]),
        `invalid YAML: nested too deep to read; expected ${expect.what} a few levels deep`,
      );
    throw new InputError(
      at(firstError.pos[0]),
      `invalid YAML: ${message}${expect.expected ? `; expected ${expect.expected}` : ''}`,
    );
  }
  return { doc, at };
}

/**
 * The document as plain data; aliases that expand past MAX_ALIAS_COUNT nodes (a "billion laughs" document,
 * which yaml refuses with a ReferenceError) are an input error at the first alias.
 */
export function yamlValue(
  doc: Document,
  at: (offset: number | undefined) => Where,
  expect: YamlExpectation,
): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    throw new InputError(
      at(firstAlias(doc)),
      `invalid YAML: aliases expand to too many nodes (more than ${MAX_ALIAS_COUNT} aliased nodes); expected ${expect.what} without such repetition`,
    );
  }
}

function firstAlias(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_, node) {
      offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  return offset;
}
