import path from 'node:path';
import { UsageError } from '../errors.js';
import { readHistory } from '../history/history.js';
import { renderHtml } from '../report/html.js';
import { renderJunit } from '../report/junit.js';
import { renderMarkdown } from '../report/markdown.js';
import { serializeReport, writeReport, type Report } from '../report/schema.js';
import { renderText, verdictLines } from '../report/text.js';
import { headlines, verdictLine } from '../report/format.js';
import { buildTrends, type Trend } from '../report/trend.js';
import { loadConfig } from '../config/load.js';
import { cliScope, confineIfInside, UNCONFINED, type PathScope } from '../io/confine.js';
import { ENGINE_ENV, engineEntry, enginePlan, runOnEngineThread } from '../engine-thread.js';
import { objectHeap, run, type InputOverride, type RunOptions, type RunOutcome } from '../run.js';
import { describeWritten, writeCommittedBaseline } from '../baseline/write.js';
import { commandOf, printLine, writeOutput, type CliIo, type Command } from './command.js';
import { refuseInputsAsOutputs, runInputs, type RunInput } from '../run-inputs.js';
import { CONFIG_OPTION, suiteOption, declareCommand, parseOptions } from './options.js';

/** --baseline gh:auto: the base commit's report artifact on GitHub (a file of that name is ./gh:auto). */
const GH_AUTO = 'gh:auto';

export const FORMATS = ['text', 'json', 'markdown', 'junit', 'html'] as const;
export type Format = (typeof FORMATS)[number];

/** One rendering of the report: to `file`, or to stdout without one. */
export interface Output {
  format: Format;
  file?: string;
  /** The flag that named the file, for errors about it. */
  flag?: string;
}

