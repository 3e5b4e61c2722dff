import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { suiteKind } from '../suites/registry.js';

// The suites of a gates.yaml init is about to replace (--force, --dry-run): how they read their inputs
// (fields:, format, openinference, refusal, refusal_token, citation_markers, k, …) is the user's knowledge of
// their data, so init reads the same files the same way and writes those keys again; only the gates are new.

export interface ExistingSuite {
  name: string;
  kind: string;
  /** Input paths relative to the repository. */
  inputs: Record<string, string>;
  /** Every other key but the gates, as YAML lines of the suite's block. */
  kept: string[];
  /** Those keys' values, for -i to override and detection to read. */
  settings: Record<string, unknown>;
}

/** The suites of `file`, or a reason it could not be read (then init proceeds as if it were absent). */
export function existingSuites(file: string, root: string): ExistingSuite[] | { problem: string } {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { problem: (err as Error).message.split('\n')[0]! };
  }
  const suites = (doc as { suites?: unknown } | null)?.suites;
  if (typeof suites !== 'object' || suites === null || Array.isArray(suites)) return [];
  const out: ExistingSuite[] = [];
  for (const [name, block] of Object.entries(suites as Record<string, unknown>)) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) continue;
    const kind = suiteKind(String((block as { kind?: unknown }).kind));
    if (!kind) continue;
    const inputs: Record<string, string> = {};
    const settings: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(block)) {
      if (key === 'kind' || key === 'gates' || key === 'lock') continue;
      if (kind.inputKeys.includes(key) && typeof value === 'string')
        inputs[key] = path
          .relative(root, path.resolve(path.dirname(file), value))
          .split(path.sep)
          .join('/');
      else settings[key] = value;
    }
    out.push({ name, kind: kind.kind, inputs, kept: settingsLines(settings), settings });
  }
  return out;
}

/** Settings as YAML lines of a suite block (indented from the block's level). */
export function settingsLines(settings: Record<string, unknown>): string[] {
  if (Object.keys(settings).length === 0) return [];
  return stringify(settings, { lineWidth: 0 }).trimEnd().split('\n');
}
