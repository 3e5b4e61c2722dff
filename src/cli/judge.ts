import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { UNCONFINED } from '../io/confine.js';
import { metricsToCompute, prepareRun, scoreContext, suiteInputs, type RunSetup } from '../run.js';
import type { LoadedSuite } from '../suites/types.js';
import { judgeModel, spendBudget } from '../claims/judge-endpoint.js';
import { writeJudgments } from '../claims/judgments-cache.js';
import { answerQuestions, NO_MODEL, noPriceForCostBudget, whyUnjudged } from '../claims/questions.js';
import { semanticSettings } from '../claims/semantic.js';
import { asksJudge } from '../claims/rules/index.js';
import { JUDGE_MAX_TOKENS } from '../claims/judge-client.js';
import { judgeMessages } from '../claims/judge-prompt.js';
import {
  CHARS_PER_TOKEN,
  estimateRequest,
  predictRequests,
  spendParts,
  spendReport,
  usd,
} from '../claims/judge-spend.js';
import { costOf, priceOf } from '../cost/pricing.js';
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
    'dry-run': {
      type: 'boolean',
      help: "send nothing: print how many judgments the file lacks, the requests they need, their estimated tokens and the cost at the judge model's price in claims.pricing",
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
    '0 the judgments file answers every question (--dry-run: always, nothing having been asked), 1 some stayed unjudged (no key, the budget, failed requests: listed), 2 usage, configuration or input error.',
  example: 'groundgate judge --suite qa --dry-run',
});

export const judgeCommand = commandOf(JUDGE, async (argv, io: CliIo) => {
  const { values, positionals } = parseOptions(JUDGE, argv);
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const scope = values['allow-outside-workspace'] ? UNCONFINED : undefined;
  const config = loadConfig(values.config, scope);
  const setup = prepareRun({ config: values.config, suites: values.suite ?? [], loaded: config });
  const suites = setup.selected.filter(
    (s) => s.kind.kind === 'grounded-qa' && asksJudge((s.config as GroundedQaConfig).claims),
  );
  if (suites.length === 0) throw new UsageError('no selected suite has claims: {match: semantic}');
  if (!judgeModel(io.env).model)
    throw new UsageError(`${NO_MODEL}; expected the model whose judgments to record (part of every key)`);
  if (values['dry-run'] && values.prune)
    throw new UsageError('--dry-run writes nothing; expected it without --prune');
  let complete = true;
  for (const suite of suites) {
    const done = values['dry-run']
      ? await predictSuite(setup, suite, io)
      : await recordSuite(setup, suite, io, values.prune ?? false);
    complete = done && complete;
  }
  return complete || values['dry-run'] ? 0 : 1;
});

/** A suite's questions, answered from the judgments file, and by the endpoint unless `ask` is false. */
async function suiteQuestions(setup: RunSetup, suite: LoadedSuite, io: CliIo, ask: boolean) {
  const suiteConfig = suite.config as GroundedQaConfig;
  const inputs = await suiteInputs(suite, setup.config, []);
  const ctx = scoreContext(setup, suite, inputs, metricsToCompute(suite));
  const judged = await judgeSuite(suiteConfig, ctx);
  const settings = semanticSettings(suiteConfig.claims!, ctx.resolvePath);
  const answered = await answerQuestions(judged, ctx, settings, io.env, undefined, ask);
  for (const w of answered.warnings) printLine(io, `${suite.name}: ${w}`);
  return { settings, answered };
}

/**
 * Prints what recording a suite's missing judgments would send and spend (judge-spend.ts says how it is
 * estimated), asking nothing; true.
 */
async function predictSuite(setup: RunSetup, suite: LoadedSuite, io: CliIo): Promise<true> {
  const { settings, answered } = await suiteQuestions(setup, suite, io, false);
  const { plan, consulted, model } = answered;
  const missing = plan.asks.filter((a) => !consulted.cache.has(a.key));
  const price = priceOf(settings.pricing, model);
  const budget = spendBudget(io.env);
  if (budget.maxCostUsd !== undefined && !price) throw noPriceForCostBudget(model ?? '');
  const predicted = predictRequests(
    missing.map((a) => estimateRequest(judgeMessages(a.question))),
    { ...budget, price },
  );
  const asks = plan.asks.length;
  const file = setup.relative(settings.cache);
  const { tokensIn, tokensOut } = predicted.estimated;
  const left = missing.length - predicted.requests;
  const cut = left > 0 ? `, ${left} left unjudged (${predicted.stoppedBy})` : '';
  const cost = price
    ? `, ~$${usd(costOf(predicted.estimated, price))} at ${model}'s price`
    : `; no price for ${model} in claims.pricing`;
  io.stdout(
    `${suite.name}: ${asks} question${asks === 1 ? '' : 's'}: ${asks - missing.length} answered in ${file}, ${missing.length} missing: ${plural(predicted.requests, 'request')}${cut}; ~${tokensIn} tokens in (${CHARS_PER_TOKEN} characters a token), at most ${tokensOut} out (${JUDGE_MAX_TOKENS} a request)${cost}\n`,
  );
  return true;
}

/** Records a suite's missing judgments (and prunes); false when some stayed unjudged. */
async function recordSuite(setup: RunSetup, suite: LoadedSuite, io: CliIo, prune: boolean): Promise<boolean> {
  const { settings, answered } = await suiteQuestions(setup, suite, io, true);
  const { plan, consulted } = answered;
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
  if (consulted.spend.requests > 0)
    io.stdout(
      `${suite.name}: the judge: ${spendParts(
        spendReport(consulted.spend, answered.model, settings.pricing),
        answered.model,
        priceOf(settings.pricing, answered.model) !== undefined,
      ).join(', ')}\n`,
    );
  if (unjudged.size > 0) {
    printLine(
      io,
      `${suite.name}: ${unjudged.size} unjudged (${whyUnjudged(unjudged.values())}); run groundgate judge again to ask them`,
    );
  }
  return unjudged.size === 0;
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
