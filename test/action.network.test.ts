import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOutputs, regress, runAction, workspace } from './helpers/action.js';
import { FakeGitHub } from './helpers/fake-github.js';

// A slow or broken GitHub API may cost the comment, never the verdict, the outputs or the job's time.
describe('the Action (node dist/index.js) when the GitHub API misbehaves', () => {
  const servers: FakeGitHub[] = [];
  const api = async () => {
    const gh = await new FakeGitHub().start();
    servers.push(gh);
    return gh;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('an API that accepts and never answers: the verdict, outputs and summary are written first, and the job ends within the 30 s budget', async () => {
    const runs = await Promise.all(
      ['pass', 'fail'].map(async (which) => {
        const gh = await api();
        gh.hang = true;
        const ws = workspace();
        if (which === 'fail') regress(ws);
        // What the runner would already see when the first request goes out.
        let atFirstRequest: { outputs: Record<string, string>; summary: string; report: boolean } | undefined;
        gh.onRequest = () => {
          atFirstRequest ??= {
            outputs: parseOutputs(path.join(ws, 'out.txt')),
            summary: readFileSync(path.join(ws, 'summary.md'), 'utf8'),
            report: existsSync(path.join(ws, 'groundgate-report.json')),
          };
        };
        const run = await runAction(ws, gh.url);
        return { run, atFirstRequest, gh };
      }),
    );
    const [pass, fail] = runs;
    expect(pass!.run.code).toBe(0);
    expect(fail!.run.code).toBe(1);
    for (const { run, atFirstRequest, gh } of runs) {
      // Default limits: 10 s per attempt, 3 attempts, 30 s in all; then the process ends at once.
      expect(run.ms).toBeGreaterThan(25_000);
      expect(run.ms).toBeLessThan(45_000);
      expect(gh.requests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill('GET /user'));
      expect(run.stdout).toMatch(
        /::warning::groundgate: could not write the pull-request comment: GET \/user: no answer within 7 s \(3 attempts in (29|30)(\.\d)? s\); the job summary, outputs and the gate verdict are unaffected\./,
      );
      expect(atFirstRequest!.report).toBe(true);
      expect(Object.keys(atFirstRequest!.outputs)).toEqual(['passed', 'failed-gates', 'report', 'metrics']);
      expect(atFirstRequest!.outputs).toEqual(run.outputs);
      expect(atFirstRequest!.summary).toBe(run.summary);
    }
    expect(pass!.run.outputs.passed).toBe('true');
    expect(fail!.run.outputs.passed).toBe('false');
    expect(fail!.run.summary).toMatch(/FAIL — 7 of 8 gates failed, 1 skipped/);
    // The failure annotation too is out before the first request.
    expect(fail!.run.stdout.indexOf('::error::groundgate: 7 gate(s) failed')).toBeLessThan(
      fail!.run.stdout.indexOf('::warning::groundgate: could not write'),
    );
  }, 90_000);

  it('retries 5xx answers with backoff and then writes the comment', async () => {
    const gh = await api();
    gh.failures = [
      { status: 502, body: { message: 'Bad Gateway' } },
      { status: 503, body: { message: 'Service Unavailable' } },
    ];
    const ws = workspace();
    const run = await runAction(ws, gh.url);
    expect(run.code).toBe(0);
    expect(gh.requests.slice(0, 3).map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill('GET /user'));
    expect(gh.comments).toHaveLength(1);
    expect(run.stdout).toMatch(/groundgate: pull-request comment created \(id \d+\)/);
    // The example's gates sit inside their intervals and say so (::warning::qa: …); none is the network's.
    expect(run.stdout).not.toContain('::warning::groundgate:');
    // Waits of 1 s and 2 s between the attempts.
    expect(run.ms).toBeGreaterThan(3_000);
  }, 30_000);

  it('waits out a secondary rate limit (403 with retry-after), and gives up at once when the wait exceeds the budget', async () => {
    const gh = await api();
    const limited = (seconds: number) => ({
      status: 403,
      headers: { 'retry-after': String(seconds) },
      body: {
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      },
    });
    gh.failures = [limited(1)];
    const ws = workspace();
    const ok = await runAction(ws, gh.url);
    expect(ok.code).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.requests.filter((r) => r.path === '/user')).toHaveLength(2);

    gh.failures = [limited(120)];
    regress(ws);
    const gaveUp = await runAction(ws, gh.url);
    expect(gaveUp.code).toBe(1);
    expect(gaveUp.ms).toBeLessThan(10_000);
    expect(gaveUp.stdout).toContain(
      "::warning::groundgate: could not write the pull-request comment: the GitHub API's rate limit asks for a longer wait than the time budget allows (GET /user: HTTP 403: You have exceeded a secondary rate limit.",
    );
    expect(gaveUp.outputs.passed).toBe('false');
  }, 30_000);

  it('two runs of one pull request that race to create the comment leave one comment, the oldest', async () => {
    const gh = await api();
    gh.delayMs = 150;
    // Both runs list the comments before either creates one: each finds none, each creates one.
    gh.listBarrier = 2;
    const [a, b] = [workspace(), workspace()];
    regress(b);
    const runs = await Promise.all([runAction(a, gh.url), runAction(b, gh.url)]);
    expect(runs.map((r) => r.code).sort()).toEqual([0, 1]);
    const methods = gh.writes().map((r) => r.method);
    expect(methods.filter((m) => m === 'POST')).toHaveLength(2);
    expect(methods.filter((m) => m === 'DELETE').length).toBeGreaterThanOrEqual(1);
    expect(gh.comments).toHaveLength(1);
    const [kept] = gh.comments;
    expect(kept!.id).toBe(1000); // the first one created
    expect(kept!.body).toMatch(/^<!-- groundgate:gates\.yaml -->\n### (✅|❌) groundgate/);
    expect(runs.map((r) => r.stdout).join('\n')).toMatch(/deleted 1 newer duplicate/);

    // A later run finds the one comment and updates it in place.
    await runAction(a, gh.url);
    expect(gh.comments.map((c) => c.id)).toEqual([1000]);
  }, 60_000);
});
