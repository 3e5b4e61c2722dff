import path from 'node:path';
import { z } from 'zod';
import { parseBaseline } from '../baseline/load.js';
import { InputError } from '../errors.js';
import type { BaselineSource, Report } from '../report/schema.js';
import { safeParse } from '../io/validate.js';
import { shortSha } from '../report/baseline-source.js';
import { foreignReportProblem } from '../report/foreign.js';
import { seconds } from './api-limits.js';
import type { GitHubApi, RepoRef } from './client.js';
import { megabytes, unzipText, ZipError } from './unzip.js';

/**
 * Reports uploaded by other workflow runs (actions/upload-artifact), found and read through the REST API.
 * An artifact is data from another run, possibly a fork's: sizes are capped before and while inflating,
 * and the report is checked against its schema like any baseline file.
 */

/** What to look for, and how much of it to read. */
export interface ReportArtifact {
  /** The artifact's name (the Action's artifact-name input). */
  name: string;
  /** The report's file name inside it (the basename of the report input). */
  file: string;
  /** Cap on an artifact's zip and on the report inflated from it. */
  maxBytes: number;
}

export const DEFAULT_ARTIFACT_MAX_BYTES = 100 * 2 ** 20;

/** GROUNDGATE_ARTIFACT_MAX_MB (trusted: the workflow's env) for teams with larger reports. */
export function artifactMaxBytes(env: NodeJS.ProcessEnv): number {
  const text = env.GROUNDGATE_ARTIFACT_MAX_MB?.trim();
  return text && /^\d{1,5}(\.\d+)?$/.test(text) && Number(text) > 0
    ? Math.round(Number(text) * 2 ** 20)
    : DEFAULT_ARTIFACT_MAX_BYTES;
}

// Only the fields used; the API sends many more.
const runSchema = z.looseObject({
  id: z.int(),
  head_sha: z.string(),
  head_branch: z.string().nullish(),
  status: z.string().nullish(),
  /** The workflow file, e.g. .github/workflows/groundgate.yml. */
  path: z.string().nullish(),
  head_commit: z.looseObject({ timestamp: z.string().nullish() }).nullish(),
  head_repository: z.looseObject({ full_name: z.string() }).nullish(),
});
type Run = z.infer<typeof runSchema>;

const artifactSchema = z.looseObject({
  id: z.int(),
  name: z.string(),
  size_in_bytes: z.number().nullish(),
  expired: z.boolean().nullish(),
  created_at: z.string().nullish(),
  workflow_run: z
    .looseObject({
      id: z.int().nullish(),
      head_sha: z.string().nullish(),
      head_branch: z.string().nullish(),
      repository_id: z.int().nullish(),
      head_repository_id: z.int().nullish(),
    })
    .nullish(),
});
type Artifact = z.infer<typeof artifactSchema>;

/** Why no report could be read: said in a warning, and the comparison is skipped. */
export class ArtifactError extends Error {}

const SHA = /^[0-9a-f]{40}$/;

async function listRuns(
  api: GitHubApi,
  repo: RepoRef,
  query: Record<string, string | number>,
): Promise<Run[]> {
  const { data } = await api.octokit.request('GET /repos/{owner}/{repo}/actions/runs', { ...repo, ...query });
  const runs = checked(
    z.looseObject({ workflow_runs: z.array(runSchema) }),
    data,
    'workflow runs',
  ).workflow_runs;
  // A fork's run can have any head: only this repository's runs speak for its branches and commits.
  const own = `${repo.owner}/${repo.repo}`.toLowerCase();
  return runs.filter((r) => r.head_repository?.full_name.toLowerCase() === own);
}

/** The run's artifact of that name, or why there is none. */
async function runArtifact(
  api: GitHubApi,
  repo: RepoRef,
  runId: number,
  name: string,
): Promise<Artifact | 'expired' | undefined> {
  const { data } = await api.octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', {
    ...repo,
    run_id: runId,
    name,
    per_page: 10,
  });
  const found = checked(
    z.looseObject({ artifacts: z.array(artifactSchema) }),
    data,
    'artifacts',
  ).artifacts.filter((a) => a.name === name);
  return found.find((a) => !a.expired) ?? (found.length ? 'expired' : undefined);
}

/**
 * The report inside an artifact. The API answers the zip request with a redirect to a storage host: it is
 * followed without the token (a signed URL needs none, and the token must not leave for another host).
 */
