import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import { SUITE_NAME } from '../config/load.js';
import { InputError, UsageError } from '../errors.js';
import { confineIfInside, scopeAt } from '../io/confine.js';
import { readHistory } from '../history/history.js';
import type { HistoryEntry } from '../history/schema.js';
import { renderMarkdown } from '../report/markdown.js';
import { writeReport, type Report } from '../report/schema.js';
import { renderText } from '../report/text.js';
import { buildTrends } from '../report/trend.js';
import { run, type RunOptions, type RunOutcome } from '../run.js';
import { refuseInputsAsOutputs, runInputs } from '../run-inputs.js';
import { mergeRun, partialFiles, writePartialRun } from '../partial/run.js';
import { annotationsFor } from './annotations.js';
import { appendSummary } from './summary.js';
import { seconds } from '../github/api-limits.js';
import { parseRepo, withApi } from '../github/client.js';
import { shortSha } from '../report/baseline-source.js';
import { escapeMarkdown } from '../report/escape.js';
import { explainCommentFailure, pullRequestOfRun, upsertStickyComment } from './comment.js';
import {
  decideComment,
  isForkPullRequest,
  triggeringRun,
  type CommentDecision,
  type EventInfo,
} from './event.js';
import { readInputs, type ActionInputs } from './inputs.js';
import { judgeEnvFromInputs, judgmentOutputs } from './judge-env.js';
// Loaded when a step reads other runs' artifacts: their unzip library starts a worker module at load.
const remote = () => import('./remote.js');

/** The Action: the CLI's engine, then a sticky PR comment, job summary, annotations and outputs. Returns the exit code. */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let inputs: ActionInputs;
  let outcome: RunOutcome;
  let files: { report: string; baseline?: string; history?: string };
  let history: HistoryEntry[] = [];
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const event = readEvent(env);
  try {
    inputs = readInputs();
    // The engine reads the judge from the environment (claims: {match: semantic}), never from gates.yaml.
    judgeEnvFromInputs(core.getInput, process.env);
    // A key typed into the workflow rather than taken from a secret is masked in the log all the same.
    if (process.env.GROUNDGATE_JUDGE_API_KEY) core.setSecret(process.env.GROUNDGATE_JUDGE_API_KEY);
    // gates.yaml may come from a fork: what it names must stay in the checkout. No input lifts this.
    const scope = scopeAt(workspace, 'GITHUB_WORKSPACE');
    // The workflow's own paths may go anywhere, but not out through a link planted in the checkout.
    const own = (input: string, value: string) =>
      confineIfInside(path.resolve(workspace, value), scope, value, { file: `input "${input}"` });
    files = {
      report: own('report', inputs.report),
      ...(inputs.baseline && inputs.baseline !== 'auto'
        ? { baseline: own('baseline', inputs.baseline) }
        : {}),
      ...(inputs.history && inputs.history !== 'auto' ? { history: own('history', inputs.history) } : {}),
    };
    if (inputs.mode === 'comment') return await relayComment(inputs, env, event, files.report);
    if (inputs.mode === 'partial') {
      const partial = own('partial', inputs.partial);
      const reads = await runInputs({
        config: path.resolve(workspace, inputs.config),
        scope,
        suites: inputs.suites,
      });
      refuseInputsAsOutputs([{ flag: 'input "partial"', file: partial, written: inputs.partial }], reads);
      return await writeShard(inputs, workspace, scope, partial);
    }
    if (inputs.mode === 'merge' && inputs.suites.length)
      throw new UsageError(
        'input "suites" with mode merge: the partials say which suites were scored; expected it on the partial jobs',
      );
    const options: RunOptions = {
      config: path.resolve(workspace, inputs.config),
      scope,
      suites: inputs.suites,
      baseline: files.baseline,
      baselineMissingOk: true,
      // Found before the run, in its own time budget: an API that fails leaves the max_drop gates skipped.
      baselineFound:
        inputs.baseline === 'auto' ? await (await remote()).autoBaseline(inputs, env, event) : undefined,
      release: inputs.release,
    };
    const partials = inputs.mode === 'merge' ? await partialFiles(inputs.partials, workspace, scope) : [];
    // Before anything is written: a report input naming the gold set replaced it and passed.
    refuseInputsAsOutputs(
      [{ flag: 'input "report"', file: files.report, written: inputs.report }],
      [
        ...(await runInputs(options)),
        ...partials.map((file) => ({ file, what: 'a partial' })),
        ...(files.history ? [{ file: files.history, what: 'the history' }] : []),
      ],
    );
    outcome = inputs.mode === 'merge' ? await mergeRun(partials, options) : await run(options);
    if (files.history) history = await readHistory(files.history);
  } catch (err) {
    return failedOnInput(err, workspace);
  }
  const { report, config } = outcome;
  const offenders = inputs.offenders ?? config.offenders;
  if (!writeReportFile(files.report, report)) return 2;
  logText(renderText(report, { offenders, color: false, now: Date.now() }));
  for (const w of outcome.warnings) core.warning(w);
  // Each function named: a computed member of the namespace (core[level]) would keep all of @actions/core,
  // undici with it, in the bundle (patches/@actions+core+3.0.1.patch lets the bundler drop what is unused).
  for (const a of annotationsFor(report, config.file, workspace))
    (a.level === 'error' ? core.error : core.warning)(a.message, a.properties);
  const failing = publishVerdict(report, files.report, inputs.failOnGate);
  const judgments = judgmentOutputs(report, config);
  if (judgments.files.length) {
    core.setOutput('judgments-file', judgments.files.join('\n'));
    core.setOutput('new-judgments', String(judgments.count));
  }

  // The verdict and outputs are written before any call for the trend or the comment: the API cannot hide or change them.
  const markdown = await summarize(report, inputs, env, event, {
    offenders,
    configPath: path.relative(workspace, config.file),
    run: runUrl(env, env.GITHUB_RUN_ID, env.GITHUB_RUN_ATTEMPT),
    fullReportHint: `the report.json artifact (${path.basename(files.report)})`,
    fileHistory: files.history ? history : undefined,
    // On a push the default branch's newest report may be this commit's own (a re-run): its point is "now".
    exclude: event.name === 'push' ? env.GITHUB_SHA : undefined,
  });
  await appendSummary(markdown);

  if (isForkPullRequest(event) && inputs.comment !== 'never') {
    core.info(
      'groundgate: no pull-request comment: a pull request from a fork runs with a read-only token; post it from a workflow_run workflow (README: "Pull requests from forks")',
    );
  } else {
    await comment(inputs, env, decideComment(inputs.comment, event, report.verdict === 'pass'), markdown);
  }
  return failing ? 1 : 0;
}

