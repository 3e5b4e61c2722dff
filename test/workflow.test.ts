// The Action's workflow commands against @actions/core 3 (a devDependency kept for this check): for the
// same calls, the same bytes on stdout, in $GITHUB_OUTPUT and in $GITHUB_STEP_SUMMARY.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as core from '@actions/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as workflow from '../src/action/workflow.js';

const MESSAGES = [
  'plain',
  'gate failed: qa.precision = 0.5, wanted >= 0.8',
  '100% of 3:\r\nline two\nline three\r',
  '%0A already escaped, %25 too',
  '::error::injected',
  'ünïcödé ✓ and an emoji 🚦',
  '',
];

const PROPERTIES: core.AnnotationProperties[] = [
  {},
  { title: 'gate failed: qa.precision', file: 'gates.yaml', startLine: 12 },
  { title: 'a: b, c%d\ne', file: 'dir with, comma/and:colon.jsonl', startLine: 3, startColumn: 7 },
  { file: 'gold/qa.gold.jsonl', startLine: 1, endLine: 4, startColumn: 2, endColumn: 9 },
  { title: '', file: 'x', startLine: 0 }, // empty and zero values are left out by both
];

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
});
afterEach(() => {
  process.env = { ...saved };
  process.exitCode = undefined;
});

describe('annotations and log lines', () => {
  for (const level of ['error', 'warning'] as const) {
    it(`${level}: every message with every set of properties`, () => {
      for (const message of MESSAGES) {
        for (const properties of PROPERTIES) {
          const theirs = captureStdout(() => core[level](message, properties));
          const ours = captureStdout(() => workflow[level](message, properties));
          expect(ours).toBe(theirs);
        }
      }
    });
  }

  it('escapes what would end or forge a command', () => {
    const out = captureStdout(() =>
      workflow.error('100%\r\n::warning::x', { title: 'a:b,c', file: 'f', startLine: 2 }),
    );
    expect(out).toBe('::error title=a%3Ab%2Cc,file=f,line=2::100%25%0D%0A::warning::x\n');
  });

  it('info and setFailed', () => {
    for (const message of MESSAGES) {
      expect(captureStdout(() => workflow.info(message))).toBe(captureStdout(() => core.info(message)));
      const theirs = captureStdout(() => core.setFailed(message));
      expect(process.exitCode).toBe(1);
      process.exitCode = undefined;
      expect(captureStdout(() => workflow.setFailed(message))).toBe(theirs);
      expect(process.exitCode).toBe(1);
      process.exitCode = undefined;
    }
  });
});

describe('inputs', () => {
  it('reads INPUT_<NAME>, spaces as underscores, trimmed unless asked not to', () => {
    process.env['INPUT_GITHUB-TOKEN'] = '  t0ken \n';
    process.env.INPUT_FAIL_ON_GATE = 'false';
    process.env['INPUT_MY_SPACED_NAME'] = ' v ';
    for (const name of ['github-token', 'fail on gate', 'my spaced name', 'absent']) {
      expect(workflow.getInput(name)).toBe(core.getInput(name));
      expect(workflow.getInput(name, { trim: false })).toBe(core.getInput(name, { trimWhitespace: false }));
    }
    expect(workflow.getInput('github-token')).toBe('t0ken');
    expect(workflow.getInput('absent')).toBe('');
  });
});

describe('outputs and the job summary', () => {
  const delimiter = /ghadelimiter_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

  it('appends the same heredocs to $GITHUB_OUTPUT (the random delimiters aside)', () => {
    const values = ['true', '[{"suite":"qa","value":0.5}]', 'two\nlines\r\n', '', '/tmp/report.json'];
    const run = (set: (name: string, value: string) => void) => {
      const file = path.join(dir, `output-${Math.random()}`);
      writeFileSync(file, '');
      process.env.GITHUB_OUTPUT = file;
      values.forEach((v, i) => set(`name-${i}`, v));
      return readFileSync(file, 'utf8');
    };
    const theirs = run(core.setOutput);
    const ours = run(workflow.setOutput);
    expect(ours.match(delimiter)).toHaveLength(2 * values.length);
    expect(ours.replace(delimiter, 'D')).toBe(theirs.replace(delimiter, 'D'));
    expect(ours.split('\n').slice(0, 3).join('\n').replace(delimiter, 'D')).toBe('name-0<<D\ntrue\nD');
  });

  it('refuses a missing output file, as the runner always creates it', () => {
    process.env.GITHUB_OUTPUT = path.join(dir, 'absent');
    expect(() => workflow.setOutput('a', 'b')).toThrow(`Missing file at path: ${path.join(dir, 'absent')}`);
  });

  it('falls back to the set-output command without $GITHUB_OUTPUT', () => {
    delete process.env.GITHUB_OUTPUT;
    expect(captureStdout(() => workflow.setOutput('passed', 'a\nb'))).toBe(
      captureStdout(() => core.setOutput('passed', 'a\nb')),
    );
  });

  it('appends markdown to $GITHUB_STEP_SUMMARY as summary.addRaw().write() does', async () => {
    const markdown = '<!-- groundgate:gates.yaml -->\n### ✅ groundgate\n\n| a | b |\n';
    const theirs = path.join(dir, 'theirs.md');
    const ours = path.join(dir, 'ours.md');
    writeFileSync(theirs, 'before\n');
    writeFileSync(ours, 'before\n');
    process.env.GITHUB_STEP_SUMMARY = theirs;
    await core.summary.addRaw(markdown).write();
    await core.summary.emptyBuffer().addRaw(markdown).write();
    process.env.GITHUB_STEP_SUMMARY = ours;
    workflow.appendSummary(markdown);
    workflow.appendSummary(markdown);
    expect(readFileSync(ours, 'utf8')).toBe(readFileSync(theirs, 'utf8'));
  });
});
