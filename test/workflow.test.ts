// What the Action writes through @actions/core: annotations and log lines on stdout, inputs read from
// INPUT_*, heredocs in $GITHUB_OUTPUT and markdown in $GITHUB_STEP_SUMMARY.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as core from '@actions/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { annotationsFor } from '../src/action/annotations.js';
import { readInputs } from '../src/action/inputs.js';
import { appendSummary } from '../src/action/summary.js';
import type { Report } from '../src/report/schema.js';

function captureStdout(fn: () => void): string {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

let dir: string;
const saved = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'groundgate-workflow-'));
  for (const name of Object.keys(process.env)) if (name.startsWith('INPUT_')) delete process.env[name];
});
afterEach(() => {
  process.env = { ...saved };
  process.exitCode = undefined;
});

describe('annotations and log lines', () => {
  it('escapes what would end or forge a command', () => {
    const out = captureStdout(() =>
      core.error('100%\r\n::warning::x', { title: 'a:b,c', file: 'f', startLine: 2 }),
    );
    expect(out).toBe('::error title=a%3Ab%2Cc,file=f,line=2::100%25%0D%0A::warning::x\n');
  });

  it('names every position property as the runner spells it, and leaves out empty and zero ones', () => {
    const props = { file: 'gold/qa.gold.jsonl', startLine: 1, endLine: 4, startColumn: 2, endColumn: 9 };
    expect(captureStdout(() => core.warning('m', props))).toBe(
      '::warning file=gold/qa.gold.jsonl,line=1,endLine=4,col=2,endColumn=9::m\n',
    );
    expect(captureStdout(() => core.warning('m', { title: '', file: 'x', startLine: 0 }))).toBe(
      '::warning file=x::m\n',
    );
    expect(captureStdout(() => core.warning('', {}))).toBe('::warning::\n');
  });

  it("an offender's annotation: a file name with a comma and a colon stays one property", () => {
    const report = {
      gates: [],
      suites: {
        qa: {
          offenders: [
            { id: 'FM004\nx', labels: ['under_refusal'], source: { file: 'a, b:c.jsonl', line: 3 } },
          ],
        },
      },
    } as unknown as Report;
    const [a] = annotationsFor(report, '/ws/gates.yaml', '/ws');
    expect(captureStdout(() => core[a!.level](a!.message, a!.properties))).toBe(
      '::warning title=groundgate offender (qa),file=a%2C b%3Ac.jsonl,line=3::FM004 x: under_refusal\n',
    );
  });

  it('info is the line as given; setFailed is an error line and exit code 1', () => {
    expect(captureStdout(() => core.info('ünïcödé ✓ 🚦 ::error::not a command'))).toBe(
      'ünïcödé ✓ 🚦 ::error::not a command\n',
    );
    expect(captureStdout(() => core.setFailed('groundgate: 2 gate(s) failed\nsecond'))).toBe(
      '::error::groundgate: 2 gate(s) failed%0Asecond\n',
    );
    expect(process.exitCode).toBe(1);
  });
});

describe('inputs', () => {
  it('reads INPUT_<NAME> with the name as action.yml spells it, trimmed; absent inputs take defaults', () => {
    process.env['INPUT_GITHUB-TOKEN'] = '  t0ken \n';
    process.env['INPUT_FAIL-ON-GATE'] = ' False ';
    process.env.INPUT_SUITES = ' qa, retrieval ';
    const inputs = readInputs();
    expect(inputs).toMatchObject({
      token: 't0ken',
      failOnGate: false,
      suites: ['qa', 'retrieval'],
      mode: 'check',
      config: 'gates.yaml',
      comment: 'auto',
      historyRuns: 20,
      report: 'groundgate-report.json',
    });
    expect(core.getInput('absent')).toBe('');
  });
});

describe('outputs and the job summary', () => {
  const delimiter = /ghadelimiter_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

  it('appends one heredoc per output to $GITHUB_OUTPUT, each with its own random delimiter', () => {
    const file = path.join(dir, 'output');
    writeFileSync(file, '');
    process.env.GITHUB_OUTPUT = file;
    core.setOutput('passed', 'true');
    core.setOutput('metrics', 'two\nlines\r\n');
    const text = readFileSync(file, 'utf8');
    expect(new Set(text.match(delimiter))).toHaveProperty('size', 2);
    expect(text.replace(delimiter, 'D')).toBe('passed<<D\ntrue\nD\nmetrics<<D\ntwo\nlines\r\n\nD\n');
  });

  it('refuses a missing output file, as the runner always creates it', () => {
    process.env.GITHUB_OUTPUT = path.join(dir, 'absent');
    expect(() => core.setOutput('a', 'b')).toThrow(`Missing file at path: ${path.join(dir, 'absent')}`);
  });

  it('falls back to the set-output command without $GITHUB_OUTPUT', () => {
    delete process.env.GITHUB_OUTPUT;
    expect(captureStdout(() => core.setOutput('passed', 'a\nb'))).toBe('\n::set-output name=passed::a%0Ab\n');
  });

  it('appends markdown to $GITHUB_STEP_SUMMARY as given, and skips it without one', async () => {
    delete process.env.GITHUB_STEP_SUMMARY;
    await expect(appendSummary('nowhere')).resolves.toBeUndefined();
    const markdown = '<!-- groundgate:gates.yaml -->\n### ✅ groundgate\n\n| a | b |\n';
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, 'before\n');
    process.env.GITHUB_STEP_SUMMARY = file;
    await appendSummary(markdown);
    await appendSummary(markdown);
    expect(readFileSync(file, 'utf8')).toBe(`before\n${markdown}${markdown}`);
  });
});
