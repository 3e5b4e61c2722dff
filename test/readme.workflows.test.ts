import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from './helpers/tmp.js';

/** The README's workflows are meant to be copied as they are: they must parse and hold nothing else. */
describe("the README's workflows", () => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const workflows = [...readme.matchAll(/```yaml\n(# \.github\/workflows\/[\s\S]*?)```/g)].map((m) => ({
    file: /^# (\S+)/.exec(m[1]!)![1]!,
    doc: parse(m[1]!) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
    },
  }));
  const uses = (w: (typeof workflows)[number]) =>
    Object.values(w.doc.jobs).flatMap((j) => j.steps.flatMap((s) => (s.uses ? [s.uses] : [])));

  it('are the pull-request check, the fork comment workflow and the sharded one', () => {
    expect(workflows.map((w) => w.file)).toEqual([
      '.github/workflows/groundgate.yml',
      '.github/workflows/groundgate-comment.yml',
      '.github/workflows/groundgate-matrix.yml',
    ]);
  });

  it('shard with mode partial and merge the uploaded partials in one gate job', () => {
    const matrix = workflows[2]!;
    const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    const { shard, gate } = matrix.doc.jobs as Record<
      string,
      { steps: { uses?: string; with?: Record<string, string> }[] }
    >;
    expect(shard!.steps.map((s) => s.uses)).toEqual([
      'actions/checkout@v5',
      'owner/groundgate@v1',
      'actions/upload-artifact@v4',
    ]);
    expect(shard!.steps[1]!.with).toMatchObject({ mode: 'partial' });
    // What each shard uploads is what the gate job downloads and merges.
    expect(shard!.steps[2]!.with!.path).toBe(shard!.steps[1]!.with!.partial);
    expect(gate!.steps.map((s) => s.uses)).toEqual([
      'actions/checkout@v5',
      'actions/download-artifact@v5',
      'owner/groundgate@v1',
      'actions/upload-artifact@v4',
    ]);
    expect(gate!.steps[1]!.with!.pattern).toBe('groundgate-partial-*');
    expect(gate!.steps[2]!.with).toMatchObject({ mode: 'merge', partials: 'groundgate-partials/*.partial' });
    expect(gate!.steps[1]!.with!.path).toBe('groundgate-partials');
    for (const input of ['mode', 'partial', 'partials']) expect(action.inputs).toHaveProperty(input);
    expect(action.outputs).toHaveProperty('partial');
  });

  it('use only actions/checkout, actions/upload-artifact and groundgate, with least permissions', () => {
    const [check, comment] = workflows;
    expect(uses(check!)).toEqual([
      'actions/checkout@v5',
      'owner/groundgate@v1',
      'actions/upload-artifact@v4',
    ]);
    expect(check!.doc.permissions).toEqual({ contents: 'read', actions: 'read', 'pull-requests': 'write' });
    const gate = check!.doc.jobs.gate!.steps[1]!;
    expect(gate.with).toEqual({ baseline: 'auto', history: 'auto' });
    // The default branch runs too: its reports are the baselines and the trend.
    expect(Object.keys(check!.doc.on)).toEqual(['pull_request', 'push']);

    // The comment workflow checks nothing out: the fork's code never runs with the writable token.
    expect(uses(comment!)).toEqual(['owner/groundgate@v1']);
    expect(comment!.doc.permissions).toEqual({ actions: 'read', 'pull-requests': 'write' });
    expect(comment!.doc.on).toEqual({ workflow_run: { workflows: ['groundgate'], types: ['completed'] } });
    expect(comment!.doc.jobs.comment!.steps[0]!.with).toMatchObject({ mode: 'comment' });
  });

  it("name the artifact as the Action's artifact-name default", () => {
    const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default?: string }>;
    };
    const upload = workflows[0]!.doc.jobs.gate!.steps[2]!;
    expect(upload.with!.name).toBe(action.inputs['artifact-name']!.default);
  });
});
