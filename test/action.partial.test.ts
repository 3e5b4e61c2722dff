import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAction, workspace } from './helpers/action.js';
import { FakeGitHub } from './helpers/fake-github.js';

/** The example workspace with its qa traces dealt to two shard folders, as two matrix jobs would write them. */
function shardedWorkspace(): string {
  const ws = workspace();
  const gates = readFileSync(path.join(ws, 'gates.yaml'), 'utf8');
  writeFileSync(
    path.join(ws, 'gates.yaml'),
    gates.replace('traces: runs/qa.trace.jsonl', 'traces: runs/shard-*/trace.jsonl'),
  );
  const lines = readFileSync(path.join(ws, 'runs/qa-regressed.trace.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean);
  for (const k of [0, 1]) {
    mkdirSync(path.join(ws, `runs/shard-${k}`));
    writeFileSync(
      path.join(ws, `runs/shard-${k}/trace.jsonl`),
      lines.filter((_, i) => i % 2 === k).join('\n') + '\n',
    );
  }
  return ws;
}

describe('the Action in a matrix: mode partial on each job, mode merge in the gate job (dist)', () => {
  let gh: FakeGitHub;
  beforeEach(async () => {
    gh = await new FakeGitHub().start();
  });
  afterEach(() => gh.stop());

  it('writes a partial per shard without gating, and the merge gates and comments as one check would', async () => {
    const ws = shardedWorkspace();
    const single = await runAction(ws, gh.url, { comment: 'never', report: 'single.json' });
    expect(single.code).toBe(1);

    // Each job sees only its own shard's traces (the other folder is another machine's).
    const partials: string[] = [];
    for (const k of [0, 1]) {
      const other = path.join(ws, `runs/shard-${1 - k}`);
      const aside = path.join(ws, `runs/elsewhere-${1 - k}`);
      renameSync(other, aside);
      const job = await runAction(ws, gh.url, {
        mode: 'partial',
        partial: `groundgate-partials/shard-${k}.partial`,
      });
      renameSync(aside, other);
      expect(job.code).toBe(0);
      expect(job.outputs).toEqual({ partial: path.join(ws, `groundgate-partials/shard-${k}.partial`) });
      expect(gh.writes()).toEqual([]);
      partials.push(job.outputs.partial!);
    }

    const merged = await runAction(ws, gh.url, { mode: 'merge', report: 'merged.json' });
    expect(merged.code).toBe(1);
    expect(readFileSync(path.join(ws, 'merged.json'), 'utf8')).toBe(
      readFileSync(path.join(ws, 'single.json'), 'utf8'),
    );
    expect(merged.outputs.passed).toBe('false');
    expect(merged.outputs['failed-gates']).toBe(single.outputs['failed-gates']);
    expect(gh.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/rag/issues/7/comments',
    ]);
    expect(merged.summary).toBe(gh.comments.at(-1)!.body);

    // A partial that is not one: the step fails with exit 2 naming it, and writes no report.
    writeFileSync(partials[1]!, 'not a partial\n');
    const broken = await runAction(ws, gh.url, { mode: 'merge', report: 'broken.json' });
    expect(broken.code).toBe(2);
    expect(broken.stdout).toMatch(
      /::error::groundgate: groundgate-partials\/shard-1\.partial:1: the header is not JSON/,
    );
  });

  it('refuses input suites with mode merge, and a partial of documents normalized from a runs: folder', async () => {
    const ws = shardedWorkspace();
    const merge = await runAction(ws, gh.url, { mode: 'merge', suites: 'qa' });
    expect(merge.code).toBe(2);
    expect(merge.stdout).toMatch(/input "suites" with mode merge/);
    writeFileSync(
      path.join(ws, 'gates.yaml'),
      readFileSync(path.join(ws, 'gates.yaml'), 'utf8') +
        '  agents:\n    kind: agent-retrieval\n    runs: runs\n',
    );
    const partial = await runAction(ws, gh.url, { mode: 'partial' });
    expect(partial.code).toBe(2);
    expect(partial.stdout).toMatch(
      /suite "agents": runs: \(a run folder normalized in memory\) cannot be split into partials/,
    );
  });
});
