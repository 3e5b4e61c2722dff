import { mappedStack } from '../mapped-stack.js';
import * as core from '@actions/core';
import { runAction } from './main.js';

try {
  process.exitCode = await runAction();
  // Every output is written by now: a connection the API left open must not hold the job.
  setTimeout(() => process.exit(), 1_000).unref();
} catch (err) {
  // Not the user's input: a bug. The stack, pointed at src/, is what a report needs.
  core.setFailed(`groundgate: internal error: ${mappedStack(err)}`);
  process.exitCode = 2;
}
