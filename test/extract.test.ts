import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../src/suites/context/contract.js';
import { extractTrajectories, trajectoryFiles } from '../src/suites/context/extract/index.js';
import { runCli } from './helpers/process.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

const T = path.join(FIXTURES, 'contextbench', 'trajectories');

async function extract(agent: Agent, ...paths: string[]) {
  const out = await extractTrajectories(
    trajectoryFiles(
      paths.map((p) => path.join(T, p)),
      agent,
    ),
    agent,
  );
  return out.map(({ instance_id, traj_data, model_patch }) => ({ instance_id, traj_data, model_patch }));
}

const span = (start: number, end: number) => ({ type: 'line', start, end });
const step = (file: string, start: number, end: number) => ({
  files: [file],
  spans: { [file]: [span(start, end)] },
});

describe('mini-SWE-agent (real trajectories)', () => {
  it('django__django-11163: <explore_context> steps, the last <PATCH_CONTEXT>, the submission', async () => {
    const [p] = await extract('miniswe', 'minisweagent/django__django-11163.traj.json');
    const models = 'django/forms/models.py';
    expect(p!.instance_id).toBe('django__django-11163');
    expect(p!.traj_data.pred_steps).toEqual([
      step(models, 100, 120),
      step(models, 150, 180),
      step('django/utils/model_utils.py', 30, 60),
      step(models, 120, 150),
      step(models, 150, 180),
      step(models, 150, 152),
    ]);
    expect(p!.traj_data.pred_files).toEqual([models]);
    expect(p!.traj_data.pred_spans).toEqual({ [models]: [span(150, 152)] });
    expect(p!.model_patch).toMatch(/^diff --git a\/django\/forms\/models.py b\/django\/forms\/models.py\n/);
  });

  it('django__django-12419: nine steps; the context request template is not the final context', async () => {
    const [p] = await extract('miniswe', 'minisweagent/django__django-12419.traj.json');
    const settings = 'django/conf/global_settings.py';
    expect(p!.traj_data.pred_steps).toEqual(
      [
        [100, 110],
        [1, 200],
        [200, 400],
        [400, 600],
        [410, 420],
        [410, 430],
        [430, 450],
        [430, 440],
        [430, 440],
      ].map(([a, b]) => step(settings, a!, b!)),
    );
    expect(p!.traj_data.pred_spans).toEqual({ [settings]: [span(430, 440)] });
    expect(p!.model_patch).toContain('+SECURE_REFERRER_POLICY = "same-origin"');
  });

  it('falls back to the files bash commands read when there is no <explore_context>', async () => {
    const bash = (cmd: string) => ({
      role: 'assistant',
      content: `THOUGHT: look\n\n\`\`\`bash\n${cmd}\n\`\`\``,
    });
    const dir = tmpTree({
      'x__y-1.traj.json': JSON.stringify({
        info: { submission: '', config: { environment: { image: 'mswebench/org_m_repo:pr-1' } } },
        messages: [
          bash("nl -ba /testbed/pkg/a.py | sed -n '10,20p'"),
          bash('cat pkg/b.py && grep -n foo /testbed/pkg/c.py'),
          bash("head -n 5 src/x.js; sed -n '9,3p' 'pkg/d.py'"),
          bash('echo hi > f && cat a.py'),
          bash('cat README.md'),
          bash('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff'),
          {
            role: 'assistant',
            content:
              '<PATCH_CONTEXT>\nFile: /home/repo/core/A.java\nLines: 5-9\nFile: /home/other/B.java\nLines: 2-1\n</PATCH_CONTEXT>',
          },
        ],
      }),
    });
    const [p] = (await extractTrajectories([path.join(dir, 'x__y-1.traj.json')], 'miniswe')).map(
      (e) => e.traj_data,
    );
    expect(p!.pred_steps).toEqual([
      step('pkg/a.py', 10, 20),
      { files: ['pkg/b.py', 'pkg/c.py'], spans: {} },
      { files: ['pkg/d.py', 'src/x.js'], spans: { 'src/x.js': [span(1, 5)], 'pkg/d.py': [span(3, 9)] } },
    ]);
    expect(p!.pred_files).toEqual(['core/A.java', 'other/B.java']);
    expect(p!.pred_spans).toEqual({ 'core/A.java': [span(5, 9)], 'other/B.java': [span(1, 2)] });
  });
});

