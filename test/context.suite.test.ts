import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { UNCONFINED } from '../src/io/confine.js';
import { run } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

const row = (id: string, regions: [string, number, number][], extra: object = {}) => ({
  inst_id: id,
  gold_ctx: regions.map(([file, start_line, end_line]) => ({ file, start_line, end_line })),
  ...extra,
});
const pred = (id: string, spans: Record<string, [number, number][]>, extra: object = {}) => ({
  instance_id: id,
  traj_data: {
    pred_files: Object.keys(spans),
    pred_spans: Object.fromEntries(
      Object.entries(spans).map(([f, list]) => [
        f,
        list.map(([start, end]) => ({ type: 'line', start, end })),
      ]),
    ),
  },
  ...extra,
});

async function score(files: Record<string, string>, suite = '') {
  const dir = tmpTree({
    ...files,
    'gates.yaml': `version: 1\nsuites:\n  ctx:\n    kind: context\n    gold: gold.jsonl\n    predictions: pred.jsonl\n${suite}`,
  });
  const outcome = await run({ scope: UNCONFINED, config: path.join(dir, 'gates.yaml') });
  return { dir, suite: outcome.report.suites.ctx!, report: outcome.report };
}

async function inputError(files: Record<string, string>, suite = ''): Promise<string> {
  try {
    await score(files, suite);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).detail;
  }
  throw new Error('expected an input error');
}

describe('context suite: repositories', () => {
  it('finds a per-instance checkout by the prediction id or any gold id', async () => {
    const { suite } = await score(
      {
        'gold.jsonl': jsonl([
          row('a-1', [['m.py', 1, 1]]),
          row('SWE__x', [['m.py', 2, 2]], { original_inst_id: 'b-2' }),
          row('c-3', [['m.py', 1, 1]]),
        ]),
        'pred.jsonl': jsonl([
          pred('a-1', { 'm.py': [[1, 1]] }),
          pred('b-2', { 'm.py': [[1, 2]] }),
          pred('c-3', { 'm.py': [[1, 1]] }),
        ]),
        'repos/a-1/m.py': 'x = 1\n',
        'repos/SWE__x/m.py': 'x = 1\ny = 22\n',
      },
      '    repos: repos\n',
    );
    // a-1: 6 bytes of 6. b-2: gold line 2 (7 bytes), predicted lines 1-2 (13 bytes). c-3 has no checkout.
    expect(suite.metrics['span.coverage']).toEqual({ value: 13 / 13 });
    expect(suite.metrics['span.precision']).toEqual({ value: 13 / 19 });
    expect(suite.counts).toMatchObject({ scored: 2, checkout_failed: 1 });
    expect(suite.warnings).toContain('1 instance not scored (checkout_failed): c-3');
  });

  it('reads each instance at its commit from a git repository, never the work tree', async () => {
    const repo = tmpTree({ 'pkg/m.py': 'def f():\n    return 1\n' });
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: repo },
      }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    const first = git('rev-parse', 'HEAD');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(repo, 'pkg', 'm.py'), '# header\n\ndef f():\n    return 1\n');
    git('commit', '-q', '-am', 'two');
    const second = git('rev-parse', 'HEAD');

    const { suite } = await score(
      {
        'gold.jsonl': jsonl([
          row('one', [['pkg/m.py', 1, 2]], { commit: first }),
          row('two', [['pkg/m.py', 3, 4]], { commit: second }),
          row('gone', [['pkg/m.py', 1, 1]], { commit: 'ffffffffffffffffffffffffffffffffffffffff' }),
        ]),
        'pred.jsonl': jsonl([
          pred('one', { '/testbed/pkg/m.py': [[1, 1]] }),
          pred('two', { 'pkg/m.py': [[3, 3]] }),
          pred('gone', { 'pkg/m.py': [[1, 1]] }),
        ]),
      },
      `    repos: ${repo}\n    repos_layout: git\n`,
    );
    // one: gold 22 bytes, predicted line 1 (9 bytes), symbol f; two: the same function two lines lower.
    expect(suite.metrics['span.coverage']).toEqual({ value: 18 / 44 });
    expect(suite.metrics['symbol.coverage']).toMatchObject({ value: 1, numerator: 2, denominator: 2 });
    expect(suite.counts).toMatchObject({ scored: 2, checkout_failed: 1 });
  });

  it('warns that files in languages without a grammar here give no symbols', async () => {
    const { suite } = await score(
      {
        'gold.jsonl': jsonl([row('a', [['lib/x.rb', 1, 2]])]),
        'pred.jsonl': jsonl([
          { ...pred('zzz', { 'lib/x.rb': [[1, 1]] }), instance_id: undefined, original_inst_id: 'a' },
        ]),
        'repos/a/lib/x.rb': 'def f\nend\n',
      },
      '    repos: repos\n',
    );
    expect(suite.metrics['symbol.coverage']).toMatchObject({ value: 1, numerator: 0, denominator: 0 });
    expect(suite.metrics['span.coverage']).toEqual({ value: 6 / 10 });
    expect(suite.warnings).toEqual(['no symbols from 1 file in languages without a grammar here: lib/x.rb']);
  });

  it('says which folder is missing', async () => {
    const message = await inputError(
      {
        'gold.jsonl': jsonl([row('a', [['m.py', 1, 1]])]),
        'pred.jsonl': jsonl([pred('a', { 'm.py': [[1, 1]] })]),
      },
      '    repos: nowhere\n',
    );
    expect(message).toBe('suite "ctx": repos: folder not found; expected the repository checkouts');
  });
});

