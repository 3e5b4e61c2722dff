import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands.js';
import { commandReference, main } from '../src/cli/main.js';
import { REPO, tmpDir } from './helpers/tmp.js';

async function cli(args: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const status = await main(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
    env: {},
  });
  return { status, stdout, stderr };
}

const NAMES = COMMANDS.map((c) => c.name);

describe('each command’s --help', () => {
  it.each(NAMES)('%s --help has usage, options, exit status and an example, and exits 0', async (name) => {
    const r = await cli([name, '--help']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(new RegExp(`^Usage: groundgate (\\[${name}\\]|${name}\\b)`));
    expect(r.stdout).toMatch(/\n\nOptions:\n(.*\n)* {2}-h, --help +show this help\n/);
    expect(r.stdout).toMatch(/\n\nExit status:\n {2}\S/);
    expect(r.stdout).toMatch(/\n\nExample:\n {2}groundgate .+\n$/);
  });

  it('groundgate --help has the commands, the options, exit status and an example', async () => {
    const r = await cli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^Usage: groundgate \[command\] \[options\]\n\nCommands:\n {2}check +score the suites/,
    );
    expect(r.stdout).toContain('\n  normalize  turn agent run directories');
    expect(r.stdout).toContain(
      '\n\nOptions:\n  -v, --version  print the version\n  -h, --help     show this help\n',
    );
    expect(r.stdout).toMatch(/\n\nExit status:\n {2}0 .*\n\nExample:\n {2}groundgate /);
  });

  it('groundgate help is groundgate --help, and groundgate help COMMAND is COMMAND --help', async () => {
    const top = await cli(['--help']);
    expect(top.stdout).toContain(
      '\n\nRun "groundgate help COMMAND" (or "groundgate COMMAND --help") for a command\'s options; without a command, check runs.\n',
    );
    expect(await cli(['help'])).toEqual(top);
    expect(await cli(['help', '--help'])).toEqual(top);
    expect(await cli(['help', 'freeze'])).toEqual(await cli(['freeze', '--help']));
    expect(await cli(['help', 'chek'])).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'groundgate: unknown command "chek"; did you mean "check"?; expected one of check, merge, init, baseline, freeze, verify, history, extract, normalize, judge (see groundgate --help)\n',
    });
  });

  it('freeze lists its options in a column, long labels on a line of their own', async () => {
    const { stdout } = await cli(['freeze', '--help']);
    expect(stdout.slice(stdout.indexOf('Options:'), stdout.indexOf('\n\nExit status:'))).toBe(
      [
        'Options:',
        '  -c, --config PATH  gates file (default: gates.yaml)',
        '  -s, --suite NAME   only this suite (repeatable; default: every suite with a gold set)',
        '      --allow-outside-workspace',
        '                     let paths in gates.yaml lead outside the workspace (the git repository of',
        '                     gates.yaml); for local use, never for untrusted configs',
        '  -h, --help         show this help',
      ].join('\n'),
    );
    expect(stdout).toContain('\n\nExample:\n  groundgate freeze --suite qa\n');
    expect(stdout.split('\n').every((line) => line.length <= 100)).toBe(true);
  });

  it('history and verify, which had no options section, have one', async () => {
    expect((await cli(['history', '--help'])).stdout).toContain(
      'Options:\n      --file FILE   the history file to append to (required; made if missing)\n',
    );
    expect((await cli(['verify', '-h'])).stdout).toContain('Options:\n  -c, --config PATH  gates file');
  });
});

