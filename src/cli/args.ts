import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import type { InputOverride } from '../run.js';

export const FORMATS = ['text', 'json', 'markdown', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export interface CheckArgs {
  command: 'check';
  config: string;
  suites: string[];
  inputs: InputOverride[];
  format: Format;
  out?: string;
  report?: string;
  baseline?: string;
  offenders?: number;
  quiet: boolean;
  color?: boolean;
}

export type CliArgs = CheckArgs | { command: 'help' } | { command: 'version' };

export const HELP = `Usage: groundgate [check] [options]

Scores a pipeline's traces against a frozen gold set and checks the gates in gates.yaml.

Options:
  -c, --config PATH        gates file (default: gates.yaml)
  -s, --suite NAME         run only this suite (repeatable)
  -i, --input [SUITE.]KEY=PATH
                           replace an input path of a suite, e.g. --input qa.traces=runs/new.jsonl
                           (PATH relative to the working directory; globs allowed)
  -f, --format FORMAT      text (default), json, markdown or junit
  -o, --out FILE           write the formatted output to FILE instead of stdout
      --report FILE        also write report.json to FILE
      --baseline FILE      compare with an earlier report.json: deltas and max_drop gates
      --offenders N        how many offenders to list (default: offenders: in gates.yaml, else 10)
  -q, --quiet              print nothing when every gate passes
      --color, --no-color  force or disable colour (default: on for a terminal, off with NO_COLOR)
  -h, --help               show this help
  -v, --version            print the version

Exit status: 0 every gate passed, 1 a gate failed, 2 usage, configuration or input error.
`;

export function parseCli(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      allowNegative: true,
      strict: true,
      options: {
        config: { type: 'string', short: 'c' },
        suite: { type: 'string', short: 's', multiple: true },
        input: { type: 'string', short: 'i', multiple: true },
        format: { type: 'string', short: 'f' },
        out: { type: 'string', short: 'o' },
        report: { type: 'string' },
        baseline: { type: 'string' },
        offenders: { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        color: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''));
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };
  const [command, ...rest] = positionals;
  if (command !== undefined && command !== 'check') {
    throw new UsageError(`unknown command ${JSON.stringify(command)}; expected check`);
  }
  if (rest.length) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);

  const format = (values.format ?? 'text') as Format;
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format ${JSON.stringify(values.format)}: expected one of ${FORMATS.join(', ')}`);
  }
  let offenders: number | undefined;
  if (values.offenders !== undefined) {
    if (!/^\d+$/.test(values.offenders))
      throw new UsageError(`--offenders ${JSON.stringify(values.offenders)}: expected a whole number`);
    offenders = Number(values.offenders);
  }
  return {
    command: 'check',
    config: values.config ?? 'gates.yaml',
    suites: values.suite ?? [],
    inputs: (values.input ?? []).map(parseOverride),
    format,
    out: values.out,
    report: values.report,
    baseline: values.baseline,
    offenders,
    quiet: values.quiet ?? false,
    color: values.color,
  };
}

function parseOverride(text: string): InputOverride {
  const m = /^(?:([A-Za-z][A-Za-z0-9_.-]*?)\.)?([a-z_]+)=(.+)$/.exec(text);
  if (!m)
    throw new UsageError(
      `--input ${JSON.stringify(text)}: expected [SUITE.]KEY=PATH, e.g. qa.traces=runs/new.jsonl`,
    );
  return { suite: m[1], key: m[2]!, path: m[3]! };
}
