import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { regress, runAction, TOKEN, workspace } from './helpers/action.js';
import { addRun, pullRequestEvent, readJson, reportZip, runCliAsync, sha } from './helpers/artifacts.js';
import { FakeGitHub, FakeStorage } from './helpers/fake-github.js';
import { runCli } from './helpers/process.js';
import { qaOnlyGates, tmpTree } from './helpers/tmp.js';

/** Reports of the qa example as the base branch's runs uploaded them: today's traces, and the regressed ones. */
let good = '';
let regressed = '';
beforeAll(() => {
  for (const which of ['good', 'regressed'] as const) {
    const ws = workspace();
    if (which === 'regressed') regress(ws);
    const r = runCli(['check', '--report', 'r.json', '-q'], ws);
    expect(r.status).toBe(which === 'good' ? 0 : 1);
    const text = readFileSync(path.join(ws, 'r.json'), 'utf8');
    if (which === 'good') good = text;
    else regressed = text;
  }
});

const BASE = sha('b');

/** A local API with its storage host, stopped after each test. */
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
async function api(): Promise<FakeGitHub> {
  const gh = await new FakeGitHub().start();
  gh.storage = await new FakeStorage().start();
  stops.push(
    () => gh.stop(),
    () => gh.storage!.stop(),
  );
  return gh;
}
const OLDER = sha('a');

