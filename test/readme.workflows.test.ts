import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { actionRef, PINNED, renderCommentWorkflow, renderWorkflow } from '../src/init/render.js';
import { ACTION_REPOSITORY, VERSION } from '../src/version.js';
import { REPO } from './helpers/tmp.js';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const uses = (w: Workflow) =>
  Object.values(w.jobs).flatMap((j) => j.steps.flatMap((s) => (s.uses ? [s.uses] : [])));
const pin = (action: string) => action.split(' ')[0]!;

/** The GitHub "owner/name" a package.json `repository` names (npm's shorthand, github:, or a git URL). */
function slugOf(repository: unknown): string | undefined {
  const spec =
    typeof repository === 'object' && repository !== null
      ? (repository as { url?: unknown }).url
      : repository;
  if (spec === undefined) return undefined;
  const m =
    /^(?:github:|(?:git\+)?(?:https|ssh|git):\/\/(?:git@)?github\.com\/)?([\w.-]+\/[\w.-]+?)(?:\.git)?$/.exec(
      String(spec),
    );
  if (!m) throw new Error(`package.json repository ${JSON.stringify(repository)} names no GitHub repository`);
  return m[1];
}

/** The README's workflows are meant to be copied as they are: they must parse and hold nothing else. */
describe("the README's workflows", () => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const workflows = [...readme.matchAll(/```yaml\n(# \.github\/workflows\/[\s\S]*?)```/g)].map((m) => ({
    file: /^# (\S+)/.exec(m[1]!)![1]!,
    text: m[1]!.slice(m[1]!.indexOf('\n') + 1),
    doc: parse(m[1]!) as Workflow,
  }));
  const defaults = { branch: 'main', release: false, config: 'gates.yaml', repository: ACTION_REPOSITORY };

  it('are the pull-request check, the fork comment workflow and the sharded one', () => {
    expect(workflows.map((w) => w.file)).toEqual([
      '.github/workflows/groundgate.yml',
      '.github/workflows/groundgate-comment.yml',
      '.github/workflows/groundgate-matrix.yml',
    ]);
  });

  it("take groundgate's repository from package.json, and say what init writes", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(ACTION_REPOSITORY).toBe(slugOf(pkg.repository));
    expect(workflows[0]!.text).toBe(renderWorkflow(defaults));
    expect(workflows[1]!.text).toBe(renderCommentWorkflow(defaults));
    // No registry name that is not ours: groundgate runs from node_modules or not at all.
    expect(readme).not.toMatch(/npx groundgate/);
    expect(readme).toContain(`npm install --save-dev ./vendor/groundgate-${VERSION}.tgz`);
  });

  it('shard with mode partial and merge the uploaded partials in one gate job', () => {
    const matrix = workflows[2]!;
    const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    const { shard, gate } = matrix.doc.jobs as Record<
      string,
      { steps: { uses?: string; run?: string; with?: Record<string, string> }[] }
    >;
    expect(shard!.steps.map((s) => s.uses ?? s.run)).toEqual([
      'actions/checkout@v5',
      'actions/setup-node@v6',
      'npm ci',
      actionRef(ACTION_REPOSITORY),
      'actions/upload-artifact@v4',
    ]);
    expect(shard!.steps[3]!.with).toMatchObject({ mode: 'partial' });
    // What each shard uploads is what the gate job downloads and merges.
    expect(shard!.steps[4]!.with!.path).toBe(shard!.steps[3]!.with!.partial);
    expect(gate!.steps.map((s) => s.uses ?? s.run)).toEqual([
      'actions/checkout@v5',
      'actions/setup-node@v6',
      'npm ci',
      'actions/download-artifact@v5',
      actionRef(ACTION_REPOSITORY),
      'actions/upload-artifact@v4',
    ]);
    expect(gate!.steps[3]!.with!.pattern).toBe('groundgate-partial-*');
    expect(gate!.steps[4]!.with).toMatchObject({ mode: 'merge', partials: 'groundgate-partials/*.partial' });
    expect(gate!.steps[3]!.with!.path).toBe('groundgate-partials');
    for (const input of ['mode', 'partial', 'partials']) expect(action.inputs).toHaveProperty(input);
    expect(action.outputs).toHaveProperty('partial');
  });

  it('use only pinned actions/checkout, setup-node, upload-artifact and the installed groundgate, with least permissions', () => {
    const [check, comment] = workflows.map((w) => w.doc);
    expect(uses(check!)).toEqual([
      pin(PINNED.checkout),
      pin(PINNED.setupNode),
      './node_modules/groundgate',
      pin(PINNED.uploadArtifact),
    ]);
    expect(check!.permissions).toEqual({ contents: 'read', actions: 'read', 'pull-requests': 'write' });
    const [, , install, gate] = check!.jobs.gate!.steps;
    expect(install!.run).toBe('npm ci');
    expect(gate!.with).toEqual({ config: 'gates.yaml', baseline: 'auto', history: 'auto' });
    // The default branch runs too: its reports are the baselines and the trend.
    expect(Object.keys(check!.on)).toEqual(['pull_request', 'push']);

    // The comment workflow runs with the writable token: the fork's code never runs there. It checks out
    // the default branch, keeps no credentials in .git, and installs groundgate without running scripts.
    expect(uses(comment!)).toEqual([
      pin(PINNED.checkout),
      pin(PINNED.setupNode),
      './node_modules/groundgate',
    ]);
    expect(comment!.permissions).toEqual({ actions: 'read', contents: 'read', 'pull-requests': 'write' });
    expect(comment!.on).toEqual({ workflow_run: { workflows: ['groundgate'], types: ['completed'] } });
    const [checkout, , ci, post] = comment!.jobs.comment!.steps;
    expect(checkout!.with).toEqual({
      ref: '${{ github.event.repository.default_branch }}',
      'persist-credentials': false,
    });
    expect(ci!.run).toBe('npm ci --ignore-scripts');
    expect(post!.with).toMatchObject({ mode: 'comment' });
    expect(readme).not.toMatch(/^\s*pull_request_target:/m);
  });

  it("name the artifact as the Action's artifact-name default", () => {
    const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default?: string }>;
    };
    const upload = workflows[0]!.doc.jobs.gate!.steps.find((s) =>
      s.uses?.startsWith('actions/upload-artifact'),
    )!;
    expect(upload.with!.name).toBe(action.inputs['artifact-name']!.default);
  });
});

