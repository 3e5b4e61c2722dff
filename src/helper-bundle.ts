import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The helper threads' bundle (src/grounded-answer/pipeline/worker.ts): dist/qa-worker/index.js beside the Action's
 * bundle or one folder up from the CLI's, or tsc's grounded-answer/pipeline/worker.js. Run from TypeScript sources
 * (the unit tests) there is none, and the calling thread does the work itself.
 */
export function helperBundle(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [
    path.join(here, 'qa-worker', 'index.js'),
    path.join(here, '..', 'qa-worker', 'index.js'),
    path.join(here, 'grounded-answer', 'pipeline', 'worker.js'),
  ].find((f) => existsSync(f));
}
