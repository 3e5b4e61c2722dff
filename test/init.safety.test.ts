import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatesOf, qaRepo } from './helpers/init.js';
import { runCli } from './helpers/process.js';
import { REPO, tmpTree } from './helpers/tmp.js';

describe('groundgate init: what it refuses (dist/cli as a process)', () => {
  it('writes only regular files inside the repository: no link, no path out', () => {
    const outside = tmpTree({});
    const dir = qaRepo();
    symlinkSync(path.join(outside, 'pwn.yaml'), path.join(dir, 'gates.yaml')); // dangling
    const link = runCli(['init', '--force'], dir);
    expect(link.status).toBe(2);
    expect(link.stderr).toMatch(
      /^groundgate: gates\.yaml is a symbolic link; init writes regular files in the repository only/,
    );
    rmSync(path.join(dir, 'gates.yaml'));
    symlinkSync(outside, path.join(dir, '.github'));
    const folder = runCli(['init'], dir);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toMatch(/\.github\/workflows\/groundgate\.yml.* resolves outside/);
    const out = runCli(['init', '-c', '../x.yaml', '--no-workflow'], dir);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(
      /^groundgate: --config "\.\.\/x\.yaml": expected a file path inside the repository/,
    );
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a gates file in a subfolder names its inputs from there', () => {
    const dir = qaRepo();
    expect(runCli(['init', '-c', 'ci/gates.yaml', '--no-workflow'], dir).status).toBe(0);
    expect(gatesOf(path.join(dir, 'ci')).suites.qa).toMatchObject({
      gold: '../gold/qa.gold.jsonl',
      traces: '../runs/qa.trace.jsonl',
    });
    expect(runCli(['check', '-c', 'ci/gates.yaml'], dir).status).toBe(0);
  });

  it('flags are checked before any work: names, branches, folders, missing inputs and files', () => {
    const dir = qaRepo();
    const qa = ['--suite', 'grounded-qa', '--gold', 'gold/qa.gold.jsonl', '--traces', 'runs/qa.trace.jsonl'];
    const cases: [string[], RegExp][] = [
      [[...qa, '--name', '"x"'], /--name "\\"x\\"": expected a suite name/],
      [['--branch', 'main\n      - run: echo x'], /--branch .*: expected a branch name/],
      [['-C', path.join(dir, 'nope')], /--dir .*: not a folder/],
      [
        ['--suite', 'context', '--gold', 'gold/qa.gold.jsonl'],
        /^groundgate: --suite context needs --input predictions=FILE as well/,
      ],
      [
        ['--suite', 'ranking', '--input', 'qrels=gold/qa.gold.jsonl'],
        /^groundgate: --suite ranking needs --input run=FILE as well/,
      ],
      [
        ['--suite', 'consistency', '--input', 'pairs=gold/qa.gold.jsonl', '--input', 'scholar=x'],
        /^groundgate: --input scholar=x: file not found/,
      ],
      [
        ['--suite', 'grounded-qa', '--gold', 'gold/missing.jsonl', '--traces', 'runs/qa.trace.jsonl'],
        /--gold gold\/missing\.jsonl: file not found/,
      ],
      [['-c', 'gates.yaml\n      - run: echo x'], /--config .*: expected a file path inside the repository/],
    ];
    for (const [flags, message] of cases) {
      const r = runCli(['init', ...flags], dir);
      expect(r.status, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
  });

  it('file names it prints are one line each, without escape sequences (a fork’s repository may name them)', () => {
    const dir = qaRepo();
    const name = 'qa\u001b]0;pwned\u0007\n::error::injected.trace.jsonl';
    renameSync(path.join(dir, 'runs/qa.trace.jsonl'), path.join(dir, 'runs', name));
    const r = runCli(['init', '--no-workflow', '--dry-run'], dir);
    expect(r.status).toBe(0);
    const said = r.stdout.split('\n').filter((l) => l.includes('injected'));
    const shown = 'runs/qa�]0;pwned� ↵ ::error::injected.trace.jsonl';
    expect(said.slice(0, 3)).toEqual([
      `  ${shown}: grounded-answer traces: the first 20 records have qid, retrieved_ids, answer_json`,
      `  qa (grounded-qa): gold/qa.gold.jsonl + ${shown}`,
      `    ${shown} (grounded-answer traces: the first 20 records have qid, retrieved_ids, answer_json)`,
    ]);
    // The dry run's gates.yaml names it quoted, and in a comment without its controls.
    expect(said.slice(3)).toEqual([
      '    # found: runs/qa ]0;pwned  ::error::injected.trace.jsonl (grounded-answer traces: the first 20 records have qid, retrieved_ids, answer_json)',
      '    traces: "runs/qa\\u001b]0;pwned\\u0007\\n::error::injected.trace.jsonl"',
    ]);
    expect([r.stdout.includes('\u001b'), r.stdout.includes('\u0007')]).toEqual([false, false]);
    expect(r.stdout.split('\n').some((l) => l.startsWith('::'))).toBe(false);
  });

  it('traces of other questions are not paired with a gold set (they would give vacuous gates)', () => {
    const gold = readFileSync(path.join(REPO, 'gold/qa.gold.jsonl'), 'utf8').split('\n').slice(0, 5);
    const traces = readFileSync(path.join(REPO, 'runs/qa.trace.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l && !/"FM00[1-5]"/.test(l));
    const dir = tmpTree({ 'gold.jsonl': `${gold.join('\n')}\n`, 'traces.jsonl': `${traces.join('\n')}\n` });
    const r = runCli(['init'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('gold.jsonl (grounded-answer gold set: 5 records have');
    expect(r.stderr).toContain('no traces or runs share its qids');
  });

  it('latency: a high percentile of few samples gets no gate, and init says why', () => {
    const dir = tmpTree({});
    cpSync(path.join(REPO, 'examples/latency/latency.csv'), path.join(dir, 'latency.csv'));
    const r = runCli(['init', '--no-workflow'], dir);
    // 30 samples: 1.5 above the 95th percentile, 0.3 above the 99th; a bound there is the sample's maximum.
    expect(r.status).toBe(2);
    expect(r.stdout).toContain(
      'not written: latency (latency): no metric to gate today (p95_ms: measured 1612.8500 (n 30), too few samples for a stable bound (1.5 above the 95th percentile; need 5, n ≥ 100); p99_ms: measured 1632.3300 (n 30), too few samples for a stable bound (0.3 above the 99th percentile; need 5, n ≥ 500))',
    );
  });
});