describe('SWE-agent', () => {
  it('pydata__xarray-4075 (real): only views with an explicit --view_range; the last step is final', async () => {
    const [p] = await extract('sweagent', 'sweagent/pydata__xarray-4075.checkpoints.jsonl');
    expect(p!.instance_id).toBe('pydata__xarray-4075');
    expect(p!.traj_data.pred_steps).toEqual([
      step('xarray/core/computation.py', 1070, 1219),
      step('xarray/core/computation.py', 1060, 1220),
      step('xarray/core/weighted.py', 140, 151),
    ]);
    expect(p!.traj_data.pred_files).toEqual(['xarray/core/weighted.py']);
    expect(p!.traj_data.pred_spans).toEqual({ 'xarray/core/weighted.py': [span(140, 151)] });
    expect(p!.model_patch).toBe('');
  });

  it('pydata__xarray-4966 (real): no ranged view, no step, no final context', async () => {
    const [p] = await extract('sweagent', 'sweagent/pydata__xarray-4966.checkpoints.jsonl');
    expect(p!.traj_data).toEqual({ pred_steps: [], pred_files: [], pred_spans: {} });
  });

  it('demo__demo-1 (synthetic): "-1" ends, bracketed ranges and other tools are no steps; patch_context is final', async () => {
    const [p] = await extract('sweagent', 'synthetic/demo__demo-1.checkpoints.jsonl');
    expect(p!.traj_data).toEqual({
      pred_steps: [step('pkg/a.py', 1, 12), step('pkg/b.py', 4, 9)],
      pred_files: ['pkg/a.py', 'pkg/b.py'],
      pred_spans: { 'pkg/a.py': [span(19, 22)], 'pkg/b.py': [span(4, 9)] },
    });
  });
});

describe('OpenHands', () => {
  it('output.jsonl: read actions (view_range, start/end, whole file) and run commands', async () => {
    const [p] = await extract('openhands', 'synthetic/output.jsonl');
    expect(p!.instance_id).toBe('demo__demo-1');
    expect(p!.traj_data.pred_steps).toEqual([
      step('pkg/a.py', 5, 20),
      // Only /testbed/ is stripped here; the suite maps the rest onto the checkout.
      { files: ['workspace/demo__demo__0.1/pkg/b.py'], spans: {} },
      step('pkg/c.py', 3, 9),
      {
        files: ['pkg/a.py', 'pkg/b.py', 'pkg/d.py'],
        spans: { 'pkg/a.py': [span(10, 30)], 'pkg/b.py': [span(1, 5)] },
      },
      step('pkg/b.py', 2, 8),
      { files: ['pkg/b.py'], spans: {} },
    ]);
    expect(p!.traj_data.pred_files).toEqual([
      'pkg/a.py',
      'pkg/b.py',
      'pkg/c.py',
      'pkg/d.py',
      'workspace/demo__demo__0.1/pkg/b.py',
    ]);
    expect(p!.traj_data.pred_spans).toEqual({
      'pkg/a.py': [span(5, 30)],
      'pkg/c.py': [span(3, 9)],
      'pkg/b.py': [span(1, 8)],
    });
    expect(p!.model_patch).toBe('diff --git a/pkg/a.py b/pkg/a.py\n');
  });

  it('llm_completions: the last turn of the instance folder, its editor views and bash reads', async () => {
    const expected = {
      instance_id: 'demo__demo-1',
      traj_data: {
        pred_steps: [step('pkg/a.py', 1, 12), { files: ['pkg/b.py'], spans: {} }, step('pkg/c.py', 3, 4)],
        pred_files: ['pkg/a.py', 'pkg/b.py', 'pkg/c.py'],
        pred_spans: { 'pkg/a.py': [span(1, 12)], 'pkg/c.py': [span(3, 4)] },
      },
      model_patch: '',
    };
    expect(await extract('openhands', 'synthetic/openhands_llm_completions')).toEqual([expected]);
    expect(await extract('openhands', 'synthetic/openhands_llm_completions/demo__demo-1')).toEqual([
      expected,
    ]);
  });
});

