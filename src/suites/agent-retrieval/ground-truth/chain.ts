import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { InputError } from '../../../errors.js';
import type { GroundTruthChunk } from '../contract.js';
import { readJsonFile, validateJson } from '../../../io/json-document.js';
import { groundTruthJson } from './ground-truth-json.js';
import { filesFromPatch, pathsFromText } from './text-paths.js';
import { unique, type GroundTruthLookup } from './types.js';
import { readText } from '../../../io/utf8.js';

const defectsSchema = z.array(
  z.looseObject({
    file: z.string().optional(),
    line_start: z.int().min(1).nullable().optional(),
    line_end: z.int().min(1).nullable().optional(),
    defect_type: z.string().nullable().optional(),
  }),
);
const changesSchema = z.looseObject({ expected_files: z.array(z.string()) });

/**
 * A task's ground truth from its definition folder, by the seed's priority chain (the first source that
 * lists files wins):
 *
 * 1. `tests/ground_truth.json` (its shapes: ground-truth-json.ts); when present it decides alone
 * 2. `tests/expected_defects.json` — high; chunks from defects with a `line_start`
 * 3. `tests/expected_changes.json` — high; also the edit targets
 * 4. `tests/reference_fix.patch`, `tests/expected.diff`, `tests/expected.patch` — high; also the edit targets
 * 5. `solution/solve.sh` (the gold patch) — medium (one valid fix among others); also the edit targets
 * 6. `tests/test.sh` paths — medium; then `instruction.md` paths — low
 */
export function groundTruthFromTask(taskDir: string): GroundTruthLookup {
  const at = (rel: string) => path.join(taskDir, rel);
  const exists = (rel: string) => existsSync(at(rel));
  const reasons: string[] = [];

  // The task's own ground-truth file is final: one that lists no file means the task has none.
  if (exists('tests/ground_truth.json')) return groundTruthJson(at('tests/ground_truth.json'));
  if (exists('tests/expected_defects.json')) {
    const file = at('tests/expected_defects.json');
    const json = readJsonFile(
      file,
      'a list of expected defects [{file, line_start?, line_end?, defect_type?}]',
    );
    const defects = validateJson(defectsSchema, json, 'a list of expected defects');
    const files = unique(defects.flatMap((d) => (d.file ? [d.file] : [])));
    const chunks: GroundTruthChunk[] = [];
    defects.forEach((d, i) => {
      if (!d.file || d.line_start === undefined || d.line_start === null) return;
      const end = d.line_end ?? d.line_start;
      if (end < d.line_start) {
        throw new InputError(
          { file },
          `[${i}]: line_end ${end} is before line_start ${d.line_start}; expected line_start ≤ line_end`,
        );
      }
      chunks.push({
        file: d.file,
        line_start: d.line_start,
        line_end: end,
        annotation: d.defect_type ?? null,
      });
    });
    if (files.length > 0) {
      return {
        truth: {
          files,
          source: 'expected_defects_json',
          confidence: 'high',
          file,
          ...(chunks.length > 0 ? { chunks } : {}),
        },
      };
    }
    reasons.push('tests/expected_defects.json names no file');
  }
  if (exists('tests/expected_changes.json')) {
    const file = at('tests/expected_changes.json');
    const json = readJsonFile(file, 'expected changes {expected_files: [...]}');
    const files = unique(
      validateJson(changesSchema, json, 'expected changes {expected_files: [...]}').expected_files,
    );
    if (files.length > 0) {
      return {
        truth: {
          files,
          source: 'expected_changes_json',
          confidence: 'high',
          file,
          expectedEditFiles: { files, source: 'expected_changes_json' },
        },
      };
    }
    reasons.push('tests/expected_changes.json lists no file');
  }
  for (const rel of ['tests/reference_fix.patch', 'tests/expected.diff', 'tests/expected.patch']) {
    if (!exists(rel)) continue;
    const files = filesFromPatch(readText(at(rel)));
    if (files.length > 0) {
      return {
        truth: {
          files,
          source: 'patch',
          confidence: 'high',
          file: at(rel),
          expectedEditFiles: { files, source: 'patch' },
        },
      };
    }
    reasons.push(`${rel} has no diff header`);
  }
  if (exists('solution/solve.sh')) {
    const files = filesFromPatch(readText(at('solution/solve.sh')));
    if (files.length > 0) {
      return {
        truth: {
          files,
          source: 'gold_patch',
          confidence: 'medium',
          file: at('solution/solve.sh'),
          expectedEditFiles: { files, source: 'gold_patch' },
        },
      };
    }
    reasons.push('solution/solve.sh has no patch');
  }
  for (const [rel, source, confidence] of [
    ['tests/test.sh', 'test_script', 'medium'],
    ['instruction.md', 'instruction', 'low'],
  ] as const) {
    if (!exists(rel)) continue;
    const files = pathsFromText(readText(at(rel)));
    if (files.length > 0) return { truth: { files, source, confidence, file: at(rel) } };
    reasons.push(`${rel} mentions no file path`);
  }
  return { reason: reasons.length > 0 ? reasons.join('; ') : 'the task folder has no ground-truth source' };
}
