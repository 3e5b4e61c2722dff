import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCheckArgs } from '../src/cli/check.js';
import { main } from '../src/cli/main.js';
import { UsageError } from '../src/errors.js';
import { REPO, tmpTree } from './helpers/tmp.js';

const outputs = (...argv: string[]) => parseCheckArgs(argv).outputs;

describe('--format FORMAT[=FILE] and -o (check and merge)', () => {
  it('takes several formats, each to its own file, and -o FILE for the one given without', () => {
    expect(outputs()).toEqual([{ format: 'text' }]);
    expect(outputs('-o', 'check.txt')).toEqual([{ format: 'text', file: 'check.txt', flag: '--out' }]);
    expect(outputs('--format', 'html', '--output', 'r.html')).toEqual([
      { format: 'html', file: 'r.html', flag: '--output' },
    ]);
    expect(outputs('--format', 'text', '--format', 'html=report.html', '-f', 'junit=out/junit.xml')).toEqual([
      { format: 'text' },
      { format: 'html', file: 'report.html', flag: '--format html' },
      { format: 'junit', file: 'out/junit.xml', flag: '--format junit' },
    ]);
    // -o goes to the one format without a file, wherever it stands.
    expect(outputs('-f', 'json=r.json', '-o', 'r.md', '-f', 'markdown')).toEqual([
      { format: 'json', file: 'r.json', flag: '--format json' },
      { format: 'markdown', file: 'r.md', flag: '--out' },
    ]);
    // A file name may hold "=": only the first one splits.
    expect(outputs('-f', 'json=a=b.json')).toEqual([
      { format: 'json', file: 'a=b.json', flag: '--format json' },
    ]);
    // merge parses the same flags.
    expect(parseCheckArgs(['p/*.partial', '-f', 'text', '-f', 'junit=j.xml'], true)).toMatchObject({
      positionals: ['p/*.partial'],
      outputs: [{ format: 'text' }, { format: 'junit', file: 'j.xml' }],
    });
  });

  it('refuses two formats to stdout, naming both, and every other ambiguity, with a usage error', () => {
    const refused = (argv: string[], message: string) =>
      expect(() => parseCheckArgs(argv)).toThrow(new UsageError(message));
    refused(
      ['--format', 'text', '--format', 'json'],
      '--format text and --format json: both would write to stdout; expected FORMAT=FILE for all but one, e.g. --format json=report.json',
    );
    refused(
      ['-f', 'junit', '-f', 'html', '-o', 'x'],
      '--out "x": 2 formats without =FILE (junit, html); expected FORMAT=FILE for all but one',
    );
    refused(
      ['-f', 'html=r.html', '--output', 'x'],
      '--output "x": every --format names its own file; expected --output beside one --format without =FILE',
    );
    refused(
      ['-f', 'html=out/r', '-f', 'junit=./out/r'],
      '--format html and --format junit: both write "./out/r"; expected a file for each',
    );
    refused(
      ['-f', 'yaml=x.yaml'],
      '--format "yaml=x.yaml": expected one of text, json, markdown, junit, html',
    );
    refused(['-f', 'html='], '--format "html=": no file after "="; expected FORMAT=FILE');
    refused(
      ['-o', 'a', '--output', 'b'],
      '--out and --output: both name the file of one format; expected one of them',
    );
    refused(
      ['--partial', 'p.partial', '--output', 'x'],
      '--output with --partial: a partial judges no gate and writes no report; expected it on "groundgate merge"',
    );
  });
});

/** main() in the repo, as the CLI runs it; what it printed on each stream, warnings left out of stderr. */
async function cli(args: string[]) {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: (t: string) => void (out.stdout += t),
    stderr: (t: string) => void (out.stderr += t),
    isTty: false,
    env: { NO_COLOR: '1' },
  };
  const previous = process.cwd();
  process.chdir(REPO);
  try {
    const code = await main(args, io);
    // Warnings (the example's, or those of gates other work adds) are not what these tests are about.
    const stderr = out.stderr.replace(/^groundgate: warning: .*\n/gm, '');
    return { code, stdout: out.stdout, stderr };
  } finally {
    process.chdir(previous);
  }
}

const REGRESSED = ['--input', 'qa.traces=runs/qa-regressed.trace.jsonl'];
/** The regressed run's verdict and its failed gates (gates.yaml's qa gates against the run's metrics). */
const FAILED_GATES = [
  'FAIL — 7 of 8 gates failed, 1 skipped',
  '  ✗ qa.precision = 0.5000, wanted >= 0.8',
  '  ✗ qa.chr = 0.6875, wanted >= 0.75',
  '  ✗ qa.under_refusal = 0.2500, wanted <= 0.05',
  '  ✗ qa.over_refusal = 0.1429, wanted <= 0.1',
  '  ✗ qa.scu_violations = 2, wanted == 0',
  '  ✗ qa.recall@5 = 0.7429, wanted >= 0.85', // 26 of 35 (baseline.test.ts)
  '  ✗ qa.coverage = 0.9787, wanted == 1', // 46 of the 47 gold items traced
];

