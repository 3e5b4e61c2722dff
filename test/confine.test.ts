import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliScope, confine, confineTree, isInside, scopeAt, UNCONFINED } from '../src/io/confine.js';
import { runAction, workspace } from './helpers/action.js';
import { FakeGitHub } from './helpers/fake-github.js';
import { runCli } from './helpers/process.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

/** A file outside every workspace below, whose text must never reach an output. */
const SECRET = 'RUNNER-SECRET-7f3a';
const outsideDir = () =>
  tmpTree({
    'secret.jsonl': jsonl([
      {
        qid: 'S1',
        question: SECRET,
        answerable: true,
        gold_claim_substr: [SECRET],
        gold_citations: ['d1'],
      },
    ]),
    'traces.jsonl': jsonl([
      { qid: 'S1', retrieved_ids: ['d9'], answer_json: { claim: SECRET, citations: ['d9'] } },
    ]),
  });

/** A git repository (a .git folder is enough) with a grounded-qa suite whose gold and traces are given. */
function repo(gold: string, traces = 'traces.jsonl', extra = ''): string {
  const dir = tmpTree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    'traces.jsonl': jsonl([
      { qid: 'A', retrieved_ids: ['d1'], answer_json: { claim: 'alpha beta', citations: ['d1'] } },
    ]),
    'gold.jsonl': jsonl([
      {
        qid: 'A',
        question: 'q',
        answerable: true,
        gold_claim_substr: ['alpha beta'],
        gold_citations: ['d1'],
      },
    ]),
  });
  writeFileSync(
    path.join(dir, 'gates.yaml'),
    `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: ${gold}\n    traces: ${traces}\n${extra}    gates:\n      precision: ">= 0.5"\n`,
  );
  return dir;
}

const noSecret = (r: { stdout: string; stderr: string }) => {
  expect(r.stdout + r.stderr).not.toContain(SECRET);
};

