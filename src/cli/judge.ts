import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { UNCONFINED } from '../io/confine.js';
import { metricsToCompute, prepareRun, scoreContext, suiteInputs, type RunSetup } from '../run.js';
import type { LoadedSuite } from '../suites/types.js';
import { judgeModel } from '../claims/judge-endpoint.js';
import { writeJudgments } from '../claims/judgments-cache.js';
import { answerQuestions, NO_MODEL, whyUnjudged } from '../claims/questions.js';
import { semanticSettings } from '../claims/semantic.js';
import type { GroundedQaConfig } from '../suites/grounded-qa/config.js';
import { judgeSuite } from '../suites/grounded-qa/judged.js';
import { commandOf, printLine, type CliIo } from './command.js';
import { CONFIG_OPTION, suiteOption, declareCommand, parseOptions } from './options.js';

const JUDGE = declareCommand({
  name: 'judge',
  summary: "record the judge's missing verdicts for semantic claim matching, without gating",
  usage: 'groundgate judge [options]',
  description:
    "For each grounded-qa suite with claims: {match: semantic}, judges the suite's traces as check does, then asks the judge (GROUNDGATE_JUDGE_BASE_URL, GROUNDGATE_JUDGE_API_KEY, GROUNDGATE_JUDGE_MODEL) every question a check would ask that the judgments file (claims.cache) does not answer yet, and writes the answers to it, sorted by key. No gate is judged, no report written. Commit the file: check then reads its verdicts without a request. GROUNDGATE_JUDGE_MODEL is needed even without a key, since it is part of every judgment's key.",
  options: {
    config: CONFIG_OPTION,
    suite: suiteOption('only this suite (repeatable; default: every suite with claims: {match: semantic})'),
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
  if (!judgeModel(io.env).model)
    throw new UsageError(`${NO_MODEL}; expected the model whose judgments to record (part of every key)`);
  let complete = true;
  for (const suite of suites)
    complete = (await recordSuite(setup, suite, io, values.prune ?? false)) && complete;
  return complete ? 0 : 1;
});

/** Records a suite's missing judgments (and prunes); false when some stayed unjudged. */
async function recordSuite(setup: RunSetup, suite: LoadedSuite, io: CliIo, prune: boolean): Promise<boolean> {
  const suiteConfig = suite.config as GroundedQaConfig;
  const inputs = await suiteInputs(suite, setup.config, []);
  const ctx = scoreContext(setup, suite, inputs, metricsToCompute(suite));
  const judged = await judgeSuite(suiteConfig, ctx);
  const settings = semanticSettings(suiteConfig.claims!, ctx.resolvePath);
  const { plan, consulted, warnings } = await answerQuestions(judged, ctx, settings, io.env);
  for (const w of warnings) printLine(io, `${suite.name}: ${w}`);
  let pruned = '';
  if (prune) {
    const asked = new Set(plan.asks.map((a) => a.key));
    const kept = [...consulted.cache.values()].filter((j) => asked.has(j.key));
    const dropped = consulted.cache.size - kept.length;
    if (dropped) await writeJudgments(settings.cache, kept);
    pruned = `; pruned ${dropped} line${dropped === 1 ? '' : 's'}`;
  }
  const file = setup.relative(settings.cache);
  const asks = plan.asks.length;
  const { unjudged } = consulted;
  io.stdout(
    `${suite.name}: ${asks} question${asks === 1 ? '' : 's'}: ${asks - consulted.missing} answered in ${file}, ${consulted.fresh.length} recorded now, ${unjudged.size} unjudged${pruned}\n`,
  );
  if (unjudged.size > 0) {
    printLine(
      io,
      `${suite.name}: ${unjudged.size} unjudged (${whyUnjudged(unjudged.values())}); run groundgate judge again to ask them`,
    );
  }
  return unjudged.size === 0;
}
