import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as workflow from './workflow.js';
import { InputError, UsageError } from '../errors.js';
import { confineIfInside, scopeAt } from '../io/confine.js';
import { readHistory } from '../history/history.js';
import type { HistoryEntry } from '../history/schema.js';
import { renderMarkdown } from '../report/markdown.js';
import { writeReport, type Report } from '../report/schema.js';
import { renderText } from '../report/text.js';
import { buildTrends } from '../report/trend.js';
import { run, type RunOutcome } from '../run.js';
import { annotationsFor } from './annotations.js';
import { apiLimitsFrom, limitRequests } from './api-limits.js';
import { explainCommentFailure, upsertStickyComment } from './comment.js';
import { decideComment, type EventInfo } from './event.js';
import { readInputs, type ActionInputs } from './inputs.js';

/** The Action: the CLI's engine, then a sticky PR comment, job summary, annotations and outputs. Returns the exit code. */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let inputs: ActionInputs;
  let outcome: RunOutcome;
  let files: { report: string; baseline?: string; history?: string };
  let history: HistoryEntry[] = [];
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  try {
    inputs = readInputs();
    // gates.yaml may come from a fork: what it names must stay in the checkout. No input lifts this.
    const scope = scopeAt(workspace, 'GITHUB_WORKSPACE');
    // The workflow's own paths may go anywhere, but not out through a link planted in the checkout.
    const own = (input: string, value: string) =>
      confineIfInside(path.resolve(workspace, value), scope, value, { file: `input "${input}"` });
    files = {
      report: own('report', inputs.report),
      ...(inputs.baseline ? { baseline: own('baseline', inputs.baseline) } : {}),
      ...(inputs.history ? { history: own('history', inputs.history) } : {}),
    };
    outcome = await run({
      config: path.resolve(workspace, inputs.config),
      scope,
      suites: inputs.suites,
      baseline: files.baseline,
      baselineMissingOk: true,
      release: inputs.release,
    });
    if (files.history) history = await readHistory(files.history);
  } catch (err) {
    if (err instanceof InputError) {
      const where = err.where;
      workflow.error(
        err.detail,
        where?.line
          ? { file: path.relative(workspace, where.file), startLine: where.line, startColumn: where.column }
          : {},
      );
      workflow.setFailed(`groundgate: ${err.message}`);
      return 2;
    }
    if (err instanceof UsageError) {
      workflow.setFailed(`groundgate: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const { report, config } = outcome;
  const passed = report.verdict === 'pass';
  const offenders = inputs.offenders ?? config.offenders;

  const reportPath = files.report;
  try {
    mkdirSync(path.dirname(reportPath), { recursive: true });
    writeReport(reportPath, report);
  } catch (err) {
    workflow.setFailed(
      `groundgate: input "report": cannot write ${reportPath} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return 2;
  }

  logText(renderText(report, { offenders, color: false }));
  for (const w of outcome.warnings) workflow.warning(w);
  for (const a of annotationsFor(report, config.file, workspace)) workflow[a.level](a.message, a.properties);

  const configKey = path.relative(workspace, config.file).split(path.sep).join('/');
  const markdown = renderMarkdown(report, {
    offenders,
    marker: `<!-- groundgate:${configKey.replace(/--/g, '-')} -->`,
    footer: footer(env, report),
    fullReportHint: `the report.json artifact (${path.basename(reportPath)})`,
    trends: files.history ? buildTrends(history, report) : [],
  });

  if (env.GITHUB_STEP_SUMMARY) workflow.appendSummary(markdown);
  workflow.setOutput('passed', String(passed));
  // Skipped gates (max_drop without a baseline) are listed too, marked, so none vanishes unseen.
  workflow.setOutput(
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
  workflow.setOutput('report', reportPath);
  workflow.setOutput(
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

  const failing = !passed && inputs.failOnGate;
  if (failing)
    workflow.setFailed(`groundgate: ${report.gates.filter((g) => !g.passed).length} gate(s) failed`);

  // Everything above is written before the first network call: the API cannot hide or change the verdict.
  await comment(inputs, env, markdown, passed);
  return failing ? 1 : 0;
}

async function comment(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  body: string,
  passed: boolean,
): Promise<void> {
  const event = readEvent(env);
  const decision = decideComment(inputs.comment, event, passed);
  if (!decision.post) {
    workflow.info(`groundgate: no pull-request comment (${decision.why})`);
    return;
  }
  if (!inputs.token) {
    workflow.warning('groundgate: no github-token input; the pull-request comment is skipped');
    return;
  }
  const marker = body.slice(0, body.indexOf('\n'));
  const limits = apiLimitsFrom(env);
  const work = (async () => {
    // Loaded only when a comment is written: Octokit is most of the Action's start-up time.
    const { getOctokit } = await import('@actions/github');
    const octokit = getOctokit(inputs.token, { baseUrl: env.GITHUB_API_URL || 'https://api.github.com' });
    limitRequests(octokit, limits);
    return upsertStickyComment(octokit, decision.pr, marker, body, {
      createIfAbsent: decision.createIfAbsent,
    });
  })();
  // limitRequests bounds every request; this bounds whatever else could wait (it never should).
  let timer: NodeJS.Timeout | undefined;
  const overtime = new Promise<'overtime'>((resolve) => {
    timer = setTimeout(() => resolve('overtime'), limits.budgetMs + OVERTIME_GRACE_MS);
  });
  try {
    const result = await Promise.race([work, overtime]);
    if (result === 'overtime') {
      workflow.warning(
        `groundgate: could not write the pull-request comment: the GitHub API took longer than ${limits.budgetMs / 1000} s; the job summary, outputs and the gate verdict are unaffected.`,
      );
      return;
    }
    const deleted = result.deleted?.length ? `; deleted ${result.deleted.length} newer duplicate(s)` : '';
    workflow.info(
      `groundgate: pull-request comment ${result.action}${result.id ? ` (id ${result.id})` : ''}${deleted}`,
    );
  } catch (err) {
    workflow.warning(`groundgate: ${explainCommentFailure(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

const OVERTIME_GRACE_MS = 5_000;

function readEvent(env: NodeJS.ProcessEnv): EventInfo {
  let payload: Record<string, unknown> = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
    } catch {
      workflow.warning(`groundgate: could not read the event payload at ${env.GITHUB_EVENT_PATH}`);
    }
  }
  return { name: env.GITHUB_EVENT_NAME ?? '', payload, repository: env.GITHUB_REPOSITORY };
}

/** Run link and gold lock digests: trusted values from the environment and the report. */
function footer(env: NodeJS.ProcessEnv, report: Report): string[] {
  const parts: string[] = [];
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) {
    const attempt =
      env.GITHUB_RUN_ATTEMPT && env.GITHUB_RUN_ATTEMPT !== '1' ? `/attempts/${env.GITHUB_RUN_ATTEMPT}` : '';
    parts.push(
      `[workflow run](${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}${attempt})`,
    );
  }
  // A gold set that matches its lock has the lock's digest; one that does not is announced at the top.
  for (const [name, suite] of Object.entries(report.suites))
    if (suite.gold?.lock?.status === 'match')
      parts.push(`gold lock \`${name}\`: \`sha256:${suite.gold.sha256.slice(0, 12)}\``);
  parts.push(`groundgate ${report.tool.version}`);
  return [`<sub>${parts.join(' · ')}</sub>`];
}

/** Trace text goes to the log between stop-commands markers, so it cannot issue workflow commands. */
function logText(text: string): void {
  const token = randomUUID();
  process.stdout.write(`::stop-commands::${token}\n${text}::${token}::\n`);
}
