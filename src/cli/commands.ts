import { baselineCommand } from './baseline.js';
import { checkCommand } from './check.js';
import type { Command } from './command.js';
import { extractCommand } from './extract.js';
import { freezeCommand, verifyCommand } from './freeze.js';
import { historyCommand } from './history.js';
import { initCommand } from './init.js';
import { judgeCommand } from './judge.js';
import { mergeCommand } from './merge.js';
import { normalizeCommand } from './normalize.js';

/** Every subcommand. Adding one = a file exporting a Command and a line here. */
export const COMMANDS: readonly Command[] = [
  checkCommand,
  mergeCommand,
  initCommand,
  baselineCommand,
  freezeCommand,
  verifyCommand,
  historyCommand,
  extractCommand,
  normalizeCommand,
  judgeCommand,
];
