import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { regress, runAction, TOKEN, workspace } from './helpers/action.js';
import { FakeGitHub } from './helpers/fake-github.js';
import { REPO } from './helpers/tmp.js';

describe('the Action (node dist/index.js) against a local GitHub API', () => {
  let gh: FakeGitHub;
  beforeEach(async () => {
    gh = await new FakeGitHub().start();
    // Other people's comments, one of them quoting our marker: only the bot's own comment is sticky.
    gh.comments.push(
      { id: 1, body: 'LGTM', user: { login: 'alice', type: 'User' } },
      { id: 2, body: '<!-- groundgate:gates.yaml -->\nspoofed', user: { login: 'mallory', type: 'User' } },
      { id: 3, body: 'ci is slow', user: { login: 'bob', type: 'User' } },
    );
  });
  afterEach(() => gh.stop());

  it('creates the comment, then updates the same one, then makes no write when nothing changed', async () => {
    const ws = workspace();
    const first = await runAction(ws, gh.url);
    expect(first.code).toBe(0);
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/rag/issues/7/comments',
    ]);
    const created = gh.comments.at(-1)!;
    expect(created.body).toMatch(
      /^<!-- groundgate:gates\.yaml -->\n### ✅ groundgate: PASS — 7 of 8 gates passed, 1 skipped\n/,
    );
    expect(created.body).toContain('| precision | 0.9091 | 30/33 | >= 0.8 | ✅ |');
    expect(created.body).toContain('[workflow run](https://github.example/acme/rag/actions/runs/42)');
    expect(first.outputs).toMatchObject({
      passed: 'true',
      'failed-gates': JSON.stringify([
        {
          suite: 'qa',
          metric: 'recall@5',
          op: 'max_drop',
          threshold: 0.02,
          value: 32 / 35,
          reason: 'no baseline report given',
          skipped: true,
        },
      ]),
      report: path.join(ws, 'groundgate-report.json'),
    });
    expect(JSON.parse(first.outputs.metrics!).qa.precision).toBe(30 / 33);
    expect(first.summary).toBe(created.body);

    regress(ws);
    const second = await runAction(ws, gh.url);
    expect(second.code).toBe(1);
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/rag/issues/7/comments',
      `PATCH /repos/acme/rag/issues/comments/${created.id}`,
    ]);
    expect(gh.comments).toHaveLength(4);
    expect(created.body).toMatch(
      /^<!-- groundgate:gates\.yaml -->\n### ❌ groundgate: FAIL — 7 of 8 gates failed, 1 skipped\n/,
    );
    expect(created.body).toContain('<summary>Top offenders (10 of 22)</summary>');
    expect(created.body).toContain('**Where it fails** (13 answered wrong, 5 over-refused)');
    expect(created.body).toMatch(
      /\| retrieval \| 2 \| no gold chunk reached the model: .* \| `FM015`, `FM018` \|/,
    );
    expect(second.outputs.passed).toBe('false');
    expect(JSON.parse(second.outputs['failed-gates']!).map((g: { metric: string }) => g.metric)).toEqual([
      'precision',
      'chr',
      'under_refusal',
      'over_refusal',
      'scu_violations',
      'recall@5',
      'recall@5',
      'coverage',
    ]);
    expect(JSON.parse(second.outputs['failed-gates']!)[6]).toMatchObject({ op: 'max_drop', skipped: true });
    // Failed gates annotate gates.yaml; offenders annotate their gold lines.
    expect(second.stdout).toContain(
      '::error title=gate failed%3A qa.precision,file=gates.yaml,line=16::groundgate: qa.precision = 0.5000, wanted >= 0.8',
    );
    expect(second.stdout).toContain(
      '::warning title=groundgate offender (qa),file=gold/qa.gold.jsonl,line=4::FM004: under_refusal',
    );
    expect(second.stdout.match(/^::warning title=groundgate offender/gm)).toHaveLength(10);

    const third = await runAction(ws, gh.url);
    expect(third.code).toBe(1);
    expect(gh.writes()).toHaveLength(2);
    expect(third.stdout).toContain(`groundgate: pull-request comment unchanged (id ${created.id})`);
    // Reads went through every page (3 + 1 comments at 2 per page).
    expect(
      gh.requests.filter((r) => r.method === 'GET' && r.path.includes('/comments')).length,
    ).toBeGreaterThanOrEqual(2 * 3);

    for (const r of [first, second, third]) expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(gh.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
  });

  it('on a 403 warns about the missing permission, and the gates alone decide the exit status', async () => {
    gh.failWrites = 403;
    const ws = workspace();
    const pass = await runAction(ws, gh.url);
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(
      /::warning::groundgate: could not write the pull-request comment \(HTTP 403\): the token needs the "pull-requests: write" permission/,
    );
    expect(pass.summary).toMatch(/PASS — 7 of 8 gates passed, 1 skipped/);
    regress(ws);
    const fail = await runAction(ws, gh.url);
    expect(fail.code).toBe(1);
    expect(fail.outputs.passed).toBe('false');
  });

  it('reports only with fail-on-gate: false, and posts nothing with comment: never', async () => {
    const ws = workspace();
    regress(ws);
    const r = await runAction(ws, gh.url, { 'fail-on-gate': 'false', comment: 'never' });
    expect(r.code).toBe(0);
    expect(r.outputs.passed).toBe('false');
    expect(gh.requests).toEqual([]);
    expect(r.stdout).toContain('groundgate: no pull-request comment (comment: never)');
  });

  it('loads no Node module at start-up that a small run does not use (each costs start-up time)', async () => {
    const ws = workspace();
    const hook = path.join(ws, 'modules.mjs');
    writeFileSync(
      hook,
      `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(${JSON.stringify(path.join(ws, 'modules.txt'))}, process.moduleLoadList.join('\\n')));`,
    );
    const r = await runAction(ws, gh.url, { comment: 'never' }, { NODE_OPTIONS: `--import ${hook}` });
    expect(r.code).toBe(0);
    const loaded = readFileSync(path.join(ws, 'modules.txt'), 'utf8').split('\n');
    expect(loaded).toContain('NativeModule crypto'); // the gold digest: the hook did see the run
    // Also what @actions/core would load with its exec helper and undici (OIDC tokens), had the bundle kept
    // them: patches/@actions+core+3.0.1.patch marks the package free of side effects, so it does not.
    for (const unused of ['child_process', 'worker_threads', 'v8'])
      expect(loaded).not.toContain(`NativeModule ${unused}`);
  });

  it('creates a comment on-failure only when a gate fails', async () => {
    const ws = workspace();
    const pass = await runAction(ws, gh.url, { comment: 'on-failure' });
    expect(pass.code).toBe(0);
    expect(gh.writes()).toEqual([]);
    regress(ws);
    await runAction(ws, gh.url, { comment: 'on-failure' });
    expect(gh.writes().map((r) => r.method)).toEqual(['POST']);
  });

  it('on an internal error, exits 2 with its stack pointed at src/, not at the minified bundle', async () => {
    const ws = workspace();
    mkdirSync(path.join(ws, 'output-dir'));
    const run = await runAction(
      ws,
      gh.url,
      { comment: 'never' },
      { GITHUB_OUTPUT: path.join(ws, 'output-dir') },
    );
    expect(run.code).toBe(2);
    const failed = run.stdout.split('\n').find((l) => l.startsWith('::error::groundgate: internal error'));
    const stack = failed!.replace(/%0A/g, '\n');
    expect(stack).toContain('EISDIR');
    // The very lines: @actions/core's write, the first output in main.ts and the call that publishes them.
    const lineOf = (file: string, text: string) =>
      readFileSync(path.join(REPO, file), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(text)) + 1;
    const output = lineOf('src/action/main.ts', "core.setOutput('passed'");
    const call = lineOf('src/action/main.ts', 'const failing = publishVerdict(');
    expect(stack).toMatch(
      /at .*issueFileCommand \(\S+\/node_modules\/@actions\/core\/lib\/file-command\.js:\d+:\d+\)/,
    );
    expect(stack).toMatch(new RegExp(`at .*publishVerdict \\(\\S+/src/action/main\\.ts:${output}:\\d+\\)`));
    expect(stack).toMatch(new RegExp(`at .*runAction \\(\\S+/src/action/main\\.ts:${call}:\\d+\\)`));
    expect(stack).not.toMatch(/dist\/index\.js:\d+/);
  });

  it('a missing baseline input is a warning (max_drop skipped); an invalid one is exit 2', async () => {
    const ws = workspace();
    const missing = await runAction(ws, gh.url, {
      baseline: 'base/groundgate-report.json',
      comment: 'never',
    });
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain(
      '::warning::baseline base/groundgate-report.json not found; no deltas, max_drop gates skipped',
    );
    expect(missing.summary).toContain('| drop ≤ 0.02 | ⏭️ baseline report not found |');
    writeFileSync(path.join(ws, 'bad.json'), '{"verdict": "pass"}');
    const bad = await runAction(ws, gh.url, { baseline: 'bad.json', comment: 'never' });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/::error::groundgate: .*bad\.json: baseline is not a groundgate report: /);
    expect(bad.outputs).toEqual({});
  });

  it('exits 2 before writing when the report or partial input names a file the run reads', async () => {
    const ws = workspace();
    const gold = readFileSync(path.join(ws, 'gold/qa.gold.jsonl'), 'utf8');
    const r = await runAction(ws, gh.url, { report: './gold/qa.gold.jsonl', comment: 'never' });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      `::error::groundgate: input "report" ./gold/qa.gold.jsonl: is an input of this run (suite qa's gold); expected a path that is not read by the run`,
    );
    expect(readFileSync(path.join(ws, 'gold/qa.gold.jsonl'), 'utf8')).toBe(gold);
    expect(r.outputs).toEqual({});
    const shard = await runAction(ws, gh.url, { mode: 'partial', partial: 'gates.yaml' });
    expect(shard.code).toBe(2);
    expect(shard.stdout).toContain(
      `::error::groundgate: input "partial" gates.yaml: is an input of this run (the config); expected a path that is not read by the run`,
    );
    expect(gh.requests).toEqual([]);
  });

  it('exits 2 with an annotation on a config error', async () => {
    const ws = workspace();
    writeFileSync(
      path.join(ws, 'gates.yaml'),
      readFileSync(path.join(ws, 'gates.yaml'), 'utf8').replace('precision:', 'precison:'),
    );
    const r = await runAction(ws, gh.url);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/::error file=gates\.yaml,line=16,col=7::suite "qa": unknown metric "precison"/);
    expect(gh.requests).toEqual([]);
  });
});
