import { didYouMean } from '../config/suggest.js';
import { InputError, UsageError } from '../errors.js';
import { VERSION } from '../version.js';
import { printLine, type CliIo, type Command } from './command.js';
import { COMMANDS } from './commands.js';
import { declareCommand, helpText, HelpRequested, referenceText } from './options.js';
import { takeUtf8Notes } from '../io/utf8.js';
import { mappedStack } from '../mapped-stack.js';

export type { CliIo };

/** `groundgate --help`: the commands; check runs without one. */
const TOP = declareCommand({
  name: 'groundgate',
  summary: 'score RAG traces against a gold set and gate CI on the metrics',
  usage: 'groundgate [command] [options]',
  description: '',
  sections: [
    {
      title: 'Commands',
      body: `${commandList()}\n\nRun "groundgate help COMMAND" (or "groundgate COMMAND --help") for a command's options; without a command, check runs.`,
    },
  ],
  options: { version: { short: 'v', type: 'boolean', help: 'print the version' } },
  exitStatus: '0 pass (or help shown), 1 a gate failed, 2 usage, configuration or input error.',
  example: 'groundgate check --config eval/gates.yaml',
});

function commandList(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
}

/** The README's command reference (between its commands:start and commands:end markers). */
export function commandReference(): string {
  return referenceText([TOP, ...COMMANDS.map((c) => c.spec)]);
}

/** Runs the CLI and returns its exit status: 0 pass, 1 a gate failed, 2 usage or input error. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  // Notes of an earlier call in this process (one that stopped at an error) are not this call's.
  takeUtf8Notes();
  // The command whose --help a usage error points to: check, when none is named.
  let command: Command | undefined;
  try {
    const [first, ...rest] = argv;
    if (first === '--help' || first === '-h') {
      io.stdout(helpText(TOP));
      return 0;
    }
    if (first === '--version' || first === '-v') {
      io.stdout(`${VERSION}\n`);
      return 0;
    }
    if (first === 'help') {
      if (rest.length > 1) throw new UsageError(`expected: groundgate help [COMMAND]`);
      const named = rest[0] === undefined || rest[0] === '--help' || rest[0] === '-h' ? undefined : rest[0];
      io.stdout(named === undefined ? helpText(TOP) : commandNamed(named).usage);
      return 0;
    }
    if (first !== undefined && !first.startsWith('-')) {
      command = commandNamed(first);
      return await runCommand(command, rest, io);
    }
    command = COMMANDS[0]!;
    return await runCommand(command, argv, io);
  } catch (err) {
    if (err instanceof InputError) {
      printLine(io, err.message);
      return 2;
    }
    if (err instanceof UsageError) {
      printLine(io, `${err.message} (see groundgate ${command ? `${command.name} ` : ''}--help)`);
      return 2;
    }
    // Not the user's fault: keep the stack, it is what a bug report needs. Each of its lines starts as ours
    // do, without a control character of the data a message may quote: none can be a workflow command.
    const [first, ...rest] = mappedStack(err).split('\n');
    for (const line of [`internal error: ${first}`, ...rest]) printLine(io, line);
    return 2;
  }
}

function commandNamed(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name);
  if (command) return command;
  const names = COMMANDS.map((c) => c.name);
  throw new UsageError(
    `unknown command ${JSON.stringify(name)}${didYouMean(name, names)}; expected one of ${names.join(', ')}`,
  );
}

async function runCommand(command: Command, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await command.run(argv, io);
  } catch (err) {
    if (!(err instanceof HelpRequested)) throw err;
    io.stdout(command.usage);
    return 0;
  }
}
