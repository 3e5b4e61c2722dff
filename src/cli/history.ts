import { readFileSync } from 'node:fs';
import { InputError, UsageError } from '../errors.js';
import { appendEntry, entryFor, readHistory } from '../history/history.js';
import { reportSchema } from '../report/schema.js';
import { commandOf, type CliIo } from './command.js';
import { declareCommand, parseOptions } from './options.js';
import { refuseInputsAsOutputs } from '../run-inputs.js';
import { safeParse } from '../io/validate.js';

const HISTORY = declareCommand({
  name: 'history',
  summary: 'append a report to a history file (trend charts in markdown and html)',
  usage: 'groundgate history append REPORT --file FILE [--label TEXT]',
  description:
    'Appends a run\'s metrics and gates (from a report.json) as one line of a history file, e.g. on every merge to the default branch. "check --history FILE" then draws each gated metric over the last runs.',
  options: {
    file: { type: 'string', arg: 'FILE', help: 'the history file to append to (required; made if missing)' },
    label: {
      type: 'string',
      arg: 'TEXT',
      help: "the run's label (default: the commit, GITHUB_SHA's first 7 characters, else the date)",
    },
  },
  exitStatus: "0 appended, 2 usage or input error (a report or history file that is not groundgate's).",
  example: 'groundgate history append groundgate-report.json --file eval/history.jsonl',
});

export const historyCommand = commandOf(HISTORY, async (argv, io: CliIo) => {
  const { values, positionals } = parseOptions(HISTORY, argv);
  const [action, reportFile, ...rest] = positionals;
  if (action !== 'append' || !reportFile || rest.length || !values.file) {
    throw new UsageError(`expected: ${HISTORY.usage}`);
  }
  refuseInputsAsOutputs([{ flag: '--file', file: values.file }], [{ file: reportFile, what: 'the report' }]);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(reportFile, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      { file: reportFile },
      code ? `cannot read report (${code})` : 'not JSON; expected a report.json written by groundgate',
    );
  }
  const parsedReport = safeParse(reportSchema, data);
  if (!parsedReport.success) {
    const issue = parsedReport.error.issues[0]!;
    throw new InputError(
      { file: reportFile },
      `${issue.path.join('.') || 'report'}: ${issue.message}; expected a report.json written by groundgate`,
    );
  }
  await readHistory(values.file); // a corrupt history is reported before it grows
  const epoch = io.env.SOURCE_DATE_EPOCH;
  const now = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  const label = values.label ?? io.env.GITHUB_SHA?.slice(0, 7) ?? now.toISOString().slice(0, 10);
  appendEntry(values.file, entryFor(parsedReport.data, label, now.toISOString()));
  io.stdout(`appended ${label} (${parsedReport.data.verdict}) to ${values.file}\n`);
  return 0;
});