export async function readArtifactReport(
  api: GitHubApi,
  repo: RepoRef,
  artifact: { id: number; size_in_bytes?: number | null },
  want: ReportArtifact,
): Promise<string> {
  // The base commit's report is often a trend point too: one download serves both.
  const key = `${repo.owner}/${repo.repo}#${artifact.id}`;
  const known = downloaded.get(key);
  if (known !== undefined) return known;
  const text = await download(api, repo, artifact, want);
  downloaded.set(key, text);
  return text;
}

/** Reports read in this process, by artifact: an artifact never changes once uploaded. */
const downloaded = new Map<string, string>();

async function download(
  api: GitHubApi,
  repo: RepoRef,
  artifact: { id: number; size_in_bytes?: number | null },
  want: ReportArtifact,
): Promise<string> {
  if (artifact.size_in_bytes && artifact.size_in_bytes > want.maxBytes)
    throw new ArtifactError(
      `is ${megabytes(artifact.size_in_bytes)}, over the ${megabytes(want.maxBytes)} limit`,
    );
  const response = await api.octokit.request(
    'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
    {
      ...repo,
      artifact_id: artifact.id,
      archive_format: 'zip',
      request: { redirect: 'manual', parseSuccessResponseBody: false },
    },
  );
  let body = response.data as unknown as ReadableStream<Uint8Array> | null;
  if (response.status >= 300 && response.status < 400) {
    // The redirect's own body is not wanted: release its connection now.
    await body?.cancel().catch(() => undefined);
    const location = response.headers.location;
    if (!location || !/^https?:\/\//.test(location))
      throw new ArtifactError(`download answered ${response.status} without a usable location`);
    const left = api.left();
    if (left <= 0)
      throw new ArtifactError(`not downloaded, the ${seconds(api.limits.budgetMs)} budget is spent`);
    const timeout = Math.min(api.limits.requestMs, left);
    let stored: Response;
    try {
      stored = await fetch(location, { signal: AbortSignal.timeout(timeout) });
    } catch (err) {
      throw new ArtifactError(`download from its storage host failed (${describeFetchError(err, timeout)})`);
    }
    if (!stored.ok) throw new ArtifactError(`download from its storage host answered HTTP ${stored.status}`);
    body = stored.body;
  }
  const zip = await readCapped(body, want.maxBytes, timeoutNote(api));
  try {
    return unzipText(zip, (names) => pickReport(names, want.file), want.maxBytes).text;
  } catch (err) {
    if (err instanceof ZipError) throw new ArtifactError(err.message);
    throw err;
  }
}

/** The entry named like the report (at any depth), else the only JSON file: whatever name the upload gave it. */
export function pickReport(names: readonly string[], file: string): string | undefined {
  const named = names.find((n) => path.posix.basename(n) === file);
  if (named !== undefined) return named;
  const json = names.filter((n) => n.endsWith('.json'));
  return json.length === 1 ? json[0] : undefined;
}

async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
  note: string,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max) {
        await body.cancel().catch(() => undefined);
        throw new ArtifactError(`zip is over the ${megabytes(max)} limit`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ArtifactError) throw err;
    throw new ArtifactError(
      `download broke off after ${megabytes(size)} (${describeFetchError(err)}${note})`,
    );
  }
  return Buffer.concat(chunks);
}

function timeoutNote(api: GitHubApi): string {
  return `; ${seconds(api.limits.requestMs)} per request`;
}

function describeFetchError(err: unknown, timeout?: number): string {
  const e = err as Error & { cause?: Error };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return timeout ? `no answer within ${seconds(timeout)}` : 'timed out';
  return (e?.cause?.message ?? e?.message ?? String(err)).split('\n')[0]!.slice(0, 200);
}

function checked<T extends z.ZodType>(schema: T, data: unknown, what: string): z.infer<T> {
  const parsed = safeParse(schema, data);
  if (!parsed.success)
    throw new ArtifactError(
      `the API's list of ${what} has an unexpected shape (${parsed.error.issues[0]!.message})`,
    );
  return parsed.data as z.infer<T>;
}

/** A report read from an artifact, validated: the artifact's label names it in errors. */
function parsed(text: string, label: string, what?: string): Report {
  try {
    return parseBaseline(text, label, what);
  } catch (err) {
    if (err instanceof InputError) throw new ArtifactError(err.detail);
    throw err;
  }
}