/**
 * mode: partial, one job of a matrix: scores its shard of the inputs and writes the partial that the merge
 * job gates (no gate is judged here, no comment posted). Outputs `partial`, the file's absolute path.
 */
async function writeShard(
  inputs: ActionInputs,
  workspace: string,
  scope: RunOptions['scope'],
  file: string,
): Promise<number> {
  const { warnings } = await writePartialRun(file, {
    config: path.resolve(workspace, inputs.config),
    scope,
    suites: inputs.suites,
    release: inputs.release,
  });
  for (const w of warnings) core.warning(w);
  core.setOutput('partial', file);
  core.info(
    `groundgate: wrote the partial ${path.relative(workspace, file)}; a job with mode: merge gates it`,
  );
  return 0;
}

/**
 * The comment's Markdown (and the job summary's): trends from history: auto (fetched now, after the
 * verdict and outputs) or from a history file, the report's sticky marker, the run it came from.
 */
async function summarize(
  report: Report,
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  event: EventInfo,
  options: {
    offenders: number;
    configPath: string;
    run: string | undefined;
    fullReportHint: string;
    fileHistory?: HistoryEntry[];
    exclude?: string;
  },
): Promise<string> {
  let trends: ReturnType<typeof buildTrends> = [];
  if (inputs.history === 'auto') {
    const found = await (await remote()).autoHistory(inputs, env, event, options.exclude);
    for (const w of found.warnings) core.warning(`groundgate: ${w}`);
    trends = buildTrends(found.history, report, inputs.historyRuns + 1);
  } else if (options.fileHistory) {
    trends = buildTrends(options.fileHistory, report);
  }
  const markdown = renderMarkdown(report, {
    offenders: options.offenders,
    marker: markerFor(options.configPath),
    footer: footer(env, report, options.run),
    fullReportHint: options.fullReportHint,
    trends,
    repoUrl: repoUrl(env),
    now: Date.now(),
  });
  return markdown;
}

