import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = import.meta.dirname;
const TESTS = readdirSync(path.join(ROOT, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`);

/**
 * Test files that get a process of their own. The others share their worker's process, and with it the
 * modules it has loaded: starting a process and loading zod, yaml, the parsers and src/ again for each file
 * cost more CPU than most files' own tests.
 * A file that mocks a module needs its own: in a shared process the modules loaded before it keep the real
 * one, and the mock would silently not apply. workflow.test.ts replaces process.env and sets
 * process.exitCode; artifacts.unit.test.ts runs src/github/artifacts.ts, which keeps the reports it
 * downloaded by artifact id for the life of the process.
 */
const ISOLATED = [
  ...TESTS.filter((f) =>
    /\bvi\.(mock|doMock|unmock|doUnmock)\(/.test(readFileSync(path.join(ROOT, f), 'utf8')),
  ),
  'test/workflow.test.ts',
  'test/artifacts.unit.test.ts',
];

/**
 * The slowest files, slowest first: started first, so that no long file runs alone at the end. Without
 * vitest's cache of durations (a fresh clone) files go by size, and the small but slow lint.test.ts came
 * last. Files not named here follow, in vitest's order.
 */
const SLOW = [
  'test/records.threads.test.ts',
  'test/lint.test.ts', // instant in .ci/run, which runs the checks beside the bundle
  'test/fuzz.loaders.test.ts',
  'test/fuzz.test.ts',
  'test/action.network.test.ts', // mostly waiting for a server that never answers
  'test/partial.merge.test.ts',
  'test/action.artifacts.test.ts',
  'test/formats.test.ts',
  'test/partial.cli.test.ts',
  'test/confine.test.ts',
  'test/cli.process.test.ts',
  'test/install.tarball.test.ts',
  'test/grounded-qa.threads.test.ts',
  'test/html.report.test.ts',
  'test/partial.stability.test.ts',
  'test/action.process.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const file = path.relative(ROOT, spec.moduleId).split(path.sep).join('/');
      const slow = SLOW.indexOf(file);
      // Isolated files before shared ones: a shared process is kept only while the next file is shared too.
      return (ISOLATED.includes(file) ? 0 : 1) * 1000 + (slow === -1 ? SLOW.length : slow);
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // vitest keeps a core for itself (cores - 1 workers): on CI's two cores that ran one test file at a time,
    // 7.6 minutes of tests. Most of their time is spent in the processes and threads they start, not in
    // vitest: one worker a core ran the same tests in 4.3 minutes.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: SlowFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          isolate: true,
          setupFiles: ['test/helpers/tmp-cleanup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
          setupFiles: ['test/helpers/shared-setup.ts', 'test/helpers/tmp-cleanup.ts'],
        },
      },
    ],
  },
});
