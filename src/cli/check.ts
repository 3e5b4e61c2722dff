import path from 'node:path';
import { UsageError } from '../errors.js';
import { readHistory } from '../history/history.js';
import { renderHtml } from '../report/html.js';
import { renderJunit } from '../report/junit.js';
import { renderMarkdown } from '../report/markdown.js';
import { serializeReport, writeReport, type Report } from '../report/schema.js';
import { renderText } from '../report/text.js';
import { buildTrends, type Trend } from '../report/trend.js';
import { loadConfig } from '../config/load.js';
import { cliScope, confineIfInside, UNCONFINED, type PathScope } from '../io/confine.js';
import { ENGINE_ENV, engineEntry, enginePlan, runOnEngineThread } from '../engine-thread.js';
import { objectHeap, run, type InputOverride, type RunOptions, type RunOutcome } from '../run.js';
import { parseCommandArgs, printLine, writeOutput, type CliIo, type Command } from './command.js';

/** --baseline gh:auto: the base commit's report artifact on GitHub (a file of that name is ./gh:auto). */
const GH_AUTO = 'gh:auto';

export const FORMATS = ['text', 'json', 'markdown', 'junit', 'html'] as const;
export type Format = (typeof FORMATS)[number];

export interface CheckArgs {
  config: string;
  suites: string[];
  inputs: InputOverride[];
  format: Format;
  out?: string;
  report?: string;
  baseline?: string;
  artifactName: string;
  release: boolean;
  history?: string;
  trend: number;
  offenders?: number;
  quiet: boolean;
  color?: boolean;
  allowOutsideWorkspace: boolean;
  /** --partial FILE: write this shard's partial instead of judging gates. */
  partial?: string;
  /** merge's partials. */
  positionals: string[];
}

export const CHECK_USAGE = `Usage: groundgate [check] [options]

Scores a pipeline's traces against a frozen gold set and checks the gates in gates.yaml.

Options:
  -c, --config PATH        gates file (default: gates.yaml)
  -s, --suite NAME         run only this suite (repeatable)
  -i, --input [SUITE.]KEY=PATH
                           replace an input path of a suite, e.g. --input qa.traces=runs/new.jsonl
                           (PATH relative to the working directory; globs allowed)
  -f, --format FORMAT      text (default), json, markdown, junit or html
  -o, --out FILE           write the formatted output to FILE instead of stdout
      --report FILE        also write report.json to FILE
      --baseline FILE      compare with an earlier report.json: deltas, flips and max_drop gates;
                           gh:auto takes the report artifact of the merge base with origin's default
                           branch from GitHub, as the pull request's comment will (GITHUB_TOKEN)
      --artifact-name NAME the report artifact's name for gh:auto (default groundgate-report)
      --release            release sign-off: every gold set must match its lock (exit 2 otherwise)
      --history FILE       history of earlier runs (groundgate history append): trend charts in
                           markdown and html
      --trend N            runs shown in a trend, the current one included (default 20)
      --offenders N        how many offenders to list (default: offenders: in gates.yaml, else 10)
  -q, --quiet              print nothing when every gate passes
      --color, --no-color  force or disable colour (default: on for a terminal, off with NO_COLOR)
      --partial FILE       score this shard of the inputs (e.g. one job of a CI matrix) and write
                           what "groundgate merge" needs to FILE; no gate is judged, no report written
      --allow-outside-workspace
                           let paths in gates.yaml and --input lead outside the workspace (the git
                           repository of gates.yaml); for local use, never for untrusted configs
  -h, --help               show this help

Exit status: 0 every gate passed (with --partial: the partial was written), 1 a gate failed,
2 usage, configuration or input error.
`;

/** check's flags; with `merge`, the partials are the positionals, and flags that choose inputs are refused. */
export function parseCheckArgs(argv: readonly string[], merge?: { usage: string }): CheckArgs {
  const parsed = parseCommandArgs(
    argv,
    {
      config: { type: 'string', short: 'c' },
      suite: { type: 'string', short: 's', multiple: true },
      input: { type: 'string', short: 'i', multiple: true },
      format: { type: 'string', short: 'f' },
      out: { type: 'string', short: 'o' },
      report: { type: 'string' },
      baseline: { type: 'string' },
      'artifact-name': { type: 'string' },
      release: { type: 'boolean' },
      history: { type: 'string' },
      trend: { type: 'string' },
      offenders: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      color: { type: 'boolean' },
      'allow-outside-workspace': { type: 'boolean' },
      partial: { type: 'string' },
    },
    merge?.usage,
  );
  const { values, positionals } = parsed;
  if (merge) {
    const chooser = (['suite', 'input', 'partial'] as const).find((flag) => values[flag] !== undefined);
    if (chooser)
      throw new UsageError(
        `--${chooser} with merge: the partials say which suites and inputs were scored; expected it on "groundgate check --partial"`,
      );
  } else if (positionals.length)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.partial !== undefined) {
    const judging = (['report', 'baseline', 'history', 'out', 'format'] as const).find(
      (flag) => values[flag] !== undefined,
    );
    if (judging)
      throw new UsageError(
        `--${judging} with --partial: a partial judges no gate and writes no report; expected it on "groundgate merge"`,
      );
  }

  const format = (values.format ?? 'text') as Format;
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format ${JSON.stringify(values.format)}: expected one of ${FORMATS.join(', ')}`);
  }
  const offenders = wholeNumber('--offenders', values.offenders);
  return {
    config: values.config ?? 'gates.yaml',
    suites: values.suite ?? [],
    inputs: (values.input ?? []).map(parseOverride),
    format,
    out: values.out,
    report: values.report,
    baseline: values.baseline,
    artifactName: values['artifact-name'] ?? 'groundgate-report',
    release: values.release ?? false,
    history: values.history,
    trend: wholeNumber('--trend', values.trend) ?? 20,
    offenders,
    quiet: values.quiet ?? false,
    color: values.color,
    allowOutsideWorkspace: values['allow-outside-workspace'] ?? false,
    ...(values.partial !== undefined ? { partial: values.partial } : {}),
    positionals,
  };
}

function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a whole number`);
  return Number(text);
}