describe('the workflows init writes once package.json names a repository', () => {
  const options = { branch: 'main', release: false, config: 'gates.yaml', repository: 'acme/groundgate' };

  it('use its tag and install nothing; the comment workflow checks nothing out', () => {
    const check = parse(renderWorkflow(options)) as Workflow;
    const comment = parse(renderCommentWorkflow(options)) as Workflow;
    expect(uses(check)).toEqual([
      pin(PINNED.checkout),
      `acme/groundgate@v${VERSION}`,
      pin(PINNED.uploadArtifact),
    ]);
    expect(check.jobs.gate!.steps.some((s) => s.run !== undefined)).toBe(false);
    expect(uses(comment)).toEqual([`acme/groundgate@v${VERSION}`]);
    expect(comment.permissions).toEqual({ actions: 'read', 'pull-requests': 'write' });
  });

  it("read npm's spellings of a GitHub repository", () => {
    expect(slugOf(undefined)).toBeUndefined();
    for (const spec of [
      'acme/groundgate',
      'github:acme/groundgate',
      { type: 'git', url: 'git+https://github.com/acme/groundgate.git' },
      { type: 'git', url: 'git+ssh://git@github.com/acme/groundgate.git' },
    ])
      expect(slugOf(spec)).toBe('acme/groundgate');
    expect(() => slugOf('gitlab:acme/groundgate')).toThrow(/names no GitHub repository/);
  });
});
