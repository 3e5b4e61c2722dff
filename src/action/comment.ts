import type { getOctokit } from '@actions/github';
import type { PullRequestRef } from './event.js';

type Octokit = ReturnType<typeof getOctokit>;

export type StickyResult = { action: 'created' | 'updated' | 'unchanged' | 'not-created'; id?: number };

/** The login behind the token: a PAT answers GET /user; the Actions token cannot, and comments as github-actions[bot]. */
export async function tokenLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch {
    return 'github-actions[bot]';
  }
}

/**
 * One comment per pull request and marker: found among all comments (every page) by its hidden marker
 * and author, updated in place when its body changed, created when absent (if allowed).
 */
export async function upsertStickyComment(
  octokit: Octokit,
  pr: PullRequestRef,
  marker: string,
  body: string,
  options: { createIfAbsent: boolean },
): Promise<StickyResult> {
  const login = await tokenLogin(octokit);
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: pr.owner,
    repo: pr.repo,
    issue_number: pr.number,
    per_page: 100,
  });
  const mine = comments.find((c) => c.user?.login === login && (c.body ?? '').startsWith(marker));
  if (mine) {
    if (mine.body === body) return { action: 'unchanged', id: mine.id };
    await octokit.rest.issues.updateComment({ owner: pr.owner, repo: pr.repo, comment_id: mine.id, body });
    return { action: 'updated', id: mine.id };
  }
  if (!options.createIfAbsent) return { action: 'not-created' };
  const { data } = await octokit.rest.issues.createComment({
    owner: pr.owner,
    repo: pr.repo,
    issue_number: pr.number,
    body,
  });
  return { action: 'created', id: data.id };
}

/** Why a comment write failed, in terms a workflow author can act on. */
export function explainCommentFailure(err: unknown): string {
  const status = (err as { status?: number }).status;
  if (status === 403 || status === 404) {
    return (
      `could not write the pull-request comment (HTTP ${status}): the token needs the "pull-requests: write" ` +
      'permission (add it under permissions: in the workflow). Pull requests from forks get a read-only token; ' +
      'the job summary and the gate verdict are unaffected.'
    );
  }
  return `could not write the pull-request comment: ${(err as Error).message}`;
}