function parseOverride(text: string): InputOverride {
  const m = /^(?:([A-Za-z][A-Za-z0-9_.-]*?)\.)?([a-z_]+)=(.+)$/.exec(text);
  if (!m)
    throw new UsageError(
      `--input ${JSON.stringify(text)}: expected [SUITE.]KEY=PATH, e.g. qa.traces=runs/new.jsonl`,
    );
  return { suite: m[1], key: m[2]!, path: m[3]! };
}

/**
 * Where the config's paths may lead; and the files named on the command line, which may be anywhere but not
 * out through a link in the workspace, checked against it.
 */
export function commandScope(args: CheckArgs): PathScope {
  const scope = args.allowOutsideWorkspace ? UNCONFINED : cliScope(args.config);
  const own = (flag: string, file: string | undefined) =>
    file !== undefined && confineIfInside(path.resolve(file), scope, file, { file: flag });
  own('--report', args.report);
  own('--out', args.out);
  own('--history', args.history);
  own('--partial', args.partial);
  if (args.baseline !== GH_AUTO) own('--baseline', args.baseline);
  return scope;
}

/** The default command: score every suite and check its gates. */
export const checkCommand: Command = {
  name: 'check',
  summary: 'score the suites in gates.yaml and check their gates (the default)',
  usage: CHECK_USAGE,
  async run(argv, io) {
    const args = parseCheckArgs(argv);
    const scope = commandScope(args);
    const ghAuto = args.baseline === GH_AUTO;
    const options: RunOptions = {
      config: args.config,
      suites: args.suites,
      inputs: args.inputs,
      baseline: ghAuto ? undefined : args.baseline,
      release: args.release,
      scope,
    };
    const entry = engineEntry(import.meta.url);
    const plan =
      entry &&
      (await enginePlan(io.env, () => {
        options.loaded = loadConfig(args.config, options.scope);
        return objectHeap(options, options.loaded);
      }));
    if (entry && plan) {
      const code = await runOnEngineThread(entry, ['check', ...argv], plan.limits);
      if (code !== undefined) return code;
      if (plan.explicit)
        io.stderr(
          `groundgate: note: the engine thread ran out of its ${plan.limits.maxOldGenerationSizeMb} MB heap (${ENGINE_ENV}); ran on the main thread\n`,
        );
    }
    if (args.partial !== undefined) return partial(args.partial, args, options, io);
    return check(args, options, io, run);
  },
};

async function partial(file: string, args: CheckArgs, options: RunOptions, io: CliIo): Promise<number> {
  const { writePartialRun } = await import('../partial/run.js');
  const { warnings } = await writePartialRun(file, options);
  if (!args.quiet) for (const w of warnings) printLine(io, `warning: ${w}`);
  return 0;
}

/** Runs (or merges) the suites, writes report.json, prints the formatted report; the exit status. */
export async function check(
  args: CheckArgs,
  options: RunOptions,
  io: CliIo,
  produce: (options: RunOptions) => Promise<RunOutcome>,
): Promise<number> {
  if (args.baseline === GH_AUTO)
    // Loaded for gh:auto only: the GitHub client and the unzip library are most of the CLI's size.
    options.baselineFound = await (
      await import('../github/local.js')
    ).localBaseline(path.dirname(path.resolve(args.config)), io.env, {
      name: args.artifactName,
      file: 'groundgate-report.json',
    });
  const outcome = await produce(options);
  const { report } = outcome;
  const offenders = args.offenders ?? outcome.config.offenders;
  const passed = report.verdict === 'pass';

  if (args.report) writeOutput(args.report, (file) => writeReport(file, report));
  // The text view shows suite warnings in its tables; other formats and files get them on stderr, and
  // warnings of no suite always go there.
  const warningsShown = args.format === 'text' && !args.out && !(args.quiet && passed);
  if (!args.quiet)
    for (const w of warningsShown ? outcome.runWarnings : outcome.warnings) printLine(io, `warning: ${w}`);

  const trends = args.history ? buildTrends(await readHistory(args.history), report, args.trend) : [];
  const text = format(report, args, offenders, io, trends);
  if (args.out) writeOutput(args.out, text);
  else if (!(args.quiet && passed)) io.stdout(text);
  return passed ? 0 : 1;
}

function format(report: Report, args: CheckArgs, offenders: number, io: CliIo, trends: Trend[]): string {
  switch (args.format) {
    case 'json':
      return serializeReport(report);
    case 'markdown':
      return renderMarkdown(report, {
        offenders,
        now: Date.now(),
        fullReportHint: args.report ?? 'report.json (--report FILE)',
        trends,
      });
    case 'junit':
      return renderJunit(report);
    case 'html':
      return renderHtml(report, { trends, now: Date.now() });
    case 'text': {
      const color = args.color ?? (io.isTty && !args.out && io.env.NO_COLOR === undefined);
      return renderText(report, {
        offenders,
        color,
        showOffendersOnPass: args.offenders !== undefined,
        now: Date.now(),
      });
    }
  }
}
