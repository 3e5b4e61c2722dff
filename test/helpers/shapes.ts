import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { runCli, type ProcessResult } from './process.js';
import { REPO, tmpDir } from './tmp.js';

// Data as real tools write it (#55). Each folder under test/fixtures/shapes/ holds:
//   project/    the files as a team keeps them, nothing else: what `init --yes` finds in a fresh project;
//   canonical/  gates.yaml and the same items in groundgate's own shapes, hand-converted;
//   README.md   how project/ was made (the real library and its version, or the documented schema).
// A shape is read right when `init --yes` in a copy of project/ writes gates under which `check` scores every
// metric and count exactly as `check` scores canonical/. The same comparison runs on the bundled CLI here and
// on the packed tarball in test/install.shapes.test.ts.

export const SHAPES = path.join(REPO, 'test', 'fixtures', 'shapes');

/** Runs the CLI with `args` in `cwd`: the bundled dist/ by default, or an installed package's bin. */
export type Cli = (cwd: string, args: readonly string[]) => ProcessResult;
export const bundled: Cli = (cwd, args) => runCli(args, cwd);

/** A fresh copy of a shape's folder (`project` or `canonical`). */
export function copyOf(shape: string, part: 'project' | 'canonical'): string {
  const dir = tmpDir(`groundgate-shape-${shape}-`);
  cpSync(path.join(SHAPES, shape, part), dir, { recursive: true });
  return dir;
}

interface SuiteScores {
  metrics: Record<string, { value: unknown; numerator?: unknown; denominator?: unknown }>;
  counts: unknown;
}

/** What must not depend on the shape: each suite's metric values with their fractions, and its counts. */
export function scoresOf(report: string): Record<string, SuiteScores> {
  const suites = (
    JSON.parse(report) as {
      suites: Record<string, { metrics: SuiteScores['metrics']; counts: unknown }>;
    }
  ).suites;
  return Object.fromEntries(
    Object.entries(suites).map(([name, s]) => [
      name,
      {
        metrics: Object.fromEntries(
          Object.entries(s.metrics).map(([m, v]) => [
            m,
            { value: v.value, numerator: v.numerator, denominator: v.denominator },
          ]),
        ),
        counts: s.counts,
      },
    ]),
  );
}

/**
 * `init --yes` in a copy of the shape's project, then `check` there and in canonical/: both exit `status`
 * and score alike. `suites` maps a suite name init wrote to the canonical suite it must equal (by default,
 * every canonical suite under its own name). Returns the project folder and init's output for more checks.
 */
export function expectSameAsCanonical(
  shape: string,
  cli: Cli = bundled,
  { status = 0, suites }: { status?: number; suites?: Record<string, string> } = {},
): { dir: string; init: ProcessResult; check: ProcessResult } {
  const dir = copyOf(shape, 'project');
  const init = cli(dir, ['init', '--yes']);
  expect(init.stderr).toBe('');
  expect(init.status).toBe(0);
  const check = cli(dir, ['check', '--report', 'report.json']);
  expect(check.status, check.stdout + check.stderr).toBe(status);
  const canonicalDir = copyOf(shape, 'canonical');
  const canonical = cli(canonicalDir, ['check', '--report', 'report.json']);
  expect(canonical.status, canonical.stdout + canonical.stderr).toBe(status);
  const mine = scoresOf(readFileSync(path.join(dir, 'report.json'), 'utf8'));
  const theirs = scoresOf(readFileSync(path.join(canonicalDir, 'report.json'), 'utf8'));
  const pairs = suites ?? Object.fromEntries(Object.keys(theirs).map((n) => [n, n]));
  for (const [written, expected] of Object.entries(pairs)) {
    expect(mine[written], `suite ${written} (init wrote ${Object.keys(mine).join(', ')})`).toBeDefined();
    expect(mine[written]!.counts).toEqual(theirs[expected]!.counts);
    // Every metric the canonical run reports, the same in the project's run.
    for (const [metric, v] of Object.entries(theirs[expected]!.metrics))
      expect(mine[written]!.metrics[metric], `${written}.${metric}`).toEqual(v);
  }
  return { dir, init, check };
}
