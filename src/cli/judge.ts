import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { UNCONFINED } from '../io/confine.js';
import { metricsToCompute, prepareRun, scoreContext, suiteInputs } from '../run.js';
import { recordJudgments, semanticSettings } from '../claims/semantic.js';
import type { GroundedQaConfig } from '../suites/grounded-qa/index.js';
import { judgeSuite } from '../suites/grounded-qa/judged.js';
import { printLine, type CliIo } from './command.js';
import { commandOf, declareCommand, parseOptions } from './options.js';

const JUDGE = declareCommand({
  name: 'judge',
  summary: "record the judge's missing verdicts for semantic claim matching, without gating",
  usage: 'groundgate judge [options]',
  description:
    "For each grounded-qa suite with claims: {match: semantic}, judges the suite's traces as check does, then asks the judge (GROUNDGATE_JUDGE_BASE_URL, GROUNDGATE_JUDGE_API_KEY, GROUNDGATE_JUDGE_MODEL) every question a check would ask that the judgments file (claims.cache) does not answer yet, and writes the answers to it, sorted by key. No gate is judged, no report written. Commit the file: check then reads its verdicts without a request. GROUNDGATE_JUDGE_MODEL is needed even without a key, since it is part of every judgment's key.",
  options: {
    config: { short: 'c', type: 'string', arg: 'PATH', default: 'gates.yaml', help: 'gates file' },
    suite: {
      short: 's',
      type: 'string',
      multiple: true,
      arg: 'NAME',
      help: 'only this suite (repeatable; default: every suite with claims: {match: semantic})',
    },
    prune: {
      type: 'boolean',
      help: 'also drop the lines of the judgments file that no question of this run refers to (claims or gold since edited)',
    },
    'allow-outside-workspace': {
      type: 'boolean',
      help: 'let paths in gates.yaml lead outside the workspace (the git repository of gates.yaml); for local use, never for untrusted configs',
    },
  },
  exitStatus:
    '0 the judgments file answers every question, 1 some stayed unjudged (no key, the budget, failed requests: listed), 2 usage, configuration or input error.',
  example: 'groundgate judge --suite qa --prune',
});

export const judgeCommand = commandOf(JUDGE, async (argv, io: CliIo) => {
  const { values, positionals } = parseOptions(JUDGE, argv);
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const scope = values['allow-outside-workspace'] ? UNCONFINED : undefined;
  const config = loadConfig(values.config, scope);
  const setup = prepareRun({ config: values.config, suites: values.suite ?? [], loaded: config });
  const suites = setup.selected.filter(
    (s) => s.kind.kind === 'grounded-qa' && (s.config as GroundedQaConfig).claims?.match === 'semantic',
  );
  if (suites.length === 0) throw new UsageError('no selected suite has claims: {match: semantic}');
  let complete = true;
  for (const suite of suites) {
    const suiteConfig = suite.config as GroundedQaConfig;
    const inputs = await suiteInputs(suite, config, []);
    const ctx = scoreContext(setup, suite, inputs, metricsToCompute(suite));
    const judged = await judgeSuite(suiteConfig, ctx);
    const settings = semanticSettings(suiteConfig.claims!, ctx.resolvePath);
    const r = await recordJudgments(judged, settings, ctx, io.env, { prune: values.prune ?? false });
    for (const w of r.warnings) printLine(io, `${suite.name}: ${w}`);
    const file = setup.relative(settings.cache);
    io.stdout(
      `${suite.name}: ${r.asks} question${r.asks === 1 ? '' : 's'}: ${r.cached} answered in ${file}, ${r.fresh} recorded now, ${r.unjudged.size} unjudged${values.prune ? `; pruned ${r.pruned} line${r.pruned === 1 ? '' : 's'}` : ''}\n`,
    );
    if (r.unjudged.size > 0) {
      complete = false;
      const why = [...new Set(r.unjudged.values())].sort().join('; ');
      printLine(
        io,
        `${suite.name}: ${r.unjudged.size} unjudged (${why}); run groundgate judge again to ask them`,
      );
    }
  }
  return complete ? 0 : 1;
});
