import path from 'node:path';
import { seconds } from '../github/api-limits.js';
import {
  artifactMaxBytes,
  branchReports,
  explainApiFailure,
  findBaseReport,
  type ReportArtifact,
} from '../github/artifacts.js';
import { parseRepo, withApi, type RepoRef } from '../github/client.js';
import { entryFor } from '../history/history.js';
import type { HistoryEntry } from '../history/schema.js';
import { shortSha } from '../report/baseline-source.js';
import type { FoundBaseline } from '../run.js';
import { baseOf, defaultBranchOf, type EventInfo } from './event.js';
import type { ActionInputs } from './inputs.js';

export { explainApiFailure, runReport } from '../github/artifacts.js';

/**
 * The Action's reads of other runs' report artifacts (baseline: auto, history: auto). Each phase has its own
 * time budget; whatever fails or runs out of time becomes a warning, and the run goes on without it.
 */

export function reportArtifact(inputs: ActionInputs, env: NodeJS.ProcessEnv): ReportArtifact {
  return { name: inputs.artifactName, file: path.basename(inputs.report), maxBytes: artifactMaxBytes(env) };
}

/** This run's workflow file (GITHUB_WORKFLOW_REF is owner/repo/.github/workflows/x.yml@ref). */
export function workflowPath(env: NodeJS.ProcessEnv): string | undefined {
  return /^[^/]+\/[^/]+\/(.+?)@/.exec(env.GITHUB_WORKFLOW_REF ?? '')?.[1];
}

function repoOf(event: EventInfo): RepoRef | undefined {
  return parseRepo(event.repository);
}

export async function autoBaseline(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  event: EventInfo,
): Promise<FoundBaseline> {
  const skipped = 'no deltas, max_drop gates skipped';
  const base = baseOf(event, env);
  if ('why' in base) return { warning: base.why };
  const repo = repoOf(event);
  if (!repo) return { warning: `baseline: auto needs GITHUB_REPOSITORY (owner/name); ${skipped}` };
  if (!inputs.token) return { warning: `baseline: auto needs the github-token input; ${skipped}` };
  return withApi(
    inputs.token,
    env,
    (api) =>
      findBaseReport(
        api,
        repo,
        // A push's fallback must not be the commit being checked (a re-run finds its own report).
        { ...base, workflow: workflowPath(env), exclude: event.name === 'push' ? env.GITHUB_SHA : undefined },
        reportArtifact(inputs, env),
      ),
    (ms) => ({ warning: `baseline: auto: the GitHub API took longer than ${seconds(ms)}; ${skipped}` }),
  );
}

/** The default branch's last reports as history entries, labelled by short sha, oldest first. */
export async function autoHistory(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  event: EventInfo,
  /** This run's own commit, when it is on the default branch (a push): its point is "now". */
  exclude?: string,
): Promise<{ history: HistoryEntry[]; warnings: string[] }> {
  const repo = repoOf(event);
  if (!repo)
    return { history: [], warnings: ['history: auto needs GITHUB_REPOSITORY (owner/name); no trend'] };
  if (!inputs.token)
    return { history: [], warnings: ['history: auto needs the github-token input; no trend'] };
  return withApi(
    inputs.token,
    env,
    async (api) => {
      let branch = defaultBranchOf(event);
      if (!branch) {
        try {
          branch = (await api.octokit.rest.repos.get({ ...repo })).data.default_branch;
        } catch (err) {
          return {
            history: [],
            warnings: [`history: auto: ${explainApiFailure(err, 'reading the default branch')}; no trend`],
          };
        }
      }
      const { reports, warnings } = await branchReports(
        api,
        repo,
        // A re-run of a default-branch commit finds its own earlier report: that point is "now".
        { branch, count: inputs.historyRuns, exclude },
        reportArtifact(inputs, env),
      );
      return {
        history: reports.map((r) => entryFor(r.report, shortSha(r.commit), r.created)),
        warnings,
      };
    },
    (ms) => ({
      history: [],
      warnings: [`history: auto: the GitHub API took longer than ${seconds(ms)}; no trend`],
    }),
  );
}
