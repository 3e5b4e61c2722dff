import { writeFileSync } from 'node:fs';
import { InputError, UsageError } from '../errors.js';
import { renderJunit } from '../report/junit.js';
import { renderMarkdown } from '../report/markdown.js';
import { serializeReport, type Report } from '../report/schema.js';
import { renderText } from '../report/text.js';
import { run } from '../run.js';
import { VERSION } from '../version.js';
import { HELP, parseCli, type CheckArgs } from './args.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTty: boolean;
  env: NodeJS.ProcessEnv;
}

/** Runs the CLI and returns its exit status: 0 pass, 1 a gate failed, 2 usage or input error. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const args = parseCli(argv);
    if (args.command === 'help') {
      io.stdout(HELP);
      return 0;
    }
    if (args.command === 'version') {
      io.stdout(`${VERSION}\n`);
      return 0;
    }
    return await check(args, io);
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`groundgate: ${err.message}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      io.stderr(`groundgate: ${err.message} (see groundgate --help)\n`);
      return 2;
    }
    // Not the user's fault: keep the stack, it is what a bug report needs.
    io.stderr(`groundgate: internal error: ${(err as Error).stack ?? String(err)}\n`);
    return 2;
  }
}

async function check(args: CheckArgs, io: CliIo): Promise<number> {
  const outcome = await run({
    config: args.config,
    suites: args.suites,
    inputs: args.inputs,
    baseline: args.baseline,
  });
  const { report } = outcome;
  const offenders = args.offenders ?? outcome.config.offenders;
  const passed = report.verdict === 'pass';

  if (args.report) writeOutput(args.report, serializeReport(report));
  // The text view shows warnings in its tables; other formats and files get them on stderr.
  const warningsShown = args.format === 'text' && !args.out && !(args.quiet && passed);
  if (!args.quiet && !warningsShown)
    for (const w of outcome.warnings) io.stderr(`groundgate: warning: ${w}\n`);

  const text = format(report, args, offenders, io);
  if (args.out) writeOutput(args.out, text);
  else if (!(args.quiet && passed)) io.stdout(text);
  return passed ? 0 : 1;
}

function format(report: Report, args: CheckArgs, offenders: number, io: CliIo): string {
  switch (args.format) {
    case 'json':
      return serializeReport(report);
    case 'markdown':
      return renderMarkdown(report, {
        offenders,
        fullReportHint: args.report ?? 'report.json (--report FILE)',
      });
    case 'junit':
      return renderJunit(report);
    case 'text': {
      const color = args.color ?? (io.isTty && !args.out && io.env.NO_COLOR === undefined);
      return renderText(report, { offenders, color, showOffendersOnPass: args.offenders !== undefined });
    }
  }
}

function writeOutput(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (err) {
    throw new InputError({ file }, `cannot write output (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