export interface CheckArgs {
  config: string;
  suites: string[];
  inputs: InputOverride[];
  /** Every format asked for, each rendered from the one report; at most one without a file. */
  outputs: Output[];
  report?: string;
  baseline?: string;
  artifactName: string;
  release: boolean;
  /** --update-baseline: write .groundgate/baseline.jsonl from this run. */
  updateBaseline: boolean;
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

/** check's options; merge declares them but those that choose the inputs (see merge.ts). */
export const CHECK_OPTIONS = {
  config: CONFIG_OPTION,
  suite: suiteOption('run only this suite (repeatable)'),
  input: {
    short: 'i',
    type: 'string',
    multiple: true,
    arg: '[SUITE.]KEY=PATH',
    help: 'replace an input path of a suite, e.g. --input qa.traces=runs/new.jsonl (PATH relative to the working directory; globs allowed)',
  },
  format: {
    short: 'f',
    type: 'string',
    multiple: true,
    arg: 'FORMAT[=FILE]',
    help: 'text (default), json, markdown, junit or html; repeatable, each to its own FILE and at most one to stdout, e.g. --format text --format html=report.html --format junit=junit.xml',
  },
  out: {
    short: 'o',
    type: 'string',
    arg: 'FILE',
    help: 'write the format given without =FILE to FILE instead of stdout',
  },
  output: { type: 'string', arg: 'FILE', help: 'the same as --out' },
  report: { type: 'string', arg: 'FILE', help: 'also write report.json to FILE' },
  baseline: {
    type: 'string',
    arg: 'FILE',
    help: "compare with an earlier report.json: deltas, flips, max_drop and max_new_failures gates; gh:auto takes the report artifact of the merge base with origin's default branch from GitHub, as the pull request's comment will (GITHUB_TOKEN). Without it, or when gh:auto finds none, the committed .groundgate/baseline.jsonl beside gates.yaml (groundgate baseline), if there is one",
  },
  'artifact-name': {
    type: 'string',
    arg: 'NAME',
    default: 'groundgate-report',
    help: "the report artifact's name for gh:auto",
  },
  'update-baseline': {
    type: 'boolean',
    help: 'after the check, write .groundgate/baseline.jsonl from this run (as "groundgate baseline" does); the exit status is still the gates\'',
  },
  release: {
    type: 'boolean',
    help: 'release sign-off: every gold set must match its lock, and .groundgate/baseline.jsonl must be one made for these gold sets (exit 2 otherwise)',
  },
  history: {
    type: 'string',
    arg: 'FILE',
    help: 'history of earlier runs (groundgate history append): trend charts in markdown and html',
  },
  trend: { type: 'string', arg: 'N', default: '20', help: 'runs shown in a trend, the current one included' },
  offenders: {
    type: 'string',
    arg: 'N',
    help: 'how many offenders to list (default: offenders: in gates.yaml, else 10)',
  },
  quiet: {
    short: 'q',
    type: 'boolean',
    help: 'print nothing when every gate passes; on a failure, only the verdict line and the failed gates (no tables, no warnings)',
  },
  color: {
    type: 'boolean',
    negatable: true,
    help: 'force or disable colour (default: on for a terminal, off with NO_COLOR)',
  },
  partial: {
    type: 'string',
    arg: 'FILE',
    help: 'score this shard of the inputs (e.g. one job of a CI matrix) and write what "groundgate merge" needs to FILE; no gate is judged, no report written',
  },
  'allow-outside-workspace': {
    type: 'boolean',
    help: 'let paths in gates.yaml and --input lead outside the workspace (the git repository of gates.yaml); for local use, never for untrusted configs',
  },
} as const;

const CHECK = declareCommand({
  name: 'check',
  summary: 'score the suites in gates.yaml and check their gates (the default)',
  usage: 'groundgate [check] [options]',
  description:
    "Scores a pipeline's traces against a frozen gold set and checks the gates in gates.yaml. The report is rendered once for every --format. Unless --quiet, the verdict line is printed too: on stdout when every format goes to a file, on stderr when json, markdown, junit or html goes to stdout (which stays parseable). With --quiet a pass prints nothing and a failure prints, in that place, the verdict line and a line for each failed gate (the text view to stdout shows only these); formats to files are written in full.",
  options: CHECK_OPTIONS,
  exitStatus:
    '0 every gate passed (with --partial: the partial was written), 1 a gate failed, 2 usage, configuration or input error.',
  example: 'groundgate check --format text --format html=report.html --format junit=junit.xml',
});

/** check's flags; with `merge`, the partials are the positionals, and flags that choose inputs are refused. */
export function parseCheckArgs(argv: readonly string[], merge = false): CheckArgs {
  // merge reads check's options, so that --suite or --input says why it has no place in a merge.
  const { values, positionals, given } = parseOptions(CHECK, argv);
  if (merge) {
    const chooser = (['suite', 'input', 'partial'] as const).find((flag) => given.has(flag));
    if (chooser)
      throw new UsageError(
        `--${chooser} with merge: the partials say which suites and inputs were scored; expected it on "groundgate check --partial"`,
      );
  } else if (positionals.length)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.partial !== undefined) {
    const judging = (
      ['report', 'baseline', 'history', 'out', 'output', 'format', 'update-baseline'] as const
    ).find((flag) => given.has(flag));
    if (judging)
      throw new UsageError(
        `--${judging} with --partial: a partial judges no gate and writes no report; expected it on "groundgate merge"`,
      );
  }
  if (values['update-baseline'] && values.suite?.length)
    throw new UsageError(
      '--update-baseline with --suite: the baseline holds every suite, and would lose the others; expected --update-baseline alone',
    );
  if (values.out !== undefined && values.output !== undefined)
    throw new UsageError('--out and --output: both name the file of one format; expected one of them');
  const out =
    values.out !== undefined
      ? { file: values.out, flag: '--out' }
      : values.output !== undefined
        ? { file: values.output, flag: '--output' }
        : undefined;
  if (out?.file === '') throw new UsageError(`${out.flag}: no file named; expected ${out.flag} FILE`);
  return {
    config: values.config,
    suites: values.suite ?? [],
    inputs: (values.input ?? []).map(parseOverride),
    outputs: parseOutputs(values.format ?? ['text'], out),
    report: values.report,
    baseline: values.baseline,
    artifactName: values['artifact-name'],
    release: values.release ?? false,
    updateBaseline: values['update-baseline'] ?? false,
    history: values.history,
    trend: wholeNumber('--trend', values.trend)!,
    offenders: wholeNumber('--offenders', values.offenders),
    quiet: values.quiet ?? false,
    color: values.color,
    allowOutsideWorkspace: values['allow-outside-workspace'] ?? false,
    ...(values.partial !== undefined ? { partial: values.partial } : {}),
    positionals,
  };
}

