import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { InputError } from '../errors.js';
import { describeJsonError } from './jsonl.js';
import { syntaxErrorAt } from './json-where.js';
import { describeIssue, formatPath, safeParse } from './validate.js';
import { readText } from './utf8.js';

/**
 * Whole-file JSON documents (event documents, trajectories, task metadata) read with positions: a syntax
 * error names its line and column, and so does a value that fails its contract.
 */
export interface JsonText {
  file: string;
  text: string;
  value: unknown;
}

/** Reads and parses a JSON file; a missing file, an unreadable one or bad JSON is an InputError. */
export function readJsonFile(file: string, what: string): JsonText {
  let text: string;
  try {
    text = readText(file).replace(/^\uFEFF/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError({ file }, code === 'ENOENT' ? 'file not found' : `cannot read (${code ?? 'error'})`);
  }
  return { file, text, value: parseJson(text, file, what) };
}

export function parseJson(text: string, file: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason } = describeJsonError(err, text);
    throw new InputError({ file, ...syntaxErrorAt(text) }, `invalid JSON: ${reason}; expected ${what}`);
  }
}

/** Validates a parsed document; the error points at the offending value in the file. */
export function validateJson<T>(schema: z.ZodType<T>, json: JsonText, what: string): T {
  const result = safeParse(schema, json.value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // A missing key has no node of its own: point at the object that lacks it.
  const missing = issue.path.length > 0 && valueAt(json.value, issue.path) === undefined;
  const expected = issue.message
    .replace(/^Invalid (input|option): /, '')
    .replace(/, received undefined$/, '');
  const detail = missing
    ? `missing field "${formatPath(issue.path)}" (${what}); ${expected}`
    : describeIssue(issue, json.value, what);
  throw errorAt(json, missing ? issue.path.slice(0, -1) : issue.path, detail);
}

/** An input error at the value `path` names. */
export function errorAt(json: JsonText, path: readonly PropertyKey[], detail: string): InputError {
  return new InputError({ file: json.file, ...locate(json.text, path) }, detail);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const segment of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[segment];
  }
  return v;
}

/**
 * Where the value at `path` starts. JSON is YAML, so the YAML parser (already used for gates.yaml) gives
 * node offsets; it only runs when a document is invalid.
 */
function locate(text: string, path: readonly PropertyKey[]): { line?: number; column?: number } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  let node = doc.contents as YamlNode | null;
  for (const segment of path) {
    let next: unknown;
    if (isMap(node)) next = node.items.find((pair) => String(pair.key) === String(segment))?.value;
    else if (isSeq(node) && typeof segment === 'number') next = node.items[segment];
    if (!next) break;
    node = next as YamlNode;
  }
  const offset = node?.range?.[0];
  if (offset === undefined) return {};
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