describe('baseline: auto and history: auto (node dist/index.js against a local API and storage host)', () => {
  it("compares with the base commit's report artifact: deltas, flips and max_drop, the commit named; three main commits draw the trend", async () => {
    const gh = await api();
    addRun(gh, { id: 11, commit: BASE, zip: reportZip(good), committedAt: '2026-11-20T08:00:00Z' });
    // Listed newest first by the API (by id); the trend orders by time, which here is not id order.
    addRun(gh, { id: 10, commit: sha('9'), zip: reportZip(regressed), committedAt: '2026-11-18T08:00:00Z' });
    addRun(gh, { id: 9, commit: sha('1'), zip: reportZip(good), committedAt: '2026-11-19T08:00:00Z' });
    // A fork's pull request run whose branch is also called main: never a baseline nor a trend point.
    addRun(gh, {
      id: 12,
      commit: sha('f'),
      fork: 'mallory/rag',
      event: 'pull_request',
      zip: reportZip(regressed),
    });
    const ws = workspace();
    regress(ws);
    pullRequestEvent(ws, BASE);
    const run = await runAction(ws, gh.url, { baseline: 'auto', history: 'auto' });
    expect(run.code).toBe(1);

    const report = readJson(path.join(ws, 'groundgate-report.json'));
    expect(report.baseline).toEqual({
      commit: BASE,
      committed_at: '2026-11-20T08:00:00Z',
      run_id: 11,
      branch: 'main',
    });
    const comment = gh.comments.at(-1)!.body;
    expect(comment).toMatch(
      new RegExp(
        `Compared with \\[\`bbbbbbb\`\\]\\(https://github\\.example/acme/rag/commit/${BASE}\\), the base commit \\(run 11, \\d+ days old\\)\\.`,
      ),
    );
    expect(run.summary).toContain('Compared with [`bbbbbbb`]');
    // Deltas against the base, the flips, and max_drop judged rather than skipped.
    // precision 16/32 now, 30/33 on the base: 0.5 − 0.9091.
    expect(comment).toContain('| precision | 0.5000 | 16/32 | −0.4091 | >= 0.8 | ❌ |');
    expect(comment).toContain('vs baseline: **17 regressed** (pass → fail)');
    expect(comment).toMatch(/^### ❌ groundgate: FAIL — 8 of 8 gates failed$/m);
    const recall = (
      report.gates as { metric: string; op: string; skipped?: boolean; passed: boolean }[]
    ).find((g) => g.metric === 'recall@5' && g.op === 'max_drop')!;
    expect(recall.skipped).toBeUndefined();
    expect(recall.passed).toBe(false);
    // The trend: the three main commits, oldest first, then this run; the fork's run is not among them.
    expect(comment).toContain('x-axis ["9999999", "1111111", "bbbbbbb", "now"]');
    expect(comment).toContain('line [0.5, 0.9091, 0.9091, 0.5]');
    expect(comment).not.toContain('fffffff');

    // The zips came from the storage host, and the token never went there; the base commit's report,
    // also a trend point, was downloaded once.
    expect(gh.storage!.requests.length).toBe(3);
    expect(gh.storage!.requests.every((r) => r.authorization === undefined)).toBe(true);
    expect(
      gh.requests
        .filter((r) => r.path.includes('/actions/'))
        .every((r) => r.authorization === `token ${TOKEN}`),
    ).toBe(true);
    expect(run.stdout).not.toMatch(/::warning::(groundgate: )?(baseline|history): auto/);
  }, 60_000);

  it('falls back to the newest report on the base branch when the base commit has none, and says so', async () => {
    const gh = await api();
    addRun(gh, { id: 20, commit: OLDER, zip: reportZip(good), committedAt: '2026-11-19T08:00:00Z' });
    addRun(gh, { id: 21, commit: BASE }); // finished, but uploaded nothing
    const ws = workspace();
    pullRequestEvent(ws, BASE);
    const run = await runAction(ws, gh.url, { baseline: 'auto' });
    expect(run.code).toBe(0);
    expect(readJson(path.join(ws, 'groundgate-report.json')).baseline).toEqual({
      commit: OLDER,
      committed_at: '2026-11-19T08:00:00Z',
      run_id: 20,
      branch: 'main',
      fallback_from: BASE,
    });
    expect(gh.comments.at(-1)!.body).toMatch(
      /Compared with \[`aaaaaaa`\]\(https:\/\/github\.example\/acme\/rag\/commit\/a{40}\), the newest report on main: the base commit \[`bbbbbbb`\]\(https:\/\/github\.example\/acme\/rag\/commit\/b{40}\) has none \(run 20, \d+ days old\)\./,
    );
    // Same traces as the baseline: every delta is zero and the max_drop gate passes.
    expect(run.outputs['failed-gates']).toBe('[]');
  }, 60_000);

  it("asks this workflow's run of the base commit first, however many other workflows ran on it", async () => {
    const gh = await api();
    addRun(gh, { id: 100, commit: BASE, zip: reportZip(good) });
    for (let id = 101; id <= 115; id++)
      addRun(gh, { id, commit: BASE, workflow: `.github/workflows/ci-${id}.yml` });
    const ws = workspace();
    pullRequestEvent(ws, BASE);
    const run = await runAction(
      ws,
      gh.url,
      { baseline: 'auto' },
      { GITHUB_WORKFLOW_REF: 'acme/rag/.github/workflows/groundgate.yml@refs/pull/7/merge' },
    );
    expect(run.code).toBe(0);
    expect(readJson(path.join(ws, 'groundgate-report.json')).baseline).toMatchObject({
      commit: BASE,
      run_id: 100,
    });
    // One listing of the commit's runs, one of run 100's artifacts: the other workflows' runs are not asked.
    expect(gh.requests.filter((r) => r.path.includes('/artifacts')).map((r) => r.path)).toEqual([
      '/repos/acme/rag/actions/runs/100/artifacts?name=groundgate-report&per_page=10',
      '/repos/acme/rag/actions/artifacts/1000/zip',
    ]);
  }, 60_000);

  it('no report anywhere: a warning that says how to fix it, max_drop skipped, the verdict of the other gates', async () => {
    const gh = await api();
    addRun(gh, { id: 30, commit: BASE });
    const ws = workspace();
    pullRequestEvent(ws, BASE);
    const run = await runAction(ws, gh.url, { baseline: 'auto' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '::warning::baseline: auto found no report to compare with: the base commit bbbbbbb has 1 finished run(s), none with an artifact "groundgate-report"; none of the 0 latest successful run(s) on main has one. Upload the report in the workflow that runs on main (actions/upload-artifact, name: groundgate-report); no deltas, max_drop gates skipped',
    );
    expect(JSON.parse(run.outputs['failed-gates']!)).toEqual([
      expect.objectContaining({ metric: 'recall@5', op: 'max_drop', skipped: true }),
    ]);
    expect(readJson(path.join(ws, 'groundgate-report.json')).baseline).toBeUndefined();
  }, 60_000);

  const broken: [string, () => Uint8Array, RegExp, Record<string, string>?][] = [
    [
      'a corrupt zip',
      () => strToU8('PK\u0003\u0004 this is not a zip at all'),
      /artifact "groundgate-report" of run 40 \(commit bbbbbbb\): .*(not a readable zip|corrupt|holds no report)/,
    ],
    [
      'a zip bomb (8 MiB of spaces in a few kB, with a 1 MiB cap)',
      () => reportZip(new Uint8Array(8 * 2 ** 20).fill(32)),
      /entry "groundgate-report\.json" inflates past 1 MiB; expected a report\.json under that size/,
      { GROUNDGATE_ARTIFACT_MAX_MB: '1' },
    ],
    [
      'a report of another schema version',
      () => reportZip(good.replace('"schema_version": "1"', '"schema_version": "2"')),
      /baseline is not a groundgate report: schema_version: expected "1" \(found "2"\)/,
    ],
    [
      'a zip without the report',
      () => reportZip('{}', 'notes.txt'),
      /holds no report \(found "notes\.txt"\)/,
    ],
  ];
  for (const [what, zip, message, env] of broken) {
    it(`${what}: a warning naming the artifact, no deltas, exit by the other gates`, async () => {
      const gh = await api();
      addRun(gh, { id: 40, commit: BASE, zip: zip() });
      const ws = workspace();
      pullRequestEvent(ws, BASE);
      const run = await runAction(ws, gh.url, { baseline: 'auto' }, env);
      expect(run.code).toBe(0);
      const warning = run.stdout.split('\n').find((l) => l.startsWith('::warning::baseline: auto'));
      expect(warning).toMatch(message);
      expect(warning).toMatch(/no deltas, max_drop gates skipped$/);
      expect(readJson(path.join(ws, 'groundgate-report.json')).baseline).toBeUndefined();
      expect(run.outputs.passed).toBe('true');
    }, 60_000);
  }

  it('a token without actions: read says which permission to add', async () => {
    const gh = await api();
    gh.failures = [{ status: 403, body: { message: 'Resource not accessible by integration' } }];
    const ws = workspace();
    pullRequestEvent(ws, BASE);
    const run = await runAction(ws, gh.url, { baseline: 'auto' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '::warning::baseline: auto: listing workflow runs: HTTP 403; the token needs the "actions: read" permission (add it under permissions: in the workflow); no deltas, max_drop gates skipped',
    );
  }, 60_000);

  it('an API that never answers costs the comparison, within its budget, never the verdict', async () => {
    const gh = await api();
    gh.hang = true;
    const ws = workspace();
    regress(ws);
    pullRequestEvent(ws, BASE);
    const env = { GROUNDGATE_API_BUDGET_MS: '3000', GROUNDGATE_API_TIMEOUT_MS: '1000' };
    const run = await runAction(ws, gh.url, { baseline: 'auto', history: 'auto' }, env);
    expect(run.code).toBe(1);
    expect(run.outputs.passed).toBe('false');
    expect(run.stdout).toMatch(
      /::warning::baseline: auto: listing workflow runs: GET \/repos\/\{owner\}\/\{repo\}\/actions\/runs: no answer within 1 s \(\d attempts in \d(\.\d)? s\); no deltas, max_drop gates skipped/,
    );
    expect(run.stdout).toMatch(
      /::warning::groundgate: history: auto: listing report artifacts: .*no answer within 1 s/,
    );
    // Three phases (baseline, trend, comment), each within its 3 s budget.
    expect(run.ms).toBeLessThan(20_000);
  }, 60_000);

  it('a storage host that never answers is cut off after the per-request timeout', async () => {
    const gh = await api();
    gh.storage!.hang = true;
    addRun(gh, { id: 50, commit: BASE, zip: reportZip(good) });
    const ws = workspace();
    pullRequestEvent(ws, BASE);
    const run = await runAction(ws, gh.url, { baseline: 'auto' }, { GROUNDGATE_API_TIMEOUT_MS: '1000' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '::warning::baseline: auto: downloading artifact "groundgate-report" of run 50 (commit bbbbbbb): download from its storage host failed (no answer within 1 s); no deltas, max_drop gates skipped',
    );
  }, 60_000);
});

describe('fork pull requests: the workflow_run pattern (mode: comment)', () => {
  const HEAD = sha('c');
  const workflowRunEvent = (dir: string, run: Record<string, unknown> = {}) =>
    writeFileSync(
      path.join(dir, 'event.json'),
      JSON.stringify({
        action: 'completed',
        workflow_run: {
          id: 77,
          event: 'pull_request',
          head_sha: HEAD,
          head_branch: 'feature',
          head_repository: { full_name: 'forker/rag', owner: { login: 'forker' } },
          pull_requests: [],
          ...run,
        },
        repository: { id: 1, full_name: 'acme/rag', default_branch: 'main' },
      }),
    );
  const comment = { mode: 'comment' };
  /** Run 77: a fork's pull-request run at HEAD that uploaded `zip`. */
  const forkRun = (gh: FakeGitHub, zip: Uint8Array) =>
    addRun(gh, { id: 77, commit: HEAD, branch: 'feature', event: 'pull_request', fork: 'forker/rag', zip });
  const onWorkflowRun = { GITHUB_EVENT_NAME: 'workflow_run' };
  /** mode: comment in an empty folder, for run 77 of the fork's open pull request #13 with `report` uploaded. */
  const relayToPull13 = async (gh: FakeGitHub, report: string) => {
    forkRun(gh, reportZip(report));
    gh.pulls.push({
      number: 13,
      state: 'open',
      head: { sha: HEAD, ref: 'feature', label: 'forker:feature' },
    });
    const ws = tmpTree({});
    workflowRunEvent(ws);
    return runAction(ws, gh.url, comment, onWorkflowRun);
  };

  it("the fork's own run skips the comment (its token is read-only) and says where it will come from", async () => {
    const gh = await api();
    const ws = workspace();
    pullRequestEvent(ws, BASE, 'forker/rag');
    const run = await runAction(ws, gh.url);
    expect(run.code).toBe(0);
    expect(gh.requests.filter((r) => r.path.includes('/comments'))).toEqual([]);
    expect(run.stdout).toContain(
      'no pull-request comment: a pull request from a fork runs with a read-only token',
    );
  }, 60_000);

  it("posts the triggering run's report on its pull request without a checkout", async () => {
    const gh = await api();
    forkRun(gh, reportZip(regressed));
    gh.pulls.push(
      { number: 12, state: 'open', head: { sha: sha('d'), ref: 'feature', label: 'someone:feature' } },
      { number: 13, state: 'open', head: { sha: HEAD, ref: 'feature', label: 'forker:feature' } },
    );
    // An empty folder: the workflow_run job checks nothing out.
    const ws = tmpTree({});
    workflowRunEvent(ws);
    const run = await runAction(ws, gh.url, comment, { ...onWorkflowRun, GITHUB_RUN_ID: '99' });
    expect(run.code).toBe(0);
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/rag/issues/13/comments',
    ]);
    const body = gh.comments.at(-1)!.body;
    expect(body).toMatch(
      /^<!-- groundgate:gates\.yaml -->\n### ❌ groundgate: FAIL — 7 of 8 gates failed, 1 skipped\n/,
    );
    // The footer links the run whose report this is, not the workflow_run job.
    expect(body).toContain('[workflow run](https://github.example/acme/rag/actions/runs/77)');
    expect(run.outputs.passed).toBe('false');
    expect(run.summary).toBe(body);
    expect(readFileSync(path.join(ws, 'groundgate-report.json'), 'utf8')).toBe(regressed);

    // The same report again: the comment is found and left as it is.
    await runAction(ws, gh.url, comment, onWorkflowRun);
    expect(gh.writes()).toHaveLength(1);
  }, 60_000);

  it('a pull request that moved on to a newer commit gets no stale comment', async () => {
    const gh = await api();
    forkRun(gh, reportZip(regressed));
    gh.pulls.push({
      number: 13,
      state: 'open',
      head: { sha: sha('d'), ref: 'feature', label: 'forker:feature' },
    });
    const ws = tmpTree({});
    workflowRunEvent(ws);
    const run = await runAction(ws, gh.url, comment, onWorkflowRun);
    expect(run.code).toBe(0);
    expect(gh.writes()).toEqual([]);
    expect(run.stdout).toContain('belongs to no open pull request at commit ccccccc');
  }, 60_000);

  it('a forged artifact is data: a report that fails its schema is a warning, and nothing is posted', async () => {
    const gh = await api();
    const forged = JSON.stringify({ ...JSON.parse(good), verdict: 'pass', extra: '<img src=x>' });
    const run = await relayToPull13(gh, forged);
    expect(run.code).toBe(0);
    expect(gh.writes()).toEqual([]);
    expect(run.stdout).toMatch(
      /::warning::groundgate: reading the report of run 77: artifact "groundgate-report" of run 77: the report is not a groundgate report: root: Unrecognized key: "extra"/,
    );
  }, 60_000);

  it('a report naming metrics groundgate does not have is not rendered (its names would reach the comment unescaped)', async () => {
    const gh = await api();
    const report = JSON.parse(good) as { suites: { qa: { metrics: Record<string, unknown> } } };
    report.suites.qa.metrics['x | [click](https://evil.example) @acme/team'] = { value: 1 };
    const run = await relayToPull13(gh, JSON.stringify(report));
    expect(run.code).toBe(0);
    expect(gh.writes()).toEqual([]);
    expect(run.stdout).toContain(
      'not a report groundgate wrote: suite "qa": unknown metric "x | [click](https://evil.example) @acm… for kind grounded-qa; no comment',
    );
  }, 60_000);

  it("a pull request the event lists is used only when it is this repository's, at the run's commit", async () => {
    const gh = await api();
    addRun(gh, { id: 77, commit: HEAD, branch: 'feature', event: 'pull_request', zip: reportZip(good) });
    const ws = tmpTree({});
    // Number 5 belongs to another repository (the fork's own pull request), number 6 to an older commit.
    workflowRunEvent(ws, {
      head_repository: { full_name: 'acme/rag', owner: { login: 'acme' } },
      pull_requests: [
        { number: 5, head: { sha: HEAD }, base: { repo: { id: 999 } } },
        { number: 6, head: { sha: sha('d') }, base: { repo: { id: 1 } } },
        { number: 8, head: { sha: HEAD }, base: { repo: { id: 1 } } },
      ],
    });
    const run = await runAction(ws, gh.url, comment, onWorkflowRun);
    expect(run.code).toBe(0);
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/rag/issues/8/comments',
    ]);
  }, 60_000);

  it('a workflow_run job without mode: comment still gates (comment: always on a workflow_run was always allowed)', async () => {
    const gh = await api();
    const ws = workspace();
    regress(ws);
    workflowRunEvent(ws);
    const run = await runAction(ws, gh.url, {}, onWorkflowRun);
    expect(run.code).toBe(1);
    expect(run.outputs.passed).toBe('false');
  }, 60_000);

  it('mode: comment outside a workflow_run event is a usage error', async () => {
    const gh = await api();
    const ws = workspace();
    const run = await runAction(ws, gh.url, { mode: 'comment' });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      '::error::groundgate: input "mode": comment posts the report of the run that triggered this workflow; expected a workflow_run event (on: workflow_run), found pull_request',
    );
  }, 60_000);
});