/**
 * `--format FORMAT[=FILE]`, repeatable, and `-o FILE` for the one given without a file (eslint's and
 * vitest's way): each format goes where it was asked to, and at most one of them to stdout.
 */
function parseOutputs(formats: readonly string[], out: { file: string; flag: string } | undefined): Output[] {
  const outputs = formats.map(parseFormat);
  const bare = outputs.filter((o) => o.file === undefined);
  if (out) {
    if (bare.length !== 1)
      throw new UsageError(
        bare.length === 0
          ? `${out.flag} ${JSON.stringify(out.file)}: every --format names its own file; expected ${out.flag} beside one --format without =FILE`
          : `${out.flag} ${JSON.stringify(out.file)}: ${bare.length} formats without =FILE (${bare.map((o) => o.format).join(', ')}); expected FORMAT=FILE for all but one`,
      );
    Object.assign(bare[0]!, out);
  } else if (bare.length > 1) {
    const [a, b] = bare as [Output, Output];
    throw new UsageError(
      `--format ${a.format} and --format ${b.format}: both would write to stdout; expected FORMAT=FILE for all but one, e.g. --format ${b.format}=${EXAMPLE_FILE[b.format]}`,
    );
  }
  const written = new Map<string, Output>();
  for (const o of outputs) {
    if (o.file === undefined) continue;
    const other = written.get(path.resolve(o.file));
    if (other)
      throw new UsageError(
        `--format ${other.format} and --format ${o.format}: both write ${JSON.stringify(o.file)}; expected a file for each`,
      );
    written.set(path.resolve(o.file), o);
  }
  return outputs;
}

const EXAMPLE_FILE: Record<Format, string> = {
  text: 'check.txt',
  json: 'report.json',
  markdown: 'report.md',
  junit: 'junit.xml',
  html: 'report.html',
};

function parseFormat(text: string): Output {
  const eq = text.indexOf('=');
  const format = (eq === -1 ? text : text.slice(0, eq)) as Format;
  if (!FORMATS.includes(format))
    throw new UsageError(`--format ${JSON.stringify(text)}: expected one of ${FORMATS.join(', ')}`);
  if (eq === -1) return { format };
  const file = text.slice(eq + 1);
  if (!file)
    throw new UsageError(`--format ${JSON.stringify(text)}: no file after "="; expected FORMAT=FILE`);
  return { format, file, flag: `--format ${format}` };
}

