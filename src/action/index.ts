import * as workflow from './workflow.js';
import { runAction } from './main.js';

process.setSourceMapsEnabled(true);

try {
  process.exitCode = await runAction();
} catch (err) {
  // Not the user's input: a bug. The stack (source-mapped) is what a report needs.
  workflow.setFailed(`groundgate: internal error: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 2;
}
