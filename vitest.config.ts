import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // vitest keeps a core for itself (cores - 1 workers): on CI's two cores that ran one test file at a time,
    // 7.6 minutes of tests. Most of their time is spent in the processes and threads they start, not in
    // vitest: one worker a core ran the same tests in 4.3 minutes.
    maxWorkers: availableParallelism(),
  },
});
