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