/** An input or usage error: an annotation where it is, the step fails with exit 2; anything else is a bug. */
function failedOnInput(err: unknown, workspace: string): number {
  if (err instanceof InputError) {
    const where = err.where;
    core.error(
      err.detail,
      where?.line
        ? { file: path.relative(workspace, where.file), startLine: where.line, startColumn: where.column }
        : {},
    );
    core.setFailed(`groundgate: ${err.message}`);
    return 2;
  }
  if (err instanceof UsageError) {
    core.setFailed(`groundgate: ${err.message}`);
    return 2;
  }
  throw err;
}

function writeReportFile(file: string, report: Report | string): boolean {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof report === 'string') writeFileSync(file, report);
    else writeReport(file, report);
    return true;
  } catch (err) {
    core.setFailed(
      `groundgate: input "report": cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return false;
  }
}

/** The outputs, and the step's failure when a gate failed (and fail-on-gate). Returns whether it failed. */
function publishVerdict(report: Report, reportPath: string, failOnGate: boolean): boolean {
  const passed = report.verdict === 'pass';
  core.setOutput('passed', String(passed));
  // Skipped gates (max_drop without a baseline) are listed too, marked, so none vanishes unseen.
  core.setOutput(
    'failed-gates',
    JSON.stringify(
      report.gates
        .filter((g) => !g.passed || g.skipped)
        .map(({ suite, metric, op, threshold, value, reason, skipped }) => ({
          suite,
          metric,
          op,
          threshold,
          value,
          reason,
          ...(skipped ? { skipped } : {}),
        })),
    ),
  );
  core.setOutput('report', reportPath);
  core.setOutput(
    'metrics',
    JSON.stringify(
      Object.fromEntries(
        Object.entries(report.suites).map(([name, s]) => [
          name,
          Object.fromEntries(Object.entries(s.metrics).map(([m, v]) => [m, v.value])),
        ]),
      ),
    ),
  );
  const failing = !passed && failOnGate;
  if (failing) core.setFailed(`groundgate: ${report.gates.filter((g) => !g.passed).length} gate(s) failed`);
  return failing;
}

/** The sticky comment's hidden first line: one comment per config file, whichever workflow posts it. */
function markerFor(configPath: string): string {
  const key = path.posix.normalize(configPath.split(path.sep).join('/')).replace(/^(\.\/)+/, '');
  return `<!-- groundgate:${key.replace(/--/g, '-')} -->`;
}

/**
 * mode: comment, in a workflow_run workflow (trusted: the base repository's token, no checkout of the fork):
 * the triggering run's report artifact, as data checked against its schema, becomes the summary, the outputs
 * and the sticky comment on its pull request. The verdict is the pull request's own check; this step
 * reports it and exits 0 unless its inputs are wrong.
 */
async function relayComment(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  event: EventInfo,
  reportPath: string,
): Promise<number> {
  const triggering = triggeringRun(event);
  if (!triggering)
    throw new UsageError(
      `input "mode": comment posts the report of the run that triggered this workflow; expected a workflow_run event (on: workflow_run), found ${event.name || 'no event'}`,
    );
  const repo = parseRepo(event.repository);
  if (!repo) throw new UsageError('mode: comment needs GITHUB_REPOSITORY (owner/name)');
  if (!inputs.token) {
    core.warning('groundgate: mode: comment needs the github-token input to read the report artifact');
    return 0;
  }
  const { reportArtifact, runReport, explainApiFailure } = await remote();
  const found = await withApi(
    inputs.token,
    env,
    async (api) => {
      try {
        const { report, text } = await runReport(api, repo, triggering.id, reportArtifact(inputs, env));
        return { report, text, pr: await pullRequestOfRun(api.octokit, repo, triggering) };
      } catch (err) {
        return { warning: explainApiFailure(err, `reading the report of run ${triggering.id}`) };
      }
    },
    (ms) => ({
      warning: `the GitHub API took longer than ${seconds(ms)} to give the report of run ${triggering.id}`,
    }),
  );
  if ('warning' in found) {
    core.warning(`groundgate: ${found.warning}; no comment`);
    return 0;
  }
  const { report, text, pr } = found;
  const offenders = inputs.offenders ?? 10;
  // The artifact's own bytes (validated): the same report.json the pull request's run wrote.
  if (!writeReportFile(reportPath, text)) return 2;
  logText(renderText(report, { offenders, color: false, now: Date.now() }));
  publishVerdict(report, reportPath, false);
  if (inputs.history && inputs.history !== 'auto')
    core.warning('groundgate: mode: comment draws trends from history: auto only (there is no checkout)');
  const markdown = await summarize(report, inputs, env, event, {
    offenders,
    configPath: inputs.config,
    run: runUrl(env, String(triggering.id)),
    fullReportHint: `the ${inputs.artifactName} artifact of the pull request's run`,
  });
  await appendSummary(markdown);
  if (!pr) {
    core.info(
      `groundgate: no pull-request comment: run ${triggering.id} (${triggering.event ?? 'unknown event'}) belongs to no open pull request at commit ${shortSha(triggering.headSha)}`,
    );
    return 0;
  }
  const passed = report.verdict === 'pass';
  const decision: CommentDecision =
    inputs.comment === 'never'
      ? { post: false, why: 'comment: never' }
      : { post: true, pr, createIfAbsent: inputs.comment !== 'on-failure' || !passed };
  await comment(inputs, env, decision, markdown);
  return 0;
}

