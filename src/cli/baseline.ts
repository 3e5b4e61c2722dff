import { describeWritten, writeCommittedBaseline } from '../baseline/write.js';
import { BASELINE_FILE } from '../baseline/committed.js';
import { loadConfig } from '../config/load.js';
import { cliScope, UNCONFINED } from '../io/confine.js';
import { run } from '../run.js';
import { CHECK_OPTIONS, parseOverride } from './check.js';
import { commandOf } from './command.js';
import { declareCommand, parseOptions } from './options.js';

const BASELINE = declareCommand({
  name: 'baseline',
  summary: `write ${BASELINE_FILE}: the verdicts check compares with when no other baseline is found`,
  usage: 'groundgate baseline [options]',
  description: `Scores every suite of gates.yaml and writes ${BASELINE_FILE} beside it: a header (the gold sets' digests, the commit it was made at: GITHUB_SHA, else HEAD read from .git), then per suite one line of metric values and one line per item (its pass bit, gold digest prefix and per-item values), sorted. Commit it: check compares with it when neither --baseline nor the base commit's artifact gives a baseline, so a pull request and a local run are compared with the same verdicts. Run it again when a change of verdicts is intended; a file whose verdicts and values are unchanged is left as it is.`,
  options: {
    config: CHECK_OPTIONS.config,
    input: CHECK_OPTIONS.input,
    'allow-outside-workspace': CHECK_OPTIONS['allow-outside-workspace'],
  },
  exitStatus: '0 written (whatever the gates say), 2 usage, configuration or input error.',
  example: 'groundgate baseline && git add .groundgate/baseline.jsonl',
});

export const baselineCommand = commandOf(BASELINE, async (argv, io) => {
  const { values } = parseOptions(BASELINE, argv);
  const scope = values['allow-outside-workspace'] ? UNCONFINED : cliScope(values.config);
  const config = loadConfig(values.config, scope);
  const { report } = await run({
    config: values.config,
    loaded: config,
    scope,
    inputs: (values.input ?? []).map(parseOverride),
    committedBaseline: false,
  });
  io.stdout(`${describeWritten(writeCommittedBaseline(report, config.dir, scope, io.env))}\n`);
  return 0;
});