describe('usage errors name the right --help', () => {
  it.each(NAMES)('an unknown option of %s is exit 2 pointing at its --help', async (name) => {
    const r = await cli([name, '--bogus']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`groundgate: unknown option "--bogus" (see groundgate ${name} --help)\n`);
  });

  it('freeze’s usage error says groundgate freeze --help', async () => {
    expect(await cli(['freeze', 'gates.yaml'])).toEqual({
      status: 2,
      stdout: '',
      stderr: 'groundgate: unexpected argument "gates.yaml" (see groundgate freeze --help)\n',
    });
  });

  it('without a command, check runs, and its errors point at groundgate check --help', async () => {
    expect((await cli(['--bogus'])).stderr).toBe(
      'groundgate: unknown option "--bogus" (see groundgate check --help)\n',
    );
  });

  it('a misspelt option is suggested, as a misspelt command is', async () => {
    expect(await cli(['--formt', 'json'])).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'groundgate: unknown option "--formt"; did you mean "--format"? (see groundgate check --help)\n',
    });
    expect((await cli(['check', '--no-colr'])).stderr).toBe(
      'groundgate: unknown option "--no-colr"; did you mean "--no-color"? (see groundgate check --help)\n',
    );
    expect((await cli(['merge', '--reprot=r.json'])).stderr).toBe(
      'groundgate: unknown option "--reprot"; did you mean "--report"? (see groundgate merge --help)\n',
    );
    // Not close to any option: no guess; a short option is named as given.
    expect((await cli(['freeze', '--everything'])).stderr).toBe(
      'groundgate: unknown option "--everything" (see groundgate freeze --help)\n',
    );
    expect((await cli(['verify', '-z'])).stderr).toBe(
      'groundgate: unknown option "-z" (see groundgate verify --help)\n',
    );
  });

  it('without a gates.yaml, says that init writes one', async () => {
    const config = path.join(tmpDir(), 'gates.yaml');
    expect(await cli(['check', '--config', config])).toEqual({
      status: 2,
      stdout: '',
      stderr: `groundgate: ${config}: config file not found; pass --config PATH, or run "groundgate init" to write one calibrated from the data in the repository\n`,
    });
  });

  it('an unknown command points at groundgate --help, and a missing argument at the command’s', async () => {
    expect((await cli(['frezee'])).stderr).toMatch(
      /^groundgate: unknown command "frezee"; did you mean "freeze"\?; .* \(see groundgate --help\)\n$/,
    );
    expect(await cli(['verify', '--config'])).toEqual({
      status: 2,
      stdout: '',
      stderr: "groundgate: Option '-c, --config <value>' argument missing (see groundgate verify --help)\n",
    });
  });
});

const README = path.join(REPO, 'README.md');
const START = '<!-- commands:start -->';
const END = '<!-- commands:end -->';

describe('the README’s command reference', () => {
  it('is the one the declarations make (GROUNDGATE_WRITE_README=1 rewrites it)', () => {
    const text = readFileSync(README, 'utf8');
    const [before, rest] = text.split(START);
    const after = rest?.split(END)[1];
    expect(after, `README.md has ${START} … ${END}`).toBeDefined();
    const expected = `\n\n\`\`\`\n${commandReference()}\n\`\`\`\n\n`;
    if (process.env.GROUNDGATE_WRITE_README === '1')
      writeFileSync(README, `${before}${START}${expected}${END}${after}`);
    expect(readFileSync(README, 'utf8').split(START)[1]!.split(END)[0]).toBe(expected);
  });

  it('lists every command and every long option', () => {
    const reference = readFileSync(README, 'utf8').split(START)[1]!.split(END)[0]!;
    for (const command of COMMANDS) {
      expect(reference).toMatch(new RegExp(`^groundgate (\\[${command.name}\\]|${command.name}\\b)`, 'm'));
      expect(command.spec, `${command.name} is declared in options.ts`).toBeDefined();
      for (const option of Object.keys(command.spec?.options ?? {}))
        expect(reference, `${command.name} --${option}`).toMatch(new RegExp(`--${option}\\b`));
    }
    for (const flag of [
      '--artifact-name',
      '--trend',
      '--color',
      'groundgate extract',
      'groundgate normalize',
    ])
      expect(reference).toContain(flag);
  });

  it('mentions no option that no command has', () => {
    // npm's and npx's, in the install steps.
    const known = new Set(['--help', '--version', '--no-install', '--save-dev', '--ignore-scripts']);
    for (const command of COMMANDS)
      for (const [name, option] of Object.entries(command.spec?.options ?? {})) {
        known.add(`--${name}`);
        if (option.type === 'boolean') known.add(`--no-${name}`);
      }
    const mentioned = readFileSync(README, 'utf8').match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [];
    expect([...new Set(mentioned)].filter((flag) => !known.has(flag))).toEqual([]);
  });
});