describe('Agentless and Prometheus', () => {
  it('Agentless: final files, related elements as symbols, the first edit locations with lines', async () => {
    const [p] = await extract('agentless', 'synthetic/demo__demo-1_traj.json');
    const spans = { 'pkg/a.py': [span(20, 21)], 'pkg/b.py': [span(6, 7), span(9, 9)] };
    const symbols = { 'pkg/a.py': ['Config', 'parse_config'], 'pkg/b.py': ['main', 'x'] };
    expect(p!.traj_data).toEqual({
      pred_steps: [{ files: ['pkg/a.py', 'pkg/b.py'], spans, symbols }],
      pred_files: ['pkg/a.py', 'pkg/b.py'],
      pred_spans: spans,
      pred_symbols: symbols,
    });
    expect(p!.model_patch).toMatch(/^diff --git a\/pkg\/a.py/);
  });

  it('Prometheus: CONTEXT blocks as steps, the last AGGREGATED CONTEXT (merged) as final', async () => {
    const [p] = await extract('prometheus', 'synthetic/demo__demo-1.log');
    expect(p!.traj_data).toEqual({
      pred_steps: [
        { files: ['pkg/a.py', 'pkg/b.py'], spans: { 'pkg/a.py': [span(1, 10)], 'pkg/b.py': [span(4, 9)] } },
        step('pkg/a.py', 8, 22),
      ],
      pred_files: ['pkg/a.py', 'pkg/b.py'],
      pred_spans: { 'pkg/a.py': [span(19, 26)], 'pkg/b.py': [span(4, 9)] },
    });
  });
});

describe('groundgate extract (dist/cli/index.js as a process)', () => {
  it('writes one prediction line per trajectory found under a folder', () => {
    const dir = tmpTree({});
    const out = path.join(dir, 'pred.jsonl');
    const r = runCli(['extract', '--agent', 'miniswe', path.join(T, 'minisweagent'), '--out', out]);
    expect([r.status, r.stderr, r.stdout]).toEqual([0, '', `wrote 2 predictions (15 steps) to ${out}\n`]);
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.instance_id, l.traj_data.pred_steps.length, Object.keys(l)])).toEqual([
      ['django__django-11163', 6, ['instance_id', 'traj_data', 'model_patch']],
      ['django__django-12419', 9, ['instance_id', 'traj_data', 'model_patch']],
    ]);
  });

  it('prints to standard output without --out', () => {
    const r = runCli(['extract', '-a', 'prometheus', path.join(T, 'synthetic', 'demo__demo-1.log')]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).traj_data.pred_files).toEqual(['pkg/a.py', 'pkg/b.py']);
  });

  it('exits 2 on usage and input errors', () => {
    expect(runCli(['extract', 'x'])).toMatchObject({
      status: 2,
      stderr:
        'groundgate: missing --agent: expected one of miniswe, sweagent, openhands, agentless, prometheus (see groundgate extract --help)\n',
    });
    expect(runCli(['extract', '--agent', 'devin', 'x']).stderr).toMatch(/--agent "devin": expected one of/);
    expect(runCli(['extract', '--agent', 'miniswe']).stderr).toMatch(/expected at least one trajectory PATH/);
    const dir = tmpTree({ 'bad.traj.json': '{"messages": [\n  {"role": }\n]}' });
    const r = runCli(['extract', '--agent', 'miniswe', dir], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^groundgate: bad\.traj\.json:2:\d+: invalid JSON: .*; expected a trajectory/);
    expect(runCli(['extract', '--agent', 'sweagent', '.'], dir).stderr).toBe(
      'groundgate: .: no sweagent trajectory in this folder; expected files ending in .checkpoints.jsonl\n',
    );
  });
});