export type BaseReport = { report: Report; source: BaselineSource } | { warning: string };

/**
 * The report of the base commit: the newest of its own workflow runs that uploaded one. When the commit has
 * none (its run has not finished, or ran no groundgate), the newest successful run of `branch` that has one,
 * named as a fallback. Every failure is a warning that says why and how to fix it.
 */
export async function findBaseReport(
  api: GitHubApi,
  repo: RepoRef,
  base: { sha?: string; branch?: string; workflow?: string; exclude?: string },
  want: ReportArtifact,
): Promise<BaseReport> {
  // A commit has a run per workflow: this workflow's runs are asked first, the others after.
  const ours = (runs: Run[]) =>
    base.workflow
      ? [...runs.filter((r) => r.path === base.workflow), ...runs.filter((r) => r.path !== base.workflow)]
      : runs;
  const sha = base.sha && SHA.test(base.sha) ? base.sha : undefined;
  const notes: string[] = [];
  const label = (run: Run) => `artifact "${want.name}" of run ${run.id} (commit ${shortSha(run.head_sha)})`;
  let looking = 'listing workflow runs';
  try {
    const take = async (run: Run, fallback: boolean): Promise<BaseReport | undefined> => {
      looking = `reading the runs' artifacts`;
      const artifact = await runArtifact(api, repo, run.id, want.name);
      if (artifact === 'expired')
        notes.push(`run ${run.id} (commit ${shortSha(run.head_sha)}): artifact expired`);
      if (!artifact || artifact === 'expired') return undefined;
      looking = `downloading ${label(run)}`;
      const report = parsed(await readArtifactReport(api, repo, artifact, want), label(run));
      const timestamp = run.head_commit?.timestamp;
      return {
        report,
        source: {
          commit: run.head_sha,
          ...(timestamp && z.iso.datetime({ offset: true }).safeParse(timestamp).success
            ? { committed_at: timestamp }
            : {}),
          run_id: run.id,
          ...(run.head_branch ? { branch: run.head_branch } : {}),
          ...(fallback && sha ? { fallback_from: sha } : {}),
        },
      };
    };
    if (sha) {
      const runs = ours(
        (await listRuns(api, repo, { head_sha: sha, per_page: 20 })).filter(
          (r) => r.head_sha === sha && r.status === 'completed',
        ),
      );
      for (const run of runs.slice(0, 10)) {
        const found = await take(run, false);
        if (found) return found;
      }
      notes.push(
        runs.length
          ? `the base commit ${shortSha(sha)} has ${runs.length} finished run(s), none with an artifact "${want.name}"`
          : `the base commit ${shortSha(sha)} has no finished workflow run`,
      );
    }
    if (base.branch) {
      looking = 'listing workflow runs';
      // Pushes only: a pull request's run may have a branch of the same name.
      const runs = ours(
        (
          await listRuns(api, repo, { branch: base.branch, event: 'push', status: 'success', per_page: 10 })
        ).filter((r) => SHA.test(r.head_sha) && r.head_sha !== sha && r.head_sha !== base.exclude),
      );
      for (const run of runs) {
        const found = await take(run, true);
        if (found) return found;
      }
      notes.push(`none of the ${runs.length} latest successful run(s) on ${base.branch} has one`);
    }
    return {
      warning: `baseline: auto found no report to compare with: ${notes.join('; ')}. Upload the report in the workflow that runs on ${base.branch ?? 'the base branch'} (actions/upload-artifact, name: ${want.name}); no deltas, max_drop gates skipped`,
    };
  } catch (err) {
    return {
      warning: `baseline: auto: ${explainApiFailure(err, looking)}; no deltas, max_drop gates skipped`,
    };
  }
}

/** What went wrong with an artifact request, and what would fix it. */
export function explainApiFailure(err: unknown, doing: string): string {
  if (err instanceof ArtifactError) return `${doing}: ${err.message}`;
  const { status, rateLimited } = err as { status?: number; rateLimited?: boolean };
  if (!rateLimited && (status === 401 || status === 403 || status === 404))
    return `${doing}: HTTP ${status}; the token needs the "actions: read" permission (add it under permissions: in the workflow)`;
  return `${doing}: ${(err as Error).message}`;
}