function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a whole number`);
  return Number(text);
}

export function parseOverride(text: string): InputOverride {
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
  for (const o of args.outputs) own(o.flag ?? '--out', o.file);
  own('--history', args.history);
  own('--partial', args.partial);
  if (args.baseline !== GH_AUTO) own('--baseline', args.baseline);
  return scope;
}

/** The default command: score every suite and check its gates. */
export const checkCommand: Command = commandOf(CHECK, async (argv, io) => {
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
  await refuseOwnInputs(args, options);
  if (args.partial !== undefined) return partial(args.partial, args, options, io);
  return check(args, options, io, run);
});

/**
 * Exit 2 before anything is written when a file the user named for check or merge to write (--report, a
 * --format's, --partial) is one the run reads: its inputs, the history, and `alsoRead` (merge's partials).
 */
export async function refuseOwnInputs(
  args: CheckArgs,
  options: RunOptions,
  alsoRead: readonly RunInput[] = [],
): Promise<void> {
  const outputs = [
    { flag: '--report', file: args.report },
    ...args.outputs.map((o) => ({ flag: o.flag ?? '--out', file: o.file })),
    { flag: '--partial', file: args.partial },
  ];
  // Nothing named to write (everything to stdout): the inputs need not be resolved twice.
  if (outputs.every((o) => o.file === undefined)) return;
  const reads = [...(await runInputs(options)), ...alsoRead];
  if (args.history !== undefined) reads.push({ file: args.history, what: 'the history' });
  refuseInputsAsOutputs(outputs, reads);
}

async function partial(file: string, args: CheckArgs, options: RunOptions, io: CliIo): Promise<number> {
  const { writePartialRun } = await import('../partial/run.js');
  const { warnings } = await writePartialRun(file, options);
  if (!args.quiet) for (const w of warnings) printLine(io, `warning: ${w}`);
  return 0;
}

/**
 * Runs (or merges) the suites, writes report.json, renders the report in each format asked for and prints
 * the verdict; the exit status.
 */
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
  const passed = report.verdict === 'pass';
  const silent = args.quiet && passed;

  if (args.report) writeOutput(args.report, (file) => writeReport(file, report));
  if (args.updateBaseline) {
    const written = writeCommittedBaseline(report, outcome.config.dir, outcome.config.scope, io.env);
    if (!args.quiet || written.status === 'written') printLine(io, describeWritten(written));
  }
  const shown = args.outputs.find((o) => o.file === undefined);
  // The text view shows suite warnings in its tables; other formats and files get them on stderr, and
  // warnings of no suite always go there.
  const warningsShown = shown?.format === 'text' && !silent;
  if (!args.quiet)
    for (const w of warningsShown ? outcome.runWarnings : outcome.warnings) printLine(io, `warning: ${w}`);
  // Not even --quiet hides that the ids met no gold id: a pass over them is no pass.
  else for (const h of headlines(report)) printLine(io, `warning: ${h}`);

  const view: View = {
    report,
    args,
    offenders: args.offenders ?? outcome.config.offenders,
    trends: args.history ? buildTrends(await readHistory(args.history), report, args.trend) : [],
    now: Date.now(),
  };
  for (const o of args.outputs) {
    // Colour only where a terminal shows it, unless asked for.
    const color = args.color ?? (o.file === undefined && io.isTty && io.env.NO_COLOR === undefined);
    if (o.file !== undefined) writeOutput(o.file, render(o.format, view, color));
    else if (args.quiet && o.format === 'text') {
      if (!silent) io.stdout(`${verdictLines(report, color).join('\n')}\n`);
    } else if (!silent) io.stdout(render(o.format, view, color));
  }
  // The text view ends with the verdict; beside anything else, a line says it, off stdout if stdout is data.
  // --quiet silences a pass, and tells a failure by its verdict and failed gates only (eslint's --quiet).
  if (!silent && shown?.format !== 'text') {
    const lines = args.quiet ? verdictLines(report, false) : [verdictLine(report.gates)];
    if (shown) for (const line of lines) printLine(io, line);
    else io.stdout(`${lines.join('\n')}\n`);
  }
  return passed ? 0 : 1;
}

/** What every format is rendered from: computed once. */
interface View {
  report: Report;
  args: CheckArgs;
  offenders: number;
  trends: Trend[];
  now: number;
}

function render(format: Format, { report, args, offenders, trends, now }: View, color: boolean): string {
  switch (format) {
    case 'json':
      return serializeReport(report);
    case 'markdown':
      return renderMarkdown(report, {
        offenders,
        now,
        fullReportHint: args.report ?? 'report.json (--report FILE)',
        trends,
      });
    case 'junit':
      return renderJunit(report);
    case 'html':
      return renderHtml(report, { trends, now });
    case 'text':
      return renderText(report, { offenders, color, showOffendersOnPass: args.offenders !== undefined, now });
  }
}
