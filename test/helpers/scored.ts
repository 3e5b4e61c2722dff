// Scoring a config of several suites in-process, and comparing their reports apart from what names files:
// the tests that a shape, format or setting scores exactly as the canonical files do.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { scopeAt } from '../../src/io/confine.js';
import type { SuiteReport } from '../../src/report/schema.js';
import { run } from '../../src/run.js';
import { tmpTree } from './tmp.js';

/** Runs one config holding `suites` over `files` (written to a fresh folder); returns each suite's report. */
export async function scored<R = SuiteReport>(
  files: Record<string, string | Buffer>,
  suites: Record<string, unknown>,
): Promise<Record<string, R>> {
  const dir = tmpTree({});
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, offenders: 50, suites }));
  const { report } = await run({ config: path.join(dir, 'gates.yaml') });
  return report.suites as unknown as Record<string, R>;
}

type Part = Record<string, unknown> & {
  offenders?: Record<string, unknown>[];
  items?: Record<string, { gold?: string }>;
};

/**
 * A suite's report with what names its files left out, and the gold digests (they digest the gold records as
 * written: the same items in another shape are another file to a lock): the rest must be the canonical run's.
 */
export function scoredPart(s: unknown): Part {
  const r = JSON.parse(JSON.stringify(s)) as Part;
  delete r.inputs;
  delete r.gold;
  for (const item of Object.values(r.items ?? {})) delete item.gold;
  for (const o of r.offenders ?? []) {
    delete o.source;
    delete o.trace;
  }
  return r;
}

/** scoredPart with each offender's claim apart: for traces whose claims were reworded or marked. */
export function claimsApart(s: unknown): { report: Part; claims: unknown[] } {
  const report = scoredPart(s);
  const claims = (report.offenders ?? []).map((o) => o.claim);
  for (const o of report.offenders ?? []) delete o.claim;
  return { report, claims };
}

/**
 * Runs `dir`'s gates.yaml in-process as `check` would there (paths confined to `dir`), against `baseline`
 * (a report file) when given.
 */
export async function runIn(dir: string, baseline?: string) {
  const file = path.join(dir, 'gates.yaml');
  const scope = scopeAt(dir, 'the repository');
  return run({
    config: file,
    loaded: parseConfig(readFileSync(file, 'utf8'), file, scope),
    scope,
    ...(baseline && { baseline }),
  });
}

/** A gates.yaml of one suite, `name` of `kind`, with `lines` as its settings (one level in). */
export const oneSuite = (name: string, kind: string, lines: readonly string[]): string =>
  ['version: 1', 'suites:', `  ${name}:`, `    kind: ${kind}`, ...lines.map((l) => `    ${l}`), ''].join(
    '\n',
  );
