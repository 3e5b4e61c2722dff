import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CONFIDENCES, type Confidence } from '../contract.js';
import { readJsonFile, validateJson, type JsonText } from '../../../io/json-document.js';
import { unique, type GroundTruthLookup, type TaskGroundTruth } from './types.js';

const WHAT = 'a task ground truth (tests/ground_truth.json)';

const symbolSchema = z.strictObject({
  file: z.string(),
  symbol: z.string(),
  repo: z.string().nullable().optional(),
});
const chunkSchema = z.strictObject({
  file: z.string(),
  line_start: z.int().min(1),
  line_end: z.int().min(1),
  annotation: z.string().nullable().optional(),
});

/** The curated form: `{files, symbols?, chunks?, confidence?, expected_edit_files?, …}`. */
const filesShape = z.looseObject({
  files: z.array(z.string()),
  confidence: z.string().optional(),
  symbols: z.array(symbolSchema).optional(),
  chunks: z.array(chunkSchema).optional(),
  expected_edit_files: z.array(z.string()).optional(),
  expected_edit_files_source: z.string().nullable().optional(),
  expected_edit_files_confidence: z.string().nullable().optional(),
});
const referencesShape = z.looseObject({
  file_references: z.array(z.looseObject({ patterns: z.array(z.string()).optional() })),
});
const listOfStrings = (key: string) => z.looseObject({ [key]: z.array(z.string()) });
const entriesShape = z.looseObject({ entries: z.array(z.looseObject({ file: z.string().optional() })) });

function asConfidence(value: unknown): Confidence | undefined {
  return (CONFIDENCES as readonly unknown[]).includes(value) ? (value as Confidence) : undefined;
}

/**
 * `tests/ground_truth.json`, in the shapes CodeScaleBench tasks use, first match wins:
 * a list of paths (medium); `{files}` (its `confidence`, else the sibling ground_truth_meta.json's, else
 * medium; with `symbols`, `chunks`, and `expected_edit_files` when their confidence is high);
 * `{file_references: [{patterns}]}` (regex patterns with `/`, unescaped; medium); `{buggy_files}` (high,
 * and the edit targets); `{entries: [{file}]}` (medium); `{file_path}` (low: a perf target the agent may
 * go beyond); `{canonical_path}` (high). Any other object is a rubric for a generated answer: the task has
 * no file-level ground truth, and the chain stops there rather than guess files from prose.
 */
export function groundTruthJson(file: string): GroundTruthLookup {
  const json = readJsonFile(file, WHAT);
  const data = json.value;
  const found = (
    files: string[],
    source: string,
    confidence: Confidence,
    extra: Partial<TaskGroundTruth> = {},
  ) =>
    files.length > 0
      ? { truth: { files: unique(files), source, confidence, file, ...extra } }
      : { reason: `${source}: the file list is empty` };

  if (Array.isArray(data)) {
    const list = validateJson(z.array(z.string()), json, WHAT);
    return found(list, 'ground_truth_json_list', 'medium');
  }
  if (data === null || typeof data !== 'object') {
    return validateJson(z.never({ error: 'expected a list of paths or an object' }), json, WHAT);
  }
  const has = (key: string) => key in data;
  if (has('files')) {
    const g = validateJson(filesShape, json, WHAT);
    const confidence = asConfidence(g.confidence) ?? metaConfidence(file) ?? 'medium';
    const edits =
      g.expected_edit_files && g.expected_edit_files.length > 0 && g.expected_edit_files_confidence === 'high'
        ? {
            files: unique(g.expected_edit_files),
            source: g.expected_edit_files_source ?? 'ground_truth_json',
          }
        : undefined;
    return found(g.files, 'ground_truth_json_files', confidence, {
      ...(g.symbols && g.symbols.length > 0 ? { symbols: g.symbols } : {}),
      ...(g.chunks && g.chunks.length > 0 ? { chunks: g.chunks } : {}),
      ...(edits ? { expectedEditFiles: edits } : {}),
    });
  }
  if (has('file_references')) {
    const g = validateJson(referencesShape, json, WHAT);
    const files = g.file_references
      .flatMap((r) => r.patterns ?? [])
      .map(unescapeRegex)
      .filter((p) => p.includes('/'));
    return found(files, 'ground_truth_json_refs', 'medium');
  }
  if (has('buggy_files')) {
    const files = validateJson(listOfStrings('buggy_files'), json, WHAT).buggy_files as string[];
    return found(files, 'ground_truth_json_buggy', 'high', {
      expectedEditFiles: { files: unique(files), source: 'ground_truth_json_buggy' },
    });
  }
  if (has('entries')) {
    const g = validateJson(entriesShape, json, WHAT);
    return found(
      g.entries.flatMap((e) => (e.file ? [e.file] : [])),
      'ground_truth_json_entries',
      'medium',
    );
  }
  for (const [key, source, confidence] of [
    ['file_path', 'ground_truth_json_perf', 'low'],
    ['canonical_path', 'ground_truth_json_canonical', 'high'],
  ] as const) {
    if (has(key)) {
      const value = validateJson(z.looseObject({ [key]: z.string() }), json, WHAT)[key] as string;
      return found([value], source, confidence);
    }
  }
  return { reason: `${path.basename(file)} lists no files (a rubric for a generated answer)` };
}

/** `ground_truth_meta.json` next to it (the curator's metadata) may say how confident the list is. */
function metaConfidence(groundTruthFile: string): Confidence | undefined {
  const meta = path.join(path.dirname(groundTruthFile), 'ground_truth_meta.json');
  if (!existsSync(meta)) return undefined;
  const json: JsonText = readJsonFile(meta, 'ground-truth metadata (a JSON object)');
  const value = json.value as Record<string, unknown> | null;
  return value && typeof value === 'object' ? asConfidence(value.ground_truth_confidence) : undefined;
}

/** A path written as a regex (`internal/server/x\.go`) back to the path. */
function unescapeRegex(pattern: string): string {
  return pattern.replace(/^\^|\$$/g, '').replace(/\\(.)/g, '$1');
}
