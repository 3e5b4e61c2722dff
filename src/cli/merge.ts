import { UsageError } from '../errors.js';
import type { RunOptions } from '../run.js';
import { CHECK_OPTIONS, check, commandScope, parseCheckArgs, refuseOwnInputs } from './check.js';
import { declareCommand } from './options.js';
import { commandOf, type Command } from './command.js';

// check's options but those that choose the inputs: the partials say which were scored.
const SHARED = without(CHECK_OPTIONS, ['suite', 'input', 'partial']);

function without<O extends object, K extends keyof O>(options: O, keys: readonly K[]): Omit<O, K> {
  return Object.fromEntries(
    Object.entries(options).filter(([name]) => !(keys as readonly PropertyKey[]).includes(name)),
  ) as Omit<O, K>;
}

const MERGE = declareCommand({
  name: 'merge',
  summary: 'merge the partials of a sharded run (check --partial) into one report and verdict',
  usage: 'groundgate merge PARTIAL... [options]',
  description:
    'Merges the partials that "groundgate check --partial" wrote on each shard of the inputs (e.g. the jobs of a CI matrix) into the report one run over all of them gives, and checks the gates. The partials must come from this config, this groundgate version and one gold set, and no two may hold the same trace file. PARTIAL may be a quoted glob, e.g. \'partials/**/*.partial\'. Formats and the verdict line as in check.',
  options: {
    ...SHARED,
    config: { ...SHARED.config, help: 'gates file: the one the partials were written with' },
    baseline: {
      ...SHARED.baseline,
      help: 'compare with an earlier report.json (gh:auto: see groundgate check --help)',
    },
    release: {
      ...SHARED.release,
      help: 'release sign-off: every gold set must have matched its lock in the shards',
    },
    'allow-outside-workspace': {
      ...SHARED['allow-outside-workspace'],
      help: 'let paths in gates.yaml lead outside the workspace (local use only)',
    },
  },
  exitStatus:
    '0 every gate passed, 1 a gate failed, 2 usage, configuration or input error (partials of another config, gold set or version, a trace file in two partials, a partial cut short).',
  example: "groundgate merge 'partials/*.partial' --format text --format junit=junit.xml",
});

export const mergeCommand: Command = commandOf(MERGE, async (argv, io) => {
  const args = parseCheckArgs(argv, true);
  if (args.positionals.length === 0)
    throw new UsageError('merge: no partial given; expected the files "groundgate check --partial" wrote');
  const scope = commandScope(args);
  const { mergeRun, partialFiles } = await import('../partial/run.js');
  const files = await partialFiles(args.positionals, process.cwd(), scope);
  const options: RunOptions = {
    config: args.config,
    baseline: args.baseline === 'gh:auto' ? undefined : args.baseline,
    release: args.release,
    scope,
  };
  await refuseOwnInputs(
    args,
    options,
    files.map((file) => ({ file, what: 'a partial' })),
  );
  return check(args, options, io, (o) => mergeRun(files, o));
});
