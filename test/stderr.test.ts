import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { preview } from '../src/errors.js';
import { jsonl, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

// What the CLI writes to stderr quotes the user's data (file names, qids, values), which may come from a
// fork's pull request: on a runner a line starting `::error` is a workflow command, and on a terminal ESC
// sequences rewrite the screen.

async function cli(args: string[], cwd: string) {
  let stderr = '';
  const io = {
    stdout: () => undefined,
    stderr: (t: string) => void (stderr += t),
    isTty: false,
    env: { NO_COLOR: '1' },
  };
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    return { code: await main(args, io), stderr };
  } finally {
    process.chdir(previous);
  }
}

const INJECTED = 'X1\n::error file=gates.yaml,line=1::injected\u001b[2J\u001b]0;owned\u0007';

function expectSafe(stderr: string): string[] {
  const lines = stderr.split('\n').filter(Boolean);
  for (const line of lines) expect(line).toMatch(/^groundgate: /);
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  return lines;
}

describe('untrusted text on stderr', () => {
  const gold = readFileSync(path.join(REPO, 'gold/qa.gold.jsonl'), 'utf8');
  const traces = readFileSync(path.join(REPO, 'runs/qa.trace.jsonl'), 'utf8');
  const tree = (files: Record<string, string>) =>
    tmpTree({
      'gates.yaml': qaOnlyGates().replace(/\n\s+lock: [^\n]+/, ''),
      'gold/qa.gold.jsonl': gold,
      ...files,
    });

  it('a warning quoting a qid with a newline and escape sequences stays one line without them', async () => {
    const stray = jsonl([{ ...JSON.parse(traces.split('\n')[0]!), qid: INJECTED }]);
    const dir = tree({ 'runs/qa.trace.jsonl': traces + stray });
    const { code, stderr } = await cli(['--format', 'markdown', '-o', 'out.md'], dir);
    expect(code).toBe(0);
    const lines = expectSafe(stderr);
    const warning = lines.find((l) => l.includes('not in gold'));
    expect(warning).toContain('X1 ↵ ::error file=gates.yaml,line=1::injected�[2J�]0;owned�');
  });

  it('an error naming a file whose name holds escape sequences', async () => {
    const dir = tree({ 'runs/qa.trace.jsonl': traces });
    const config = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      config.replace('traces: runs/qa.trace.jsonl', 'traces: "runs/\\e[32mx\\a.jsonl"'),
    );
    const { code, stderr } = await cli([], dir);
    expect(code).toBe(2);
    expect(expectSafe(stderr)).toEqual([
      expect.stringMatching(/^groundgate: gates\.yaml:\d+:\d+: file not found: .*runs\/�\[32mx�\.jsonl\)$/),
    ]);
  });

  it('a line of arrays 200,000 deep is a one-line error, not an internal one', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const dir = tree({ 'runs/qa.trace.jsonl': deep + '\n' + traces });
    const { code, stderr } = await cli([], dir);
    expect(code).toBe(2);
    expect(expectSafe(stderr)).toEqual([
      'groundgate: runs/qa.trace.jsonl:1: JSON nested 200000 levels deep; expected at most 512',
    ]);
  });
});

describe('preview', () => {
  it('shows what JSON.stringify shows, cut to its length', () => {
    const values: unknown[] = [
      'a "quoted" text',
      42,
      null,
      true,
      [1, 'two', { three: 3 }],
      { a: 1, skipped: undefined, f: () => 1, b: [undefined, null] },
      { toJSON: () => 'as JSON' },
      'x'.repeat(100),
    ];
    for (const v of values) {
      const json = JSON.stringify(v);
      expect(preview(v, 200)).toBe(json);
      expect(preview(v, 12)).toBe(json.length > 12 ? `${json.slice(0, 11)}…` : json);
    }
    expect(preview(undefined)).toBe('undefined');
    expect(preview(10n)).toBe('10');
  });

  it('walks no more of a deep or wide value than it shows', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 500_000; i++) deep = [deep];
    expect(preview(deep)).toBe(`${'['.repeat(39)}…`);
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(preview(wide)).toBe('{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5…');
  });
});
