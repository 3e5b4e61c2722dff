import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_THREAD_BYTES, enginePlan } from '../src/engine-thread.js';
import { loadConfig } from '../src/config/load.js';
import { UsageError } from '../src/errors.js';
import { objectHeap } from '../src/run.js';
import { runCli } from './helpers/process.js';
import { REPO, tmpTree } from './helpers/tmp.js';

const MB = 1024 * 1024;
const plan = (env: NodeJS.ProcessEnv, bytes: number, records = false) =>
  enginePlan(env, () => Promise.resolve({ bytes, records }));

describe('enginePlan', () => {
  it('uses an engine thread from 64 MB of input, its heap limit twice the input and at least 1 GB', async () => {
    expect(await plan({}, ENGINE_THREAD_BYTES - 1)).toBeUndefined();
    expect(await plan({}, ENGINE_THREAD_BYTES)).toEqual({
      limits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 1024 },
      explicit: false,
    });
    expect((await plan({}, 700 * MB + 1))!.limits.maxOldGenerationSizeMb).toBe(1401);
  });

  it('gives a run that reads records (Parquet rows, OpenInference spans) a 48 MB young generation', async () => {
    expect((await plan({}, ENGINE_THREAD_BYTES, true))!.limits).toEqual({
      maxYoungGenerationSizeMb: 48,
      maxOldGenerationSizeMb: 1024,
    });
    expect((await plan({ GROUNDGATE_ENGINE_THREAD: '300' }, 10, true))!.limits.maxYoungGenerationSizeMb).toBe(
      48,
    );
  });

  it('obeys GROUNDGATE_ENGINE_THREAD whatever the input: 0 never, N MB always', async () => {
    expect(await plan({ GROUNDGATE_ENGINE_THREAD: '0' }, 10_000 * MB)).toBeUndefined();
    expect(await plan({ GROUNDGATE_ENGINE_THREAD: '300' }, 10)).toEqual({
      limits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 300 },
      explicit: true,
    });
    for (const bad of ['-1', '1.5', 'yes', '99999999'])
      await expect(plan({ GROUNDGATE_ENGINE_THREAD: bad }, 0)).rejects.toThrow(UsageError);
  });
});

