import { execFileSync } from 'node:child_process';
import type { FoundBaseline } from '../run.js';
import { apiLimitsFrom } from './api-limits.js';
import { artifactMaxBytes, explainApiFailure, findBaseReport } from './artifacts.js';
import { connect, parseRepo, type RepoRef } from './client.js';

/**
 * `--baseline gh:auto` on a developer's machine: the report the pull request's comment would compare with,
 * from the current git state. The base is the merge base of HEAD and origin's default branch; the report is
 * its run's artifact, as the Action finds it. Everything that fails is a warning: the run goes on without.
 */
export async function localBaseline(
  dir: string,
  env: NodeJS.ProcessEnv,
  artifact: { name: string; file: string },
): Promise<FoundBaseline> {
  const skipped = 'no deltas, max_drop gates skipped';
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (!token)
    return {
      warning: `--baseline gh:auto needs a token in GITHUB_TOKEN (or GH_TOKEN) that can read the repository's actions (e.g. GITHUB_TOKEN=$(gh auth token)); ${skipped}`,
    };
  const remote = repoOfRemote(git(dir, ['remote', 'get-url', 'origin']));
  // (without the host: the repository's fields become the request's parameters)
  const repo = parseRepo(env.GITHUB_REPOSITORY) ?? (remote && { owner: remote.owner, repo: remote.repo });
  if (!repo)
    return {
      warning: `--baseline gh:auto could not tell the GitHub repository: no GITHUB_REPOSITORY and origin is not a GitHub remote; ${skipped}`,
    };
  // The token goes to GITHUB_API_URL, else api.github.com: only for a repository that lives there.
  if (!env.GITHUB_REPOSITORY && !env.GITHUB_API_URL && remote?.host !== 'github.com')
    return {
      warning: `--baseline gh:auto: origin is on ${remote?.host ?? 'an unknown host'}, not github.com; for GitHub Enterprise set GITHUB_API_URL (https://${remote?.host ?? 'HOST'}/api/v3); ${skipped}`,
    };
  const limits = apiLimitsFrom(env);
  const api = await connect(token, env, limits);
  let branch = git(dir, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'])?.replace(
    /^origin\//,
    '',
  );
  if (!branch) {
    try {
      branch = (await api.octokit.rest.repos.get({ ...repo })).data.default_branch;
    } catch (err) {
      return {
        warning: `--baseline gh:auto: ${explainApiFailure(err, 'reading the default branch')}; ${skipped}`,
      };
    }
  }
  const sha = git(dir, ['merge-base', 'HEAD', `origin/${branch}`]);
  if (!sha)
    return {
      warning: `--baseline gh:auto: no merge base of HEAD and origin/${branch} (run git fetch origin ${branch}); ${skipped}`,
    };
  const found = await findBaseReport(
    api,
    repo,
    { sha, branch },
    { ...artifact, maxBytes: artifactMaxBytes(env) },
  );
  return 'warning' in found
    ? { warning: found.warning.replace(/^baseline: auto/, '--baseline gh:auto') }
    : found;
}

/** owner/name and host of a remote URL (https, ssh or scp-like; the host is undefined for a local path). */
export function repoOfRemote(url: string | undefined): (RepoRef & { host?: string }) | undefined {
  const m = /[/:]([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url ?? '');
  const repo = m ? parseRepo(`${m[1]}/${m[2]}`) : undefined;
  if (!repo) return undefined;
  const host = /^(?:[a-z+]+:\/\/)?(?:[^@/]+@)?([^/:]+)[:/]/i.exec(url ?? '')?.[1];
  return host && !url!.startsWith('/') ? { ...repo, host: host.toLowerCase() } : repo;
}

/** One line of git's output, or undefined when git fails, is missing or takes more than 5 s. */
function git(dir: string, args: string[]): string | undefined {
  try {
    const out = execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim();
    return out || undefined;
  } catch {
    return undefined;
  }
}
