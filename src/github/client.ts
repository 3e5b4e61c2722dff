import type { getOctokit } from '@actions/github';
import { apiLimitsFrom, limitRequests, type ApiLimits } from './api-limits.js';

export type Octokit = ReturnType<typeof getOctokit>;

/** An Octokit whose every request is bounded, and what is left of its time budget. */
export interface GitHubApi {
  octokit: Octokit;
  limits: ApiLimits;
  left: () => number;
}

export interface RepoRef {
  owner: string;
  repo: string;
}

/** GITHUB_API_URL (GitHub Enterprise, or a test's local server), else api.github.com. */
export function apiUrl(env: NodeJS.ProcessEnv): string {
  return env.GITHUB_API_URL || 'https://api.github.com';
}

/** Loaded on first use only: Octokit is most of the Action's start-up time, and most runs never call the API. */
export async function connect(token: string, env: NodeJS.ProcessEnv, limits: ApiLimits): Promise<GitHubApi> {
  const { getOctokit } = await import('@actions/github');
  const octokit = getOctokit(token, { baseUrl: apiUrl(env) });
  const { left } = limitRequests(octokit, limits);
  return { octokit, limits, left };
}

/** "owner/name" as GitHub spells it, or undefined. */
export function parseRepo(text: string | undefined): RepoRef | undefined {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/.exec(text ?? '');
  return m ? { owner: m[1]!, repo: m[2]! } : undefined;
}

/**
 * Runs `work` with a bounded client; past its budget (plus a grace) the answer is `late()`, whatever is still
 * pending. limitRequests bounds every request; this bounds whatever else could wait (it never should).
 */
export async function withApi<T>(
  token: string,
  env: NodeJS.ProcessEnv,
  work: (api: GitHubApi) => Promise<T>,
  late: (budgetMs: number) => T,
): Promise<T> {
  const limits = apiLimitsFrom(env);
  let timer: NodeJS.Timeout | undefined;
  const overtime = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late(limits.budgetMs)), limits.budgetMs + OVERTIME_GRACE_MS);
  });
  try {
    return await Promise.race([connect(token, env, limits).then(work), overtime]);
  } finally {
    clearTimeout(timer);
  }
}

const OVERTIME_GRACE_MS = 5_000;
