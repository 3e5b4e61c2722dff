import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction, workspace } from './helpers/action.js';
import { FakeGitHub } from './helpers/fake-github.js';
import { JudgeServer } from './helpers/judge-server.js';
import { REPO } from './helpers/tmp.js';

/*
 * The Action (node dist/index.js) with claims: {match: semantic}: the judge's inputs set the environment the
 * engine reads, new judgments are written to the file and named in the summary and the outputs. The judge is
 * the stand-in server on 127.0.0.1; the traces are examples/semantic's paraphrased ones.
 */
const KEY = 'sk-judge-SECRET-0123456789';
const server = new JudgeServer();
let gh: FakeGitHub;
beforeAll(async () => {
  await server.start();
  gh = await new FakeGitHub().start();
});
afterAll(async () => {
  await server.stop();
  await gh.stop();
});

function semanticWorkspace(): string {
  const ws = workspace();
  cpSync(
    path.join(REPO, 'examples', 'semantic', 'paraphrased.trace.jsonl'),
    path.join(ws, 'runs', 'qa.trace.jsonl'),
  );
  const gates = readFileSync(path.join(ws, 'gates.yaml'), 'utf8').replace(
    '    scu: true',
    '    scu: true\n    claims: { match: semantic, cache: .groundgate/judgments.jsonl }',
  );
  writeFileSync(path.join(ws, 'gates.yaml'), gates);
  return ws;
}

describe('the Action with the judge', () => {
  it('asks with the inputs, writes the new judgments and names them; a run without a key asks nothing', async () => {
    const ws = semanticWorkspace();
    const judge = {
      comment: 'never',
      'judge-base-url': server.baseUrl,
      'judge-api-key': KEY,
      'judge-model': 'stand-in-judge-2026-11-28',
    };
    const first = await runAction(ws, gh.url, judge);
    // 16 claim misses (FM001's "512 B" is the normalized rule's: 512 bytes), FM011 with two facts: 17 questions.
    expect(server.requests).toHaveLength(17);
    expect(server.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(first.outputs).toMatchObject({
      'judgments-file': path.join(ws, '.groundgate', 'judgments.jsonl'),
      'new-judgments': '17',
    });
    expect(readFileSync(path.join(ws, '.groundgate', 'judgments.jsonl'), 'utf8').split('\n')).toHaveLength(
      18,
    );
    expect(first.summary).toContain('17 new judgments: commit .groundgate/judgments.jsonl');
    // The key is handed to the runner's masking once (::add-mask::, a line the runner consumes), and
    // nowhere else: not in the log, the summary or an error.
    expect(first.stdout.split('\n').filter((l) => l.includes(KEY))).toEqual([`::add-mask::${KEY}`]);
    expect(`${first.stderr}${first.summary}`).not.toContain(KEY);

    const fork = await runAction(ws, gh.url, { ...judge, 'judge-api-key': '' });
    expect(server.requests).toHaveLength(17);
    expect(fork.outputs['new-judgments']).toBe('0');
    expect(fork.summary).not.toContain('new judgment');
  });

  it("a redirect's Location reaches the log, the summary, the comment and report.json by origin and path only", async () => {
    const ws = semanticWorkspace();
    server.failures = [
      { status: 302, headers: { location: `https://login.example/auth?api_key=${KEY}&next=%2F` } },
    ];
    const run = await runAction(ws, gh.url, {
      'judge-base-url': server.baseUrl,
      'judge-api-key': KEY,
      'judge-model': 'stand-in-judge-2026-11-28',
      'judge-concurrency': '1',
    });
    const report = readFileSync(path.join(ws, 'groundgate-report.json'), 'utf8');
    const comment = gh.comments.map((c) => c.body).join('\n');
    expect(comment).toContain('redirects to `https://login.example/auth`, not followed');
    expect(report).toContain('redirects to https://login.example/auth, not followed');
    // The one line the runner consumes to mask the key is the only one that holds it.
    const shown = [run.stdout.replace(`::add-mask::${KEY}`, ''), run.stderr, run.summary, comment, report];
    // Its pieces from "SECRET" on: the lowercase prefix sk-judge- is the key's public kind, and "judge" is
    // every report's word.
    for (let i = 'sk-judge-'.length - 3; i + 4 <= KEY.length; i++)
      for (const text of shown) expect(text).not.toContain(KEY.slice(i, i + 4));
    expect(shown.join('\n')).not.toContain('api_key');
  });
});
