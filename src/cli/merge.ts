import { UsageError } from '../errors.js';
import type { RunOptions } from '../run.js';
import { check, commandScope, parseCheckArgs } from './check.js';
import type { Command } from './command.js';

export const MERGE_USAGE = `Usage: groundgate merge PARTIAL... [options]

Merges the partials that "groundgate check --partial" wrote on each shard of the inputs (e.g. the jobs of
a CI matrix) into the report one run over all of them gives, and checks the gates. The partials must come
from this config, this groundgate version and one gold set, and no two may hold the same trace file.
PARTIAL may be a quoted glob, e.g. 'partials/**/*.partial'.

Options:
  -c, --config PATH        gates file (default: gates.yaml): the one the partials were written with
  -f, --format FORMAT      text (default), json, markdown, junit or html
  -o, --out FILE           write the formatted output to FILE instead of stdout
      --report FILE        also write report.json to FILE
      --baseline FILE      compare with an earlier report.json (gh:auto: see groundgate check --help)
      --artifact-name NAME the report artifact's name for --baseline gh:auto
      --release            release sign-off: every gold set must have matched its lock in the shards
      --history FILE       history of earlier runs: trend charts in markdown and html
      --trend N            runs shown in a trend, the current one included (default 20)
      --offenders N        how many offenders to list (default: offenders: in gates.yaml, else 10)
  -q, --quiet              print nothing when every gate passes
      --color, --no-color  force or disable colour
      --allow-outside-workspace
                           let paths in gates.yaml lead outside the workspace (local use only)
  -h, --help               show this help

Exit status: 0 every gate passed, 1 a gate failed, 2 usage, configuration or input error (partials of
another config, gold set or version, a trace file in two partials, a partial cut short).
`;

export const mergeCommand: Command = {
  name: 'merge',
  summary: 'merge the partials of a sharded run (check --partial) into one report and verdict',
  usage: MERGE_USAGE,
  async run(argv, io) {
    const args = parseCheckArgs(argv, { usage: MERGE_USAGE });
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
    return check(args, options, io, (o) => mergeRun(files, o));
  },
};