describe('groundgate check --baseline gh:auto (the CLI, from the local git state)', () => {
  /** A clone of acme/rag: origin/main at a commit, and a local branch one commit ahead of it. */
  function clone(): { dir: string; base: string } {
    const dir = workspace();
    writeFileSync(path.join(dir, 'gates.yaml'), qaOnlyGates());
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const base = git('rev-parse', 'HEAD');
    git('remote', 'add', 'origin', 'git@github.com:acme/rag.git');
    git('update-ref', 'refs/remotes/origin/main', base);
    git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
    git('checkout', '-q', '-b', 'feature');
    regress(dir);
    git('commit', '-q', '-am', 'change the pipeline');
    return { dir, base };
  }

  it("shows the pull request comment's deltas before pushing", async () => {
    const gh = await api();
    const { dir, base } = clone();
    addRun(gh, { id: 5, commit: base, zip: reportZip(good) });
    const r = await runCliAsync(['check', '--baseline', 'gh:auto', '--report', 'out.json'], dir, {
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: gh.url,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`Compared with ${base.slice(0, 7)}, the base commit (run 5, `);
    expect(r.stdout).toMatch(/Δ base/);
    expect(readJson(path.join(dir, 'out.json')).baseline).toMatchObject({ commit: base, run_id: 5 });
    expect(gh.requests[0]!.path).toBe(`/repos/acme/rag/actions/runs?head_sha=${base}&per_page=20`);
  }, 60_000);

  it('a remote on another host is not sent a github.com token', async () => {
    const { dir } = clone();
    execFileSync('git', ['remote', 'set-url', 'origin', 'git@gitlab.example:acme/rag.git'], { cwd: dir });
    const r = await runCliAsync(['check', '--baseline', 'gh:auto'], dir, { GITHUB_TOKEN: TOKEN });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'groundgate: warning: --baseline gh:auto: origin is on gitlab.example, not github.com; for GitHub Enterprise set GITHUB_API_URL (https://gitlab.example/api/v3); no deltas, max_drop gates skipped',
    );
  }, 60_000);

  it('without a token: a warning, and the run as without a baseline', async () => {
    const { dir } = clone();
    const r = await runCliAsync(['check', '--baseline', 'gh:auto'], dir, {});
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "groundgate: warning: --baseline gh:auto needs a token in GITHUB_TOKEN (or GH_TOKEN) that can read the repository's actions",
    );
  }, 60_000);
});