describe('context suite: inputs', () => {
  const gold = jsonl([row('a', [['m.py', 1, 1]])]);

  it('rejects predictions it cannot score, with file:line', async () => {
    expect(await inputError({ 'gold.jsonl': gold, 'pred.jsonl': jsonl([{ instance_id: 'a' }]) })).toMatch(
      /^missing field "traj_data" \(a prediction/,
    );
    expect(
      await inputError({ 'gold.jsonl': gold, 'pred.jsonl': jsonl([pred('a', {}), pred('a', {})]) }),
    ).toBe('duplicate instance_id "a" (first at line 1); expected one prediction per instance');
    expect(
      await inputError({ 'gold.jsonl': gold, 'pred.jsonl': jsonl([pred('a', { 'm.py': [[9, 4]] })]) }),
    ).toBe('field "traj_data.pred_spans.m.py[0]": found start 9 > end 4; expected start ≤ end');
    expect(await inputError({ 'gold.jsonl': gold, 'pred.jsonl': jsonl([{ traj_data: {} }]) })).toMatch(
      /^field "instance_id": expected "instance_id" \(or "original_inst_id"\)/,
    );
  });

  it('reports every metric as not computable when no instance could be scored', async () => {
    const { suite, report } = await score(
      { 'gold.jsonl': gold, 'pred.jsonl': jsonl([pred('zzz', { 'm.py': [[1, 1]] })]) },
      "    gates:\n      line.f1: '>= 0.5'\n",
    );
    expect(suite.metrics['line.f1']).toEqual({
      value: null,
      reason: 'no instance was scored (1 missing_gold)',
    });
    expect(suite.metrics['editloc.recall']).toEqual({
      value: null,
      reason: 'no instance was scored (1 missing_gold)',
    });
    expect(report.verdict).toBe('fail');
    expect(report.gates[0]).toMatchObject({ metric: 'line.f1', passed: false, value: null });
  });

  it('gives the same report for the same inputs', async () => {
    const files = {
      'gold.jsonl': jsonl([row('a', [['m.py', 1, 1]]), row('b', [['n.py', 2, 3]])]),
      'pred.jsonl': jsonl([pred('b', { 'n.py': [[1, 2]] }), pred('a', { 'x.py': [[1, 1]] })]),
    };
    const one = (await score(files)).suite;
    const two = (await score(files)).suite;
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
  });
});