describe('objectHeap', () => {
  it('counts the inputs of grounded-qa suites only, overrides included', async () => {
    const config = loadConfig(path.join(REPO, 'gates.yaml'));
    const size = (f: string) => statSync(path.join(REPO, f)).size;
    const options = { config: config.file };
    expect(await objectHeap(options, config)).toEqual({
      bytes: size('gold/qa.gold.jsonl') + size('runs/qa.trace.jsonl'),
      records: false,
    });
    const regressed = { suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') };
    expect(await objectHeap({ ...options, inputs: [regressed] }, config)).toEqual({
      bytes: size('gold/qa.gold.jsonl') + size('runs/qa-regressed.trace.jsonl'),
      records: false,
    });
    expect(await objectHeap({ ...options, suites: ['retrieval', 'stability'] }, config)).toEqual({
      bytes: 0,
      records: false,
    });
  });

  it('says a grounded-qa suite reads records when its traces are OpenInference or Parquet, or its gold Parquet', async () => {
    const dir = tmpTree({
      'gates.yaml': [
        'version: 1',
        'suites:',
        '  lines: { kind: grounded-qa, gold: g.jsonl, traces: t.jsonl }',
        '  spans: { kind: grounded-qa, gold: g.jsonl, traces: t.jsonl, format: openinference }',
        '  rows: { kind: grounded-qa, gold: g.jsonl, traces: t.parquet }',
        '  gold: { kind: grounded-qa, gold: g.parquet, traces: t.jsonl }',
        '',
      ].join('\n'),
      // Only their names matter here.
      'g.jsonl': '',
      't.jsonl': '',
      'g.parquet': '',
      't.parquet': '',
    });
    const config = loadConfig(path.join(dir, 'gates.yaml'));
    const records = async (suite: string) =>
      (await objectHeap({ config: config.file, suites: [suite] }, config)).records;
    expect(await Promise.all(['lines', 'spans', 'rows', 'gold'].map(records))).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });
});

// The bundle as a process: on an engine thread or not, a run writes the same bytes and exits the same way.
describe('check on an engine thread (dist)', () => {
  const on = { GROUNDGATE_ENGINE_THREAD: '2048' };
  const off = { GROUNDGATE_ENGINE_THREAD: '0' };
  const dir = tmpTree({});
  const report = (name: string) => readFileSync(path.join(dir, name), 'utf8');

  it('gives the same output, report and status on the repo example, passing and failing', () => {
    const cases = [
      { name: 'pass', args: [], status: 0 },
      {
        name: 'fail',
        args: ['--input', 'qa.traces=runs/qa-regressed.trace.jsonl', '--format', 'markdown'],
        status: 1,
      },
    ];
    for (const c of cases) {
      // The report's path is in the markdown: the same file for both runs, read after each.
      const args = [...c.args, '--report', path.join(dir, `${c.name}.json`)];
      const a = runCli(args, REPO, on);
      const reportOn = report(`${c.name}.json`);
      const b = runCli(args, REPO, off);
      expect([a.status, b.status]).toEqual([c.status, c.status]);
      expect(a.stdout).toBe(b.stdout);
      expect(a.stderr).toBe(b.stderr);
      expect(reportOn).toBe(report(`${c.name}.json`));
    }
  }, 60_000);

  it('passes on a large output whole (the JSON report on stdout) and the threads it starts', () => {
    const args = ['--suite', 'qa', '--format', 'json'];
    const a = runCli(args, REPO, { ...on, GROUNDGATE_THREADS: '3' });
    const b = runCli(args, REPO, { ...off, GROUNDGATE_THREADS: '1' });
    expect(a.stdout.length).toBeGreaterThan(10_000);
    expect([a.status, a.stdout, a.stderr]).toEqual([b.status, b.stdout, b.stderr]);
  }, 60_000);

  it('reports an input error from the thread as from the main thread: one line, exit 2', () => {
    const args = ['--input', 'qa.traces=no/such.jsonl'];
    const a = runCli(args, REPO, on);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/^groundgate: --input qa\.traces: .*no\/such\.jsonl/);
    expect(a.stderr.split('\n')).toHaveLength(2);
    expect([a.stdout, a.stderr]).toEqual([runCli(args, REPO, off).stdout, runCli(args, REPO, off).stderr]);
  });

  it('runs on the main thread when the thread runs out of its heap, and says so when the limit was set', () => {
    const a = runCli(['--suite', 'qa'], REPO, { GROUNDGATE_ENGINE_THREAD: '8' });
    const b = runCli(['--suite', 'qa'], REPO, off);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stderr).toBe(
      'groundgate: note: the engine thread ran out of its 8 MB heap (GROUNDGATE_ENGINE_THREAD); ran on the main thread\n',
    );
  });

  it('rejects a bad GROUNDGATE_ENGINE_THREAD with exit 2', () => {
    const r = runCli([], REPO, { GROUNDGATE_ENGINE_THREAD: 'lots' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'groundgate: GROUNDGATE_ENGINE_THREAD="lots": expected 0 (no engine thread) or its heap limit in MB, at least 8 (a thread cannot start in less) (see groundgate check --help)\n',
    );
    // Node 24 aborted the process (a fatal out-of-memory starting the thread) on a limit of 1 or 2 MB.
    const tiny = runCli([], REPO, { GROUNDGATE_ENGINE_THREAD: '2' });
    expect([tiny.status, tiny.stderr]).toEqual([
      2,
      'groundgate: GROUNDGATE_ENGINE_THREAD="2": expected 0 (no engine thread) or its heap limit in MB, at least 8 (a thread cannot start in less) (see groundgate check --help)\n',
    ]);
  });
});
