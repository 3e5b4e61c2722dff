import type { ActionInputs } from './inputs.js';

/** The parts of the workflow event that decide where a comment goes. */
export interface EventInfo {
  name: string;
  payload: Record<string, unknown>;
  repository?: string;
}

export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
  headSha?: string;
}

const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

/** The pull request the event is about: from a PR event, a comment on a PR, or a workflow_run of one. */
export function pullRequestOf(event: EventInfo): PullRequestRef | undefined {
  const [owner, repo] = (event.repository ?? '').split('/');
  if (!owner || !repo) return undefined;
  const p = event.payload as {
    pull_request?: { number?: number; head?: { sha?: string } };
    issue?: { number?: number; pull_request?: unknown };
    workflow_run?: { pull_requests?: { number?: number; head?: { sha?: string } }[] };
    number?: number;
  };
  if (p.pull_request?.number)
    return { owner, repo, number: p.pull_request.number, headSha: p.pull_request.head?.sha };
  if (p.issue?.number && p.issue.pull_request) return { owner, repo, number: p.issue.number };
  const fromRun = p.workflow_run?.pull_requests?.[0];
  if (fromRun?.number) return { owner, repo, number: fromRun.number, headSha: fromRun.head?.sha };
  return undefined;
}

export type CommentDecision =
  { post: true; pr: PullRequestRef; createIfAbsent: boolean } | { post: false; why: string };

/**
 * auto: pull-request events; always: any event tied to a pull request; on-failure: like auto, but a new
 * comment only when a gate failed (an existing one is still updated, so a fixed PR does not keep a stale
 * failure); never: no comment.
 */
export function decideComment(
  mode: ActionInputs['comment'],
  event: EventInfo,
  passed: boolean,
): CommentDecision {
  if (mode === 'never') return { post: false, why: 'comment: never' };
  const pr = pullRequestOf(event);
  if (!pr) return { post: false, why: `event ${event.name || '(none)'} is not about a pull request` };
  if (mode !== 'always' && !PR_EVENTS.has(event.name)) {
    return { post: false, why: `comment: ${mode} comments on pull_request events, not ${event.name}` };
  }
  return { post: true, pr, createIfAbsent: mode !== 'on-failure' || !passed };
}

/** What baseline: auto compares with: the base of a pull request, the commit before a push. */
export function baseOf(
  event: EventInfo,
  env: NodeJS.ProcessEnv,
): { sha?: string; branch?: string } | { why: string } {
  const p = event.payload as {
    pull_request?: { base?: { sha?: string; ref?: string } };
    merge_group?: { base_sha?: string; base_ref?: string };
    before?: string;
    ref?: string;
  };
  if (PR_EVENTS.has(event.name) && p.pull_request?.base)
    return { sha: p.pull_request.base.sha, branch: p.pull_request.base.ref };
  if (event.name === 'merge_group' && p.merge_group)
    return { sha: p.merge_group.base_sha, branch: p.merge_group.base_ref?.replace(/^refs\/heads\//, '') };
  if (event.name === 'push') {
    const branch = (p.ref ?? env.GITHUB_REF ?? '').replace(/^refs\/heads\//, '') || undefined;
    // A new branch's push has no commit before it (all zeros): its branch's newest report is the fallback.
    return { sha: p.before && !/^0+$/.test(p.before) ? p.before : undefined, branch };
  }
  return {
    why: `baseline: auto compares with the base of a pull_request, push or merge_group event, not ${event.name || '(no event)'}; no deltas, max_drop gates skipped`,
  };
}

/** The branch trends are drawn from: the repository's default branch, as the event names it. */
export function defaultBranchOf(event: EventInfo): string | undefined {
  const p = event.payload as { repository?: { default_branch?: string } };
  return typeof p.repository?.default_branch === 'string' ? p.repository.default_branch : undefined;
}

/** A pull request from a fork runs with a read-only token: it cannot comment (the workflow_run pattern does). */
export function isForkPullRequest(event: EventInfo): boolean {
  const p = event.payload as { pull_request?: { head?: { repo?: { full_name?: string } | null } } };
  const head = p.pull_request?.head?.repo?.full_name;
  return (
    event.name === 'pull_request' &&
    !!head &&
    !!event.repository &&
    head.toLowerCase() !== event.repository.toLowerCase()
  );
}

/** The run a workflow_run event is about: its report artifact is what mode: comment posts. */
export interface TriggeringRun {
  id: number;
  headSha: string;
  headBranch?: string;
  /** The owner of the head repository (a fork's owner for a fork's pull request). */
  headOwner?: string;
  event?: string;
  /** The run's pull requests as the event lists them, with the repository each one is in. */
  pullRequests: { number: number; headSha?: string; baseRepoId?: number }[];
  /** This repository's id: a listed pull request must be in it. */
  repositoryId?: number;
}

export function triggeringRun(event: EventInfo): TriggeringRun | undefined {
  if (event.name !== 'workflow_run') return undefined;
  const run = (event.payload as { workflow_run?: Record<string, unknown> }).workflow_run;
  if (!run || typeof run.id !== 'number' || typeof run.head_sha !== 'string') return undefined;
  const headRepo = run.head_repository as { owner?: { login?: unknown } } | undefined;
  const prs = Array.isArray(run.pull_requests)
    ? (run.pull_requests as {
        number?: unknown;
        head?: { sha?: unknown };
        base?: { repo?: { id?: unknown } };
      }[])
    : [];
  const repositoryId = (event.payload as { repository?: { id?: unknown } }).repository?.id;
  return {
    id: run.id,
    headSha: run.head_sha,
    headBranch: typeof run.head_branch === 'string' ? run.head_branch : undefined,
    headOwner: typeof headRepo?.owner?.login === 'string' ? headRepo.owner.login : undefined,
    event: typeof run.event === 'string' ? run.event : undefined,
    pullRequests: prs.flatMap((p) =>
      typeof p.number === 'number'
        ? [
            {
              number: p.number,
              headSha: typeof p.head?.sha === 'string' ? p.head.sha : undefined,
              baseRepoId: typeof p.base?.repo?.id === 'number' ? p.base.repo.id : undefined,
            },
          ]
        : [],
    ),
    ...(typeof repositoryId === 'number' ? { repositoryId } : {}),
  };
}
