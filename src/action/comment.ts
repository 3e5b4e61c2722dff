import type { getOctokit } from '@actions/github';
import type { PullRequestRef, TriggeringRun } from './event.js';

type Octokit = ReturnType<typeof getOctokit>;

export type StickyResult = {
  action: 'created' | 'updated' | 'unchanged' | 'not-created';
  id?: number;
  /** Newer copies of the sticky comment that were deleted (two runs of one pull request raced). */
  deleted?: number[];
};

/** The login behind the token: a PAT answers GET /user; the Actions token cannot, and comments as github-actions[bot]. */
export async function tokenLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch (err) {
    // Only "this token has no user" means the bot; a timeout or a 5xx must not pick the wrong author.
    const { status, rateLimited } = err as { status?: number; rateLimited?: boolean };
    if (!rateLimited && (status === 401 || status === 403 || status === 404)) return 'github-actions[bot]';
    throw err;
  }
}

/**
 * One comment per pull request and marker, found among all comments (every page) by its hidden marker and
 * author. The oldest is kept and updated when its body changed; newer copies are deleted. Two runs of one
 * pull request (a quick second push) can both find none and both create one: so after creating, the list is
 * read again, and whoever created a newer copy deletes it. Every run does that after its own create, so one
 * comment remains, whatever the interleaving.
 */
export async function upsertStickyComment(
  octokit: Octokit,
  pr: PullRequestRef,
  marker: string,
  body: string,
  options: { createIfAbsent: boolean },
): Promise<StickyResult> {
  const login = await tokenLogin(octokit);
  const repo = { owner: pr.owner, repo: pr.repo };
  const mine = async () =>
    (
      await octokit.paginate(octokit.rest.issues.listComments, {
        ...repo,
        issue_number: pr.number,
        per_page: 100,
      })
    )
      .filter((c) => c.user?.login === login && (c.body ?? '').startsWith(marker))
      .sort((a, b) => a.id - b.id);

  let found = await mine();
  let action: StickyResult['action'] | undefined;
  if (found.length === 0) {
    if (!options.createIfAbsent) return { action: 'not-created' };
    const { data } = await octokit.rest.issues.createComment({ ...repo, issue_number: pr.number, body });
    action = 'created';
    found = await mine();
    // A list that does not show the new comment yet still has it, in id order like the others.
    if (!found.some((c) => c.id === data.id))
      found = [...found, { ...data, body }].sort((a, b) => a.id - b.id);
  }
  const [keep, ...newer] = found as [(typeof found)[number], ...typeof found];
  const deleted: number[] = [];
  for (const c of newer) {
    try {
      await octokit.rest.issues.deleteComment({ ...repo, comment_id: c.id });
    } catch (err) {
      // The other run deleted it first.
      if ((err as { status?: number }).status !== 404) throw err;
    }
    deleted.push(c.id);
  }
  if (keep.body !== body) {
    await octokit.rest.issues.updateComment({ ...repo, comment_id: keep.id, body });
    action = 'updated';
  }
  return { action: action ?? 'unchanged', id: keep.id, ...(deleted.length ? { deleted } : {}) };
}

/** Why a comment write failed, in terms a workflow author can act on. */
export function explainCommentFailure(err: unknown): string {
  const { status, rateLimited } = err as { status?: number; rateLimited?: boolean };
  if (rateLimited) {
    return `could not write the pull-request comment: the GitHub API's rate limit asks for a longer wait than the time budget allows (${(err as Error).message}); the job summary, outputs and the gate verdict are unaffected.`;
  }
  if (status === 403 || status === 404) {
    return (
      `could not write the pull-request comment (HTTP ${status}): the token needs the "pull-requests: write" ` +
      'permission (add it under permissions: in the workflow). Pull requests from forks get a read-only token; ' +
      'the job summary and the gate verdict are unaffected.'
    );
  }
  return `could not write the pull-request comment: ${(err as Error).message}; the job summary, outputs and the gate verdict are unaffected.`;
}

/**
 * The open pull request a workflow run was for. GitHub fills workflow_run.pull_requests only for branches of
 * the repository itself; a fork's is found by its head (owner:branch) and must point at the run's commit, so
 * a report is never posted on a pull request that has moved on, or on another one.
 */
export async function pullRequestOfRun(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  run: TriggeringRun,
): Promise<PullRequestRef | undefined> {
  // Only a pull request of this repository at the run's very commit: never another one's number.
  const listed = run.pullRequests.find(
    (p) => p.headSha === run.headSha && run.repositoryId !== undefined && p.baseRepoId === run.repositoryId,
  );
  if (listed) return { ...repo, number: listed.number, headSha: run.headSha };
  if (run.event !== 'pull_request' || !run.headOwner || !run.headBranch) return undefined;
  const { data } = await octokit.rest.pulls.list({
    ...repo,
    state: 'open',
    head: `${run.headOwner}:${run.headBranch}`,
    per_page: 10,
  });
  const pr = data.find((p) => p.head.sha === run.headSha);
  return pr ? { ...repo, number: pr.number, headSha: run.headSha } : undefined;
}