/** A report of one run (the workflow_run that triggered this one), or why it cannot be read. */
export async function runReport(
  api: GitHubApi,
  repo: RepoRef,
  runId: number,
  want: ReportArtifact,
): Promise<{ report: Report; text: string; label: string }> {
  const label = `artifact "${want.name}" of run ${runId}`;
  const artifact = await runArtifact(api, repo, runId, want.name);
  if (!artifact || artifact === 'expired')
    throw new ArtifactError(
      `${label}: ${artifact ? 'expired' : 'not found'}; expected the pull-request workflow to upload its report (actions/upload-artifact, name: ${want.name})`,
    );
  try {
    const text = await readArtifactReport(api, repo, artifact, want);
    const report = parsed(text, label, 'the report');
    const problem = foreignReportProblem(report);
    if (problem) throw new ArtifactError(`not a report groundgate wrote: ${problem}`);
    return { report, text, label };
  } catch (err) {
    if (err instanceof ArtifactError) throw new ArtifactError(`${label}: ${err.message}`);
    throw err;
  }
}

/** One report of a branch's history: its commit and when its artifact was made. */
export interface BranchReport {
  report: Report;
  commit: string;
  created: string;
}

/**
 * The reports of the last `count` commits of `branch` that uploaded one (newest artifact per commit), oldest
 * first. Downloads are bounded in number, concurrency, total bytes and time; what could not be read is
 * counted in the warnings and left out of the trend.
 */
export async function branchReports(
  api: GitHubApi,
  repo: RepoRef,
  options: { branch: string; count: number; exclude?: string; concurrency?: number; maxTotalBytes?: number },
  want: ReportArtifact,
): Promise<{ reports: BranchReport[]; warnings: string[] }> {
  const warnings: string[] = [];
  const picked: Artifact[] = [];
  const seen = new Set<string>();
  try {
    for (let page = 1; page <= 3 && picked.length < options.count; page++) {
      const { data } = await api.octokit.request('GET /repos/{owner}/{repo}/actions/artifacts', {
        ...repo,
        name: want.name,
        per_page: 100,
        page,
      });
      const artifacts = checked(
        z.looseObject({ artifacts: z.array(artifactSchema) }),
        data,
        'artifacts',
      ).artifacts;
      for (const a of artifacts) {
        const run = a.workflow_run;
        const commit = run?.head_sha;
        if (a.name !== want.name || a.expired || !run || !commit || !SHA.test(commit)) continue;
        if (run.head_branch !== options.branch || commit === options.exclude || seen.has(commit)) continue;
        // A fork's pull request can name its branch like ours: only runs of this repository count.
        if (run.repository_id == null || run.repository_id !== run.head_repository_id) continue;
        seen.add(commit);
        picked.push(a);
        if (picked.length === options.count) break;
      }
      if (artifacts.length < 100) break;
    }
  } catch (err) {
    warnings.push(`history: auto: ${explainApiFailure(err, 'listing report artifacts')}; no trend`);
    return { reports: [], warnings };
  }

  const maxTotal = options.maxTotalBytes ?? 4 * want.maxBytes;
  let total = 0;
  const failures: string[] = [];
  const results: (BranchReport | undefined)[] = [];
  let next = 0;
  const worker = async () => {
    while (next < picked.length) {
      const at = next++;
      const a = picked[at]!;
      const commit = a.workflow_run!.head_sha!;
      total += a.size_in_bytes ?? 0;
      if (total > maxTotal) {
        failures.push(`${shortSha(commit)}: over the ${megabytes(maxTotal)} total`);
        continue;
      }
      try {
        const text = await readArtifactReport(api, repo, a, want);
        results[at] = {
          report: parsed(text, `artifact of ${shortSha(commit)}`),
          commit,
          created: a.created_at ?? '',
        };
      } catch (err) {
        failures.push(
          `${shortSha(commit)}: ${explainApiFailure(err, 'download').replace(/^download: /, '')}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, picked.length) }, worker));
  if (failures.length)
    warnings.push(
      `history: auto: ${failures.length} of ${picked.length} report(s) left out of the trend (${failures.slice(0, 3).join('; ')}${failures.length > 3 ? '; …' : ''})`,
    );
  // The API lists newest first; a trend reads left to right (a stable sort keeps that order among equal times).
  const reports = results.filter((r): r is BranchReport => r !== undefined).reverse();
  reports.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0));
  return { reports, warnings };
}
