import { mappedStack } from '../mapped-stack.js';
import * as workflow from './workflow.js';
import { runAction } from './main.js';

try {
  process.exitCode = await runAction();
} catch (err) {
  // Not the user's input: a bug. The stack, pointed at src/, is what a report needs.
  workflow.setFailed(`groundgate: internal error: ${mappedStack(err)}`);
  process.exitCode = 2;
}