describe('the verdict line', () => {
  it('goes to stdout when every format goes to a file, to stderr when stdout holds json, markdown, junit or html', async () => {
    const dir = tmpTree({});
    const html = path.join(dir, 'report.html');
    expect(await cli(['--suite', 'qa', '--format', 'html', '-o', html])).toEqual({
      code: 0,
      stdout: 'PASS — 7 of 8 gates passed, 1 skipped\n',
      stderr: '',
    });
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);

    const json = await cli(['--suite', 'qa', '--format', 'json']);
    expect(JSON.parse(json.stdout).verdict).toBe('pass');
    expect(json.stderr).toBe('groundgate: PASS — 7 of 8 gates passed, 1 skipped\n');

    // The regressed run: 7 of the 8 gates fail, the 8th (max_drop) is skipped without a baseline.
    const junit = path.join(dir, 'junit.xml');
    const failed = await cli([
      '--suite',
      'qa',
      ...REGRESSED,
      '--format',
      'markdown',
      '--format',
      `junit=${junit}`,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^### ❌ groundgate: FAIL — 7 of 8 gates failed, 1 skipped\n/);
    expect(failed.stderr).toBe('groundgate: FAIL — 7 of 8 gates failed, 1 skipped\n');
    expect(readFileSync(junit, 'utf8')).toContain('<testsuites name="groundgate" tests="8" failures="7">');
  });

  it("is the text view's own last line when text goes to stdout, beside the files", async () => {
    const dir = tmpTree({});
    const files = { html: path.join(dir, 'r.html'), junit: path.join(dir, 'j.xml') };
    const r = await cli([
      '--suite',
      'qa',
      '-f',
      'text',
      '-f',
      `html=${files.html}`,
      '-f',
      `junit=${files.junit}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^qa \(grounded-qa\) — gold 47,/);
    expect(r.stdout.match(/PASS — /g)).toHaveLength(1);
    expect(r.stdout).toMatch(/\n\nPASS — 7 of 8 gates passed, 1 skipped\n$/);
    expect(readFileSync(files.junit, 'utf8')).toContain(
      '<testsuites name="groundgate" tests="8" failures="0">',
    );
    expect(readFileSync(files.html, 'utf8')).toContain('PASS — 7 of 8 gates passed, 1 skipped');
  });

  it('is not printed with --quiet on a pass; a failure prints its verdict and failed gates even with --quiet, off stdout when stdout is data', async () => {
    const dir = tmpTree({});
    const html = path.join(dir, 'r.html');
    expect(await cli(['--suite', 'qa', '-q', '-f', 'json'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await cli(['--suite', 'qa', '-q', '-o', html, '-f', 'html'])).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(existsSync(html)).toBe(true);
    const failed = await cli(['--suite', 'qa', ...REGRESSED, '-q', '-f', 'json']);
    expect([failed.code, failed.stderr, JSON.parse(failed.stdout).verdict]).toEqual([
      1,
      FAILED_GATES.map((line) => `groundgate: ${line}\n`).join(''),
      'fail',
    ]);
  });

  it('with --quiet on a failure, the text view is the verdict line and the failed gates, nothing else', async () => {
    const failed = await cli(['--suite', 'qa', ...REGRESSED, '-q']);
    expect(failed).toEqual({ code: 1, stdout: FAILED_GATES.join('\n') + '\n', stderr: '' });
    // Every format in a file: the same lines on stdout.
    const html = path.join(tmpTree({}), 'r.html');
    expect(await cli(['--suite', 'qa', ...REGRESSED, '-q', `--format=html=${html}`])).toEqual({
      code: 1,
      stdout: FAILED_GATES.join('\n') + '\n',
      stderr: '',
    });
    expect(readFileSync(html, 'utf8')).toContain('FAIL — 7 of 8 gates failed, 1 skipped');
  });

  it('exits 2 on an empty --output= or --out=, naming the flag', async () => {
    for (const flag of ['--output=', '--out='])
      expect(await cli(['-f', 'json', flag])).toMatchObject({ code: 2, stdout: '' });
    expect((await cli(['-f', 'json', '--output='])).stderr).toBe(
      'groundgate: --output: no file named; expected --output FILE (see groundgate check --help)\n',
    );
  });

  it('exits 2 naming both formats when two would go to stdout', async () => {
    expect(await cli(['--format', 'text', '--format', 'json'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'groundgate: --format text and --format json: both would write to stdout; expected FORMAT=FILE for all but one, e.g. --format json=report.json (see groundgate check --help)\n',
    });
  });
});