describe('paths in gates.yaml never leave the workspace (CLI, dist/cli/index.js)', () => {
  it('refuses a relative path that climbs out, naming gates.yaml:line and the path as written', () => {
    const out = outsideDir();
    const dir = repo('gold.jsonl');
    const written = path.relative(dir, path.join(out, 'secret.jsonl'));
    expect(written).toMatch(/^\.\.\//);
    const config = readFileSync(path.join(dir, 'gates.yaml'), 'utf8').replace('gold.jsonl', written);
    writeFileSync(path.join(dir, 'gates.yaml'), config);
    const r = runCli(['--config', path.join(dir, 'gates.yaml')], dir);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `groundgate: gates.yaml:5:11: suites.qa.gold: path ${JSON.stringify(written)} resolves outside the workspace ${dir} (the git repository of the config); expected a path inside it; --allow-outside-workspace allows it\n`,
    );
    noSecret(r);
  });

  it('refuses an absolute path, /etc/passwd included, and never reads it', () => {
    const dir = repo('/etc/passwd');
    const r = runCli([], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^groundgate: gates\.yaml:5:11: suites\.qa\.gold: path "\/etc\/passwd" resolves outside/,
    );
    expect(r.stderr).not.toMatch(/root:/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('refuses a symbolic link that points out; a glob follows only links that stay inside', () => {
    const out = outsideDir();
    const link = repo('gold.jsonl', 'traces.jsonl');
    symlinkSync(path.join(out, 'secret.jsonl'), path.join(link, 'leak.jsonl'));
    writeFileSync(
      path.join(link, 'gates.yaml'),
      readFileSync(path.join(link, 'gates.yaml'), 'utf8').replace('gold: gold.jsonl', 'gold: leak.jsonl'),
    );
    const a = runCli([], link);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(
      /^groundgate: gates\.yaml:5:11: suites\.qa\.gold: path "leak\.jsonl" resolves outside the workspace/,
    );
    noSecret(a);

    // A glob follows links that stay inside; a file link out that the pattern matches is refused, and a
    // folder link out is never walked.
    const glob = repo('gold.jsonl', 'runs/**/*.jsonl');
    mkdirSync(path.join(glob, 'runs'));
    writeFileSync(path.join(glob, 'runs', 'a.jsonl'), readFileSync(path.join(glob, 'traces.jsonl')));
    symlinkSync(path.join(glob, 'runs', 'a.jsonl'), path.join(glob, 'runs', 'c.jsonl'));
    symlinkSync(out, path.join(glob, 'runs', 'evil'));
    const b = runCli(['--format', 'json'], glob);
    expect(b.status).toBe(0);
    expect(JSON.parse(b.stdout).suites.qa.inputs.traces).toEqual(['runs/a.jsonl', 'runs/c.jsonl']);
    noSecret(b);
    symlinkSync(path.join(out, 'traces.jsonl'), path.join(glob, 'runs', 'b.jsonl'));
    const bad = runCli([], glob);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(
      /^groundgate: gates\.yaml:6:13: suites\.qa\.traces: path "runs\/b\.jsonl" resolves outside the workspace/,
    );
    noSecret(bad);

    // A link named directly that stays inside is read as before.
    symlinkSync(path.join(glob, 'runs', 'a.jsonl'), path.join(glob, 'latest.jsonl'));
    writeFileSync(
      path.join(glob, 'gates.yaml'),
      readFileSync(path.join(glob, 'gates.yaml'), 'utf8').replace('runs/**/*.jsonl', 'latest.jsonl'),
    );
    const c = runCli(['--format', 'json'], glob);
    expect(c.status).toBe(0);
    expect(JSON.parse(c.stdout).suites.qa.inputs.traces).toEqual(['latest.jsonl']);
  });

  it('a path through a file, or a name too long, is "file not found", not an internal error', () => {
    for (const gold of ['gold.jsonl/x', `${'n'.repeat(300)}.jsonl`]) {
      const r = runCli([], repo(gold));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^groundgate: gates\.yaml:5:11: file not found: /);
      expect(r.stderr).not.toContain('internal error');
    }
  });

  it('refuses a glob whose fixed part lies outside before listing anything', () => {
    const r = runCli([], repo('gold.jsonl', '/etc/**/*.jsonl'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /suites\.qa\.traces: path "\/etc\/\*\*\/\*\.jsonl" resolves outside the workspace/,
    );
  });

  it('refuses a glob whose wildcard part climbs out or names an absolute path, before listing', () => {
    for (const glob of ['runs/*/../../../x/*.jsonl', 'runs/{/,x}/**/*.jsonl', 'runs/@(..|x)/*.jsonl']) {
      const r = runCli([], repo('gold.jsonl', JSON.stringify(glob)));
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `groundgate: gates.yaml:6:13: suites.qa.traces: glob ${JSON.stringify(glob)} climbs out of its fixed folder after a wildcard; expected ".." and absolute paths only before the first wildcard\n`,
      );
    }
    // ".." before the first wildcard is a path like any other: inside, it is fine.
    const dir = repo('gold.jsonl', 'sub/../tr*.jsonl');
    mkdirSync(path.join(dir, 'sub'));
    expect(runCli(['--format', 'json'], dir).status).toBe(0);
  });

  it('refuses a path or glob holding a NUL character with a one-line error', () => {
    const r = runCli([], repo('gold.jsonl', '"t\\0*.jsonl"'));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'groundgate: gates.yaml:6:13: suites.qa.traces: path "t\\u0000*.jsonl" holds a NUL character; expected a file path\n',
    );
  });

  it('refuses --input outside the workspace; --allow-outside-workspace allows both', () => {
    const out = outsideDir();
    const dir = repo('gold.jsonl');
    const r = runCli(['--input', `qa.traces=${path.join(out, 'traces.jsonl')}`], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^groundgate: --input qa\.traces: path ".*traces\.jsonl" resolves outside the workspace/,
    );
    const allowed = runCli(
      [
        '--input',
        `qa.traces=${path.join(out, 'traces.jsonl')}`,
        '--allow-outside-workspace',
        '--offenders',
        '1',
      ],
      dir,
    );
    expect(allowed.status).toBe(1);
    expect(allowed.stdout).toContain('not in gold');
  });

  it('refuses a lock outside, and freeze writes nothing through a link that points out', () => {
    const out = tmpTree({});
    const dir = repo('gold.jsonl', 'traces.jsonl', `    lock: ${path.join(out, 'qa.lock.json')}\n`);
    const check = runCli([], dir);
    expect(check.status).toBe(2);
    expect(check.stderr).toMatch(
      /^groundgate: gates\.yaml:7:11: suites\.qa\.lock: path ".*qa\.lock\.json" resolves outside/,
    );
    const freeze = runCli(['freeze'], dir);
    expect(freeze.status).toBe(2);
    expect(existsSync(path.join(out, 'qa.lock.json'))).toBe(false);

    // The default lock beside the gold, made a dangling link to a file outside.
    const linked = repo('gold.jsonl');
    symlinkSync(path.join(out, 'planted.json'), path.join(linked, 'gold.lock.json'));
    const again = runCli(['freeze'], linked);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/suites\.qa\.lock: path "gold\.lock\.json" resolves outside the workspace/);
    expect(existsSync(path.join(out, 'planted.json'))).toBe(false);
  });

  it('refuses a gates.yaml that is itself a link out of the workspace, before reading a byte of it', () => {
    // Three outside configs: invalid YAML, a suite named by the secret (of an unknown kind), and a valid
    // one that would score the outside data. Each is refused for where it is, not for what it holds.
    const out = outsideDir();
    const configs = {
      'broken.yaml': `version: 1\nsuites:\n  ${SECRET}: [\n`,
      'named.yaml': `version: 1\nsuites:\n  ${SECRET}:\n    kind: nope\n`,
      'valid.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: secret.jsonl\n    traces: traces.jsonl\n    gates:\n      precision: ">= 0"\n`,
    };
    for (const [name, text] of Object.entries(configs)) writeFileSync(path.join(out, name), text);
    expect(runCli(['--config', 'valid.yaml', '--format', 'json'], out).status).toBe(0);
    for (const name of Object.keys(configs)) {
      const dir = tmpTree({ '.git/HEAD': '' });
      symlinkSync(path.join(out, name), path.join(dir, 'gates.yaml'));
      // The workspace is the repository the link is in, not the folder it points to.
      for (const args of [[], ['--config', path.join(dir, 'gates.yaml')]]) {
        const r = runCli(args, dir);
        expect(r.status).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          `groundgate: gates.yaml: config: path "gates.yaml" resolves outside the workspace ${dir} (the git repository of the config); expected a path inside it; --allow-outside-workspace allows it\n`.replace(
            'path "gates.yaml"',
            `path ${JSON.stringify(args.length ? path.join(dir, 'gates.yaml') : 'gates.yaml')}`,
          ),
        );
        noSecret(r);
      }
    }
  });
});