async function comment(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  decision: CommentDecision,
  body: string,
): Promise<void> {
  if (!decision.post) {
    core.info(`groundgate: no pull-request comment (${decision.why})`);
    return;
  }
  if (!inputs.token) {
    core.warning('groundgate: no github-token input; the pull-request comment is skipped');
    return;
  }
  const marker = body.slice(0, body.indexOf('\n'));
  const result = await withApi(
    inputs.token,
    env,
    (api) =>
      upsertStickyComment(api.octokit, decision.pr, marker, body, {
        createIfAbsent: decision.createIfAbsent,
      }).catch((err: unknown) => ({ failed: explainCommentFailure(err) })),
    (ms) => ({
      failed: `could not write the pull-request comment: the GitHub API took longer than ${seconds(ms)}; the job summary, outputs and the gate verdict are unaffected.`,
    }),
  );
  if ('failed' in result) {
    core.warning(`groundgate: ${result.failed}`);
    return;
  }
  const deleted = result.deleted?.length ? `; deleted ${result.deleted.length} newer duplicate(s)` : '';
  core.info(
    `groundgate: pull-request comment ${result.action}${result.id ? ` (id ${result.id})` : ''}${deleted}`,
  );
}

function readEvent(env: NodeJS.ProcessEnv): EventInfo {
  let payload: Record<string, unknown> = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
    } catch {
      core.warning(`groundgate: could not read the event payload at ${env.GITHUB_EVENT_PATH}`);
    }
  }
  return { name: env.GITHUB_EVENT_NAME ?? '', payload, repository: env.GITHUB_REPOSITORY };
}

function repoUrl(env: NodeJS.ProcessEnv): string | undefined {
  return env.GITHUB_SERVER_URL && parseRepo(env.GITHUB_REPOSITORY)
    ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}`
    : undefined;
}

function runUrl(env: NodeJS.ProcessEnv, runId: string | undefined, attempt?: string): string | undefined {
  const repo = repoUrl(env);
  if (!repo || !runId || !/^\d+$/.test(runId)) return undefined;
  return `${repo}/actions/runs/${runId}${attempt && attempt !== '1' && /^\d+$/.test(attempt) ? `/attempts/${attempt}` : ''}`;
}

/**
 * Run link and gold lock digests. The report may be a fork's artifact (mode: comment): only values that
 * match their shape (hex digests) go into the Markdown unescaped.
 */
function footer(env: NodeJS.ProcessEnv, report: Report, run: string | undefined): string[] {
  const parts: string[] = [];
  if (run) parts.push(`[workflow run](${run})`);
  // A gold set that matches its lock has the lock's digest; one that does not is announced at the top.
  for (const [name, suite] of Object.entries(report.suites))
    if (
      suite.gold?.lock?.status === 'match' &&
      /^[0-9a-f]{64}$/.test(suite.gold.sha256) &&
      SUITE_NAME.test(name)
    )
      // (a report that is an artifact may hold names gates.yaml would refuse: those are left out)
      parts.push(`gold lock \`${name}\`: \`sha256:${suite.gold.sha256.slice(0, 12)}\``);
  parts.push(`groundgate ${escapeMarkdown(report.tool.version, { maxLength: 40 })}`);
  return [`<sub>${parts.join(' · ')}</sub>`];
}

/** Trace text goes to the log between stop-commands markers, so it cannot issue workflow commands. */
function logText(text: string): void {
  const token = randomUUID();
  process.stdout.write(`::stop-commands::${token}\n${text}::${token}::\n`);
}
