import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { escapeTerminal } from '../report/escape.js';
import { helpText, type CommandSpec } from './options.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTty: boolean;
  env: NodeJS.ProcessEnv;
}

/** The most characters of one stderr line: a forged input must not print one of 300 KB. */
const MAX_LINE = 2000;

/**
 * Writes `groundgate: TEXT` as one line of stderr. The text may hold the user's data (a file name, a question, a
 * value): none of its newlines, escape sequences or other control characters reaches the terminal, nor the
 * runner's log, where a line starting `::error::` is a workflow command.
 */
export function printLine(io: CliIo, text: string): void {
  io.stderr(`groundgate: ${escapeTerminal(text, MAX_LINE)}\n`);
}

/** A subcommand: `groundgate NAME [args]`. Each lives in its own file (made by commandOf) and is listed in commands.ts. */
export interface Command {
  name: string;
  /** One line for `groundgate --help`. */
  summary: string;
  /** Full usage text for `groundgate NAME --help`: helpText(spec). */
  usage: string;
  /** Its options and help (options.ts), which the README's command reference lists too. */
  spec: CommandSpec;
  /** Returns the exit status; throws InputError / UsageError for the user's mistakes (exit 2). */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

/** A Command (commands.ts) whose name, summary and help come from its declaration (options.ts). */
export function commandOf(spec: CommandSpec, run: Command['run']): Command {
  return { name: spec.name, summary: spec.summary, usage: helpText(spec), spec, run };
}

/**
 * Writes a file the user asked for (`text`, or what `text(file)` writes), making its folder if need be (as
 * eslint's --output-file does); failing to is an input error naming it.
 */
export function writeOutput(file: string, text: string | ((file: string) => void)): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof text === 'string') writeFileSync(file, text);
    else text(file);
  } catch (err) {
    throw new InputError({ file }, `cannot write output (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