describe('paths that suites walk by themselves', () => {
  it('agent-retrieval runs: a link under the run folder that points out is an error', () => {
    const out = outsideDir();
    const dir = tmpTree({
      '.git/HEAD': '',
      'gates.yaml':
        'version: 1\nsuites:\n  ar:\n    kind: agent-retrieval\n    runs: runs/r1\n    gates:\n      file_recall: ">= 0"\n',
      'runs/r1/cfg/2026-01-01__00-00-00/t__x/result.json': '{}',
    });
    symlinkSync(out, path.join(dir, 'runs/r1/cfg/2026-01-01__00-00-00/t__x/agent'));
    const r = runCli([], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `groundgate: gates.yaml:5:11: suites.ar.runs: path "runs/r1/cfg/2026-01-01__00-00-00/t__x/agent" is a symbolic link that resolves outside the workspace ${dir} (the git repository of the config); expected a path inside it; --allow-outside-workspace allows it\n`,
    );
  });

  it('agent-retrieval artifacts: a planted link in the folder it writes is refused, nothing is written through it', () => {
    const out = tmpTree({ 'victim.txt': 'keep me\n' });
    const dir = tmpTree({
      '.git/HEAD': '',
      'gates.yaml':
        'version: 1\nsuites:\n  ar:\n    kind: agent-retrieval\n    events: ev/*.json\n    artifacts: art\n    gates:\n      file_recall: ">= 0"\n',
    });
    const events =
      'examples/agent-retrieval/runs/staging/fix_sonnet_20260301_090000/retrieval_events/baseline-local-direct';
    mkdirSync(path.join(dir, 'ev'));
    writeFileSync(
      path.join(dir, 'ev', 'a.json'),
      readFileSync(path.join(REPO, events, 'kv-docs-001.retrieval_events.json')),
    );
    mkdirSync(path.join(dir, 'art'));
    symlinkSync(path.join(out, 'victim.txt'), path.join(dir, 'art', 'run_retrieval_summary.json'));
    const r = runCli([], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /suites\.ar\.artifacts: path "art\/run_retrieval_summary\.json" is a symbolic link that resolves outside/,
    );
    expect(readFileSync(path.join(out, 'victim.txt'), 'utf8')).toBe('keep me\n');
  });

  it('context repos: an instance id of ".." does not reach the folder above repos', async () => {
    const { run } = await import('../src/run.js');
    const dir = tmpTree({
      '.git/HEAD': '',
      'repos/secret.py': `${SECRET} = 1\n`,
      'repos/x/README.md': 'x\n',
      'gold.jsonl': jsonl([
        {
          instance_id: '..',
          repo_url: 'r',
          commit: 'c',
          gold_ctx: [{ file: 'repos/secret.py', start_line: 1, end_line: 1 }],
        },
      ]),
      'pred.jsonl': jsonl([
        { instance_id: '..', traj_data: { pred_steps: [], pred_files: ['repos/secret.py'], pred_spans: {} } },
      ]),
      'gates.yaml':
        'version: 1\nsuites:\n  ctx:\n    kind: context\n    gold: gold.jsonl\n    predictions: pred.jsonl\n    repos: repos\n',
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    // Read through the folder above, repos/secret.py made the symbol level computable (coverage 1).
    expect(report.suites.ctx!.metrics['symbol.coverage']!.value).toBeNull();
    expect(JSON.stringify(report)).not.toContain(SECRET);
  });
});

describe('the Action: gates.yaml from a fork cannot read the runner', () => {
  let gh: FakeGitHub;
  beforeEach(async () => {
    gh = await new FakeGitHub().start();
  });
  afterEach(() => gh.stop());

  it('a gold path out of GITHUB_WORKSPACE is exit 2 with an annotation on gates.yaml, no comment, nothing leaked', async () => {
    const out = outsideDir();
    const ws = workspace();
    writeFileSync(
      path.join(ws, 'gates.yaml'),
      readFileSync(path.join(ws, 'gates.yaml'), 'utf8').replace(
        'gold/qa.gold.jsonl',
        path.join(out, 'secret.jsonl'),
      ),
    );
    const r = await runAction(ws, gh.url);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /::error file=gates\.yaml,line=9,col=11::suites\.qa\.gold: path ".*secret\.jsonl" resolves outside the workspace .* \(GITHUB_WORKSPACE\); expected a path inside it\n/,
    );
    expect(r.stdout).not.toContain('--allow-outside-workspace');
    expect(gh.requests).toEqual([]);
    expect(r.summary).toBe('');
    noSecret(r);
  });
});

describe('files the workflow or the command line names: anywhere, but not out through a planted link', () => {
  let gh: FakeGitHub;
  beforeEach(async () => {
    gh = await new FakeGitHub().start();
  });
  afterEach(() => gh.stop());

  it('the Action does not write its report through a link in the checkout, nor read history through one', async () => {
    const out = tmpTree({ 'victim.txt': 'keep me\n', 'h.jsonl': '{"x": 1}\n' });
    const ws = workspace();
    symlinkSync(path.join(out, 'victim.txt'), path.join(ws, 'groundgate-report.json'));
    const r = await runAction(ws, gh.url, { comment: 'never' });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /::error::groundgate: input "report": path "groundgate-report\.json" resolves outside the workspace .* \(GITHUB_WORKSPACE\)/,
    );
    expect(readFileSync(path.join(out, 'victim.txt'), 'utf8')).toBe('keep me\n');

    const ws2 = workspace();
    symlinkSync(path.join(out, 'h.jsonl'), path.join(ws2, 'history.jsonl'));
    const h = await runAction(ws2, gh.url, { comment: 'never', history: 'history.jsonl' });
    expect(h.code).toBe(2);
    expect(h.stdout).toMatch(/input "history": path "history\.jsonl" resolves outside the workspace/);
    // A path the workflow names outside the checkout (e.g. under runner.temp) is the workflow's choice.
    const elsewhere = await runAction(workspace(), gh.url, {
      comment: 'never',
      report: path.join(out, 'r.json'),
    });
    expect(elsewhere.code).toBe(0);
    expect(existsSync(path.join(out, 'r.json'))).toBe(true);
  });

  it('nor through a folder link planted where the workflow writes, while its own paths outside still work', async () => {
    const out = tmpTree({ 'victim.txt': 'keep me\n' });
    const ws = workspace();
    symlinkSync(out, path.join(ws, 'reports'));
    const r = await runAction(ws, gh.url, { comment: 'never', report: 'reports/victim.txt' });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/input "report": path "reports\/victim\.txt" resolves outside the workspace/);
    expect(readFileSync(path.join(out, 'victim.txt'), 'utf8')).toBe('keep me\n');

    // A trusted config outside the checkout (the workflow's choice) loads; what it names must be inside.
    const trusted = tmpTree({ 'gates.yaml': readFileSync(path.join(ws, 'gates.yaml'), 'utf8') });
    const config = await runAction(ws, gh.url, {
      comment: 'never',
      config: path.join(trusted, 'gates.yaml'),
    });
    expect(config.code).toBe(2);
    expect(config.stdout).toMatch(
      /suites\.qa\.gold: path "gold\/qa\.gold\.jsonl" resolves outside the workspace/,
    );
    // A gates.yaml in the checkout that is a link out is refused before it is read.
    const ws2 = workspace();
    const secret = tmpTree({ 'gates.yaml': `version: 1\nsuites:\n  ${SECRET}: [\n` });
    rmSync(path.join(ws2, 'gates.yaml'));
    symlinkSync(path.join(secret, 'gates.yaml'), path.join(ws2, 'gates.yaml'));
    const linked = await runAction(ws2, gh.url, { comment: 'never' });
    expect(linked.code).toBe(2);
    expect(linked.stdout).toMatch(/config: path ".*gates\.yaml" resolves outside the workspace/);
    noSecret(linked);
  });

  it('the CLI does not write --report or --out through a link in the workspace', () => {
    const out = tmpTree({ 'victim.txt': 'keep me\n' });
    const dir = repo('gold.jsonl');
    symlinkSync(path.join(out, 'victim.txt'), path.join(dir, 'report.json'));
    for (const flag of ['--report', '--out']) {
      const r = runCli([flag, 'report.json'], dir);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^groundgate: ${flag}: path "report\\.json" resolves outside the workspace`),
      );
    }
    expect(readFileSync(path.join(out, 'victim.txt'), 'utf8')).toBe('keep me\n');
    expect(runCli(['--report', path.join(out, 'r.json')], dir).status).toBe(0);
  });
});

describe('confine (unit)', () => {
  it('follows links, allows files not yet written, and refuses NUL characters', () => {
    const dir = tmpTree({ 'a/b.txt': 'x' });
    const scope = scopeAt(dir, 'test');
    const where = { file: 'gates.yaml', line: 3 };
    expect(confine(path.join(dir, 'a/b.txt'), scope, 'a/b.txt', where)).toBe(path.join(dir, 'a/b.txt'));
    expect(confine(path.join(dir, 'a/new/c.json'), scope, 'a/new/c.json', where)).toBe(
      path.join(dir, 'a/new/c.json'),
    );
    expect(() => confine(path.join(dir, '..'), scope, '..', where, 'k')).toThrow(
      /^gates\.yaml:3: k: path "\.\." resolves outside/,
    );
    expect(() => confine(path.join(dir, 'a\0b'), scope, 'a\0b', where, 'k')).toThrow(
      'gates.yaml:3: k: path "a\\u0000b" holds a NUL character; expected a file path',
    );
    symlinkSync(dir, path.join(dir, 'a', 'loop'));
    expect(() => confineTree(dir, scope, '.', where)).not.toThrow();
    expect(isInside('/w', '/w')).toBe(true);
    expect(isInside('/w', '/w/..x')).toBe(true);
    expect(isInside('/w', '/wx')).toBe(false);
  });

  it('confineTree refuses a link under the folder that leads out, naming it; links that stay inside are walked', () => {
    const out = tmpTree({ 'secret.txt': SECRET });
    const dir = tmpTree({ 'runs/a/x.json': '{}' });
    const scope = scopeAt(dir, 'test');
    const where = { file: 'gates.yaml', line: 5, column: 11 };
    symlinkSync(path.join(dir, 'runs/a'), path.join(dir, 'runs/b'));
    expect(() => confineTree(path.join(dir, 'runs'), scope, 'runs', where, 'suites.ar.runs')).not.toThrow();
    symlinkSync(out, path.join(dir, 'runs/a/deep'));
    expect(() => confineTree(path.join(dir, 'runs'), scope, 'runs/', where, 'suites.ar.runs')).toThrow(
      `gates.yaml:5:11: suites.ar.runs: path "runs/a/deep" is a symbolic link that resolves outside the workspace ${scope.root} (test); expected a path inside it`,
    );
    // A dangling link leads nowhere known: refused too.
    rmSync(path.join(dir, 'runs/a/deep'));
    symlinkSync(path.join(dir, 'gone'), path.join(dir, 'runs/a/dangling'));
    expect(() => confineTree(path.join(dir, 'runs'), scope, 'runs', where)).toThrow(
      /path "runs\/a\/dangling" is a symbolic link that resolves outside/,
    );
    expect(() => confineTree(path.join(dir, 'runs'), UNCONFINED, 'runs', where)).not.toThrow();
  });

  it('takes the git repository of the config as the workspace, else the working directory, else the config folder', () => {
    const gitRepo = tmpTree({ '.git/HEAD': '', 'eval/gates.yaml': '' });
    expect(cliScope(path.join(gitRepo, 'eval/gates.yaml')).root).toBe(gitRepo);
    const plain = tmpTree({ 'eval/gates.yaml': '' });
    expect(cliScope(path.join(plain, 'eval/gates.yaml'), plain).root).toBe(plain);
    expect(cliScope(path.join(plain, 'eval/gates.yaml'), tmpTree({})).root).toBe(path.join(plain, 'eval'));
    // A config that is a link: the workspace is where the link is, not where it leads.
    const outside = tmpTree({ 'g.yaml': '' });
    symlinkSync(path.join(outside, 'g.yaml'), path.join(gitRepo, 'gates.yaml'));
    expect(cliScope(path.join(gitRepo, 'gates.yaml')).root).toBe(gitRepo);
  });
});
