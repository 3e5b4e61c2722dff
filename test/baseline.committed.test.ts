import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  baselineReport,
  formatBaseline,
  parseBaselineFile,
  sameButCommit,
} from '../src/baseline/committed.js';
import { headCommit } from '../src/baseline/head.js';
import { chooseBaseline } from '../src/baseline/select.js';
import { main } from '../src/cli/main.js';
import { InputError } from '../src/errors.js';
import { ItemRecord } from '../src/report/item-record.js';
import { reportSchema, type Report } from '../src/report/schema.js';
import { init, qaRepo, REGRESSED } from './helpers/init.js';
import { runCli } from './helpers/process.js';
import { REPO, tmpTree } from './helpers/tmp.js';

const FILE = '.groundgate/baseline.jsonl';
const SHA1 = '1111111111111111111111111111111111111111';
const SHA2 = '2222222222222222222222222222222222222222';

/** A repository whose HEAD is `main` at `sha`, as git writes it (no git run). */
function gitHead(dir: string, sha: string): void {
  mkdirSync(path.join(dir, '.git/refs/heads'), { recursive: true });
  writeFileSync(path.join(dir, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(dir, '.git/refs/heads/main'), `${sha}\n`);
}

/** `groundgate COMMAND -c DIR/gates.yaml ARGS` in-process, with no terminal. */
async function cliCommand(dir: string, command: string, args: string[]) {
  let out = '';
  let err = '';
  const status = await main([command, '-c', path.join(dir, 'gates.yaml'), ...args], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTty: false,
    env: {},
  });
  return { status, out, err };
}
const check = (dir: string, ...args: string[]) => cliCommand(dir, 'check', args);

/** The sha256 the example's committed gold lock records. */
const LOCKED = (
  JSON.parse(readFileSync(path.join(REPO, 'gold/qa.gold.lock.json'), 'utf8')) as { sha256: string }
).sha256;

const readReport = (file: string): Report => reportSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
const baselineLines = (dir: string) => readFileSync(path.join(dir, FILE), 'utf8').trimEnd().split('\n');

/** A project as init leaves it, at commit SHA1, with the regressed traces copied over today's. */
async function initedProject(...initArgs: string[]): Promise<string> {
  const dir = qaRepo();
  gitHead(dir, SHA1);
  const r = await init(dir, '--yes', ...initArgs);
  expect(r.status).toBe(0);
  return dir;
}

describe('a fresh project: init --yes, then the committed baseline', () => {
  it('init writes it from its run and says so; a regressed copy fails against it with no artifact and no --baseline', async () => {
    const dir = qaRepo();
    gitHead(dir, SHA1);
    const r = await init(dir, '--yes');
    expect(r.status).toBe(0);
    expect(r.out).toContain(
      `wrote ${FILE}: 1 suite, 47 items, at commit 1111111: the verdicts of this run, what check compares with until the base commit has a report artifact\n`,
    );
    expect(r.out).toContain(`git add gates.yaml ${FILE} && git commit`);
    const lines = baselineLines(dir);
    // Header, the suite's line, one line per gold item.
    expect(lines).toHaveLength(2 + 47);
    expect(JSON.parse(lines[0]!)).toEqual({
      groundgate_baseline: '1',
      tool: { name: 'groundgate', version: '0.1.0' },
      commit: SHA1,
      // The example's gold set, as its committed lock records it.
      gold: { qa: LOCKED },
    });
    const passedBefore = new Set(
      lines
        .slice(2)
        .map((l) => JSON.parse(l) as { id: string; pass: boolean })
        .filter((i) => i.pass)
        .map((i) => i.id),
    );

    cpSync(REGRESSED, path.join(dir, 'runs/qa.trace.jsonl'));
    const failed = await check(dir, '--report', path.join(dir, 'r.json'));
    expect(failed.status).toBe(1);
    expect(failed.out).toContain(`Compared with the committed baseline ${FILE}, made at 1111111.`);
    const report = readReport(path.join(dir, 'r.json'));
    expect(report.baseline).toEqual({ source: 'committed', file: FILE, commit: SHA1 });
    // Every paired gate judged, none skipped: recall@5 fell from 32/35 (the baseline's line) to 26/35.
    expect(report.gates.filter((g) => g.skipped)).toEqual([]);
    expect(report.gates.find((g) => g.op === 'max_drop' && g.metric === 'recall@5')).toMatchObject({
      value: 26 / 35,
      baseline: 32 / 35,
      passed: false,
    });
    // The regressed items are those that passed in the committed file and fail now.
    const failNow = Object.entries(report.suites.qa!.items!.toJSON())
      .filter(([, v]) => !v.pass)
      .map(([id]) => id);
    expect(report.suites.qa!.comparison!.regressed).toEqual(
      failNow.filter((id) => passedBefore.has(id)).sort(),
    );
    expect(report.suites.qa!.comparison!.regressed.length).toBeGreaterThan(0);

    // The comment names it too.
    const md = await check(dir, '--format', 'markdown');
    expect(md.out).toContain(`Compared with the committed baseline ${FILE}, made at `);

    // Without it the same run has nothing to pair with: the paired gates are skipped.
    rmSync(path.join(dir, FILE));
    await check(dir, '--report', path.join(dir, 'none.json'));
    const none = readReport(path.join(dir, 'none.json'));
    expect(none.baseline).toBeUndefined();
    expect(none.gates.filter((g) => g.skipped).map((g) => g.reason)).toContain('no baseline report given');
  });

  it('--baseline FILE comes first: the committed baseline is not compared then', async () => {
    const dir = await initedProject();
    const base = await check(dir, '--report', path.join(dir, 'base.json'));
    expect(base.status).toBe(0);
    cpSync(REGRESSED, path.join(dir, 'runs/qa.trace.jsonl'));
    // A committed baseline that says every item failed: compared with it, nothing would regress.
    const lines = baselineLines(dir).map((l, i) => (i < 2 ? l : l.replace('"pass":true', '"pass":false')));
    writeFileSync(path.join(dir, FILE), `${lines.join('\n')}\n`);
    await check(dir, '--baseline', path.join(dir, 'base.json'), '--report', path.join(dir, 'r.json'));
    const report = readReport(path.join(dir, 'r.json'));
    expect(report.baseline).toBeUndefined();
    expect(report.suites.qa!.comparison!.regressed.length).toBeGreaterThan(0);
  });

  it("refuses another gold set's baseline with the reason, both digests named, no suite half-paired", async () => {
    const dir = await initedProject();
    const made = (JSON.parse(baselineLines(dir)[0]!) as { gold: { qa: string } }).gold.qa;
    // One gold question reworded: another gold set.
    const gold = path.join(dir, 'gold/qa.gold.jsonl');
    writeFileSync(gold, readFileSync(gold, 'utf8').replace('"question": "', '"question": "Reworded: '));
    const r = await check(dir, '--format', 'json', '--report', path.join(dir, 'r.json'));
    const report = readReport(path.join(dir, 'r.json'));
    const now = report.suites.qa!.gold!.sha256;
    expect(now).not.toBe(made);
    // As many characters as tell them apart and 4 more, at least 12.
    let same = 0;
    while (made[same] === now[same]) same++;
    const shown = Math.max(12, same + 4);
    const reason = `the committed baseline ${FILE} was made for another gold set (sha256 ${made.slice(0, shown)}… there, ${now.slice(0, shown)}… now); not compared: run "groundgate baseline" and commit .groundgate/baseline.jsonl`;
    expect(r.err).toContain(`groundgate: warning: qa: ${reason}\n`);
    expect(report.suites.qa!.comparison).toBeUndefined();
    expect(Object.values(report.suites.qa!.metrics).every((m) => m.baseline === undefined)).toBe(true);
    const paired = report.gates.filter((g) => g.op === 'max_drop' || g.op === 'max_new_failures');
    expect(paired.length).toBeGreaterThan(0);
    for (const g of paired) expect(g).toMatchObject({ skipped: true, reason });
  });

  it('--update-baseline rewrites it byte-identically when nothing changed, HEAD moved or not; a flip is one line', async () => {
    const dir = await initedProject();
    const made = readFileSync(path.join(dir, FILE));
    const same = await check(dir, '--update-baseline');
    expect(same.status).toBe(0);
    expect(same.err).toContain(`groundgate: ${FILE} unchanged (1 suite, 47 items, made at commit 1111111)\n`);
    expect(readFileSync(path.join(dir, FILE)).equals(made)).toBe(true);
    gitHead(dir, SHA2);
    expect((await check(dir, '--update-baseline')).status).toBe(0);
    expect(readFileSync(path.join(dir, FILE)).equals(made)).toBe(true);

    cpSync(REGRESSED, path.join(dir, 'runs/qa.trace.jsonl'));
    const before = baselineLines(dir);
    const updated = await check(dir, '--update-baseline', '--report', path.join(dir, 'r.json'));
    // The gates still judge against the baseline it replaces.
    expect(updated.status).toBe(1);
    expect(updated.err).toContain(
      `groundgate: wrote ${FILE}: 1 suite, 47 items, at commit 2222222; commit it\n`,
    );
    const after = baselineLines(dir);
    expect(after).toHaveLength(before.length);
    const changed = after.map((l, i) => i).filter((i) => after[i] !== before[i]);
    // The header (its commit), the metrics, and one line per item whose verdict flipped, nothing else.
    const flipped = readReport(path.join(dir, 'r.json')).suites.qa!.comparison!.regressed;
    expect(changed.slice(0, 2)).toEqual([0, 1]);
    expect(changed.slice(2).map((i) => (JSON.parse(after[i]!) as { id: string }).id)).toEqual(flipped);
    for (const i of changed.slice(2))
      expect(after[i]).toBe(before[i]!.replace('"pass":true', '"pass":false'));
  });

  it('--update-baseline refuses --suite: the file would lose the other suites', async () => {
    const dir = await initedProject();
    const made = readFileSync(path.join(dir, FILE), 'utf8');
    const r = await check(dir, '--update-baseline', '--suite', 'qa');
    expect(r.status).toBe(2);
    expect(r.err).toContain(
      'groundgate: --update-baseline with --suite: the baseline holds every suite, and would lose the others; expected --update-baseline alone (see groundgate check --help)\n',
    );
    expect(readFileSync(path.join(dir, FILE), 'utf8')).toBe(made);
  });

  it('groundgate baseline writes the same file init does', async () => {
    const dir = await initedProject();
    const made = readFileSync(path.join(dir, FILE), 'utf8');
    rmSync(path.join(dir, FILE));
    const r = await cliCommand(dir, 'baseline', []);
    expect(r).toEqual({
      status: 0,
      out: `wrote ${FILE}: 1 suite, 47 items, at commit 1111111; commit it\n`,
      err: '',
    });
    expect(readFileSync(path.join(dir, FILE), 'utf8')).toBe(made);
  });
});

describe('check --release and the committed baseline (the bundled CLI)', () => {
  it('exits 2 in one line without one, or with one of another gold set; passes with its own', async () => {
    const dir = await initedProject('--release');
    expect(runCli(['check', '--release', '-q'], dir)).toMatchObject({ status: 0, stderr: '' });
    const made = readFileSync(path.join(dir, FILE), 'utf8');
    rmSync(path.join(dir, FILE));
    expect(runCli(['check', '--release'], dir)).toEqual({
      status: 2,
      stdout: '',
      stderr: `groundgate: ${FILE}: no committed baseline; release sign-off compares with the one made for its gold set: run "groundgate baseline" and commit .groundgate/baseline.jsonl\n`,
    });
    const digest = (JSON.parse(made.split('\n')[0]!) as { gold: { qa: string } }).gold.qa;
    const other = 'f'.repeat(64);
    writeFileSync(path.join(dir, FILE), made.replace(digest, other));
    expect(runCli(['check', '--release'], dir)).toEqual({
      status: 2,
      stdout: '',
      stderr: `groundgate: ${FILE}: suite qa: the committed baseline ${FILE} was made for another gold set (sha256 ${'f'.repeat(12)}… there, ${digest.slice(0, 12)}… now); not compared: run "groundgate baseline" and commit .groundgate/baseline.jsonl\n`,
    });
  });
});

describe('the file', () => {
  const gold = (c: string) => c.repeat(16);
  const DIGEST = 'ab'.repeat(32);
  /** A report of one ranking suite as a run would make it, items with per-query values. */
  function report(): Report {
    const items = Object.create(null) as Record<
      string,
      { pass: boolean; gold?: string; values?: Record<string, number> }
    >;
    // Inserted out of order; "10" before "2" and "B" before "a" in code-unit order.
    items.a = { pass: true, gold: gold('1'), values: { 'ndcg@10': 0.1 + 0.2, mrr: 1 } };
    items['2'] = { pass: false, gold: gold('2'), values: { 'ndcg@10': 0 } };
    items.__proto__ = { pass: true, gold: gold('3') };
    items['10'] = { pass: true };
    items.B = { pass: false, gold: gold('4'), values: { 'ndcg@10': 1e-7 } };
    return {
      schema_version: '1',
      tool: { name: 'groundgate', version: '9.9.9' },
      verdict: 'pass',
      config: 'gates.yaml',
      suites: {
        z: {
          kind: 'latency',
          inputs: {},
          metrics: { p50_ms: { value: 12.5 } },
          counts: {},
          offenders_total: 0,
          offenders: [],
          warnings: [],
        },
        r: {
          kind: 'ranking',
          inputs: {},
          gold: { sha256: DIGEST, items: 5 },
          metrics: {
            'ndcg@10': { value: 0.5, numerator: 1, denominator: 2, ci95: [0.1, 0.9] },
            mrr: { value: null, reason: 'x' },
          },
          counts: {},
          offenders_total: 0,
          offenders: [],
          warnings: [],
          items: ItemRecord.fromRecord(items),
        },
      },
      gates: [],
    };
  }
  const TEXT = [
    `{"groundgate_baseline":"1","tool":{"name":"groundgate","version":"9.9.9"},"commit":"${SHA1}","gold":{"r":"${DIGEST}"}}`,
    '{"suite":"r","kind":"ranking","metrics":{"ndcg@10":0.5,"mrr":null}}',
    `{"suite":"r","id":"10","pass":true}`,
    `{"suite":"r","id":"2","pass":false,"gold":"${gold('2')}","values":{"ndcg@10":0}}`,
    `{"suite":"r","id":"B","pass":false,"gold":"${gold('4')}","values":{"ndcg@10":1e-7}}`,
    `{"suite":"r","id":"__proto__","pass":true,"gold":"${gold('3')}"}`,
    `{"suite":"r","id":"a","pass":true,"gold":"${gold('1')}","values":{"mrr":1,"ndcg@10":0.30000000000000004}}`,
    '{"suite":"z","kind":"latency","metrics":{"p50_ms":12.5}}',
    '',
  ].join('\n');

  it('is a header, then per suite in code-unit order its metrics line and its items in code-unit order of ids', () => {
    expect(formatBaseline(report(), SHA1)).toBe(TEXT);
  });

  it('reads back into the report a comparison reads: pass, gold and values exactly, and writes the same bytes', () => {
    const back = baselineReport(parseBaselineFile(TEXT, FILE));
    expect(formatBaseline(back, SHA1)).toBe(TEXT);
    const items = back.suites.r!.items!;
    expect(items.get('a')).toEqual({
      pass: true,
      gold: gold('1'),
      values: { mrr: 1, 'ndcg@10': 0.30000000000000004 },
    });
    expect(items.get('a')!.values!['ndcg@10']).toBe(0.1 + 0.2);
    expect(items.get('B')!.values!['ndcg@10']).toBe(1e-7);
    expect(items.get('__proto__')).toEqual({ pass: true, gold: gold('3') });
    expect(items.get('10')).toEqual({ pass: true });
    expect(items.has('constructor')).toBe(false);
    expect(back.suites.r!.gold).toEqual({ sha256: DIGEST, items: 5 });
    expect(back.suites.r!.metrics).toEqual({ 'ndcg@10': { value: 0.5 }, mrr: { value: null } });
    expect(back.suites.z).toMatchObject({ kind: 'latency', metrics: { p50_ms: { value: 12.5 } } });
    expect(back.suites.z!.gold).toBeUndefined();
    expect(back.suites.z!.items).toBeUndefined();
  });

  it('the report schema carries per-item values as the file does', () => {
    const parsed = reportSchema.parse(JSON.parse(JSON.stringify(report())));
    expect(parsed.suites.r!.items!.get('a')!.values).toEqual({ 'ndcg@10': 0.30000000000000004, mrr: 1 });
    expect(formatBaseline(parsed, SHA1)).toBe(TEXT);
  });

  it('tells an unchanged baseline whose commit alone moved', () => {
    expect(sameButCommit(TEXT, formatBaseline(report(), SHA2))).toBe(true);
    expect(sameButCommit(TEXT, formatBaseline(report(), null))).toBe(true);
    expect(sameButCommit(TEXT, TEXT.replace('"id":"10","pass":true', '"id":"10","pass":false'))).toBe(false);
    expect(sameButCommit(TEXT, TEXT.replace('9.9.9', '9.9.10'))).toBe(false);
  });

  const lines = TEXT.trimEnd().split('\n');
  const withLine = (i: number, text: string) =>
    [...lines.slice(0, i), text, ...lines.slice(i + 1)].join('\n');
  const errors: [string, string, string][] = [
    ['empty', '', `${FILE}: committed baseline is empty; expected a file written by "groundgate baseline"`],
    [
      'a header of another version',
      withLine(0, lines[0]!.replace('"groundgate_baseline":"1"', '"groundgate_baseline":"2"')),
      `${FILE}:1: groundgate_baseline: expected "1" (found "2"); expected a header {"groundgate_baseline": "1", …}`,
    ],
    [
      'a commit that is not a sha',
      withLine(0, lines[0]!.replace(SHA1, 'HEAD')),
      `${FILE}:1: commit: expected a 40-hex commit sha (found "HEAD"); expected a header {"groundgate_baseline": "1", …}`,
    ],
    [
      'a line that is not JSON',
      withLine(3, '{"suite":"r",'),
      `${FILE}:4:14: invalid JSON: expected double-quoted property name; expected a file written by "groundgate baseline"`,
    ],
    [
      'an item whose pass is a string',
      withLine(3, lines[3]!.replace('"pass":false', '"pass":"no"')),
      `${FILE}:4: pass: expected boolean, received string (found "no"); expected an item line {"suite", "id", "pass", "gold"?, "values"?}`,
    ],
    [
      'a value that is not a number',
      withLine(3, lines[3]!.replace('"ndcg@10":0', '"ndcg@10":"0"')),
      `${FILE}:4: values.ndcg@10: expected number, received string (found "0"); expected an item line {"suite", "id", "pass", "gold"?, "values"?}`,
    ],
    [
      'an item listed twice',
      withLine(3, lines[2]!),
      `${FILE}:4: item "10" of suite "r" listed twice; expected one line per item`,
    ],
    [
      'an item before its suite',
      withLine(2, lines[2]!.replace('"suite":"r"', '"suite":"z"')),
      `${FILE}:3: item of suite "z" before that suite's line; expected the suite's line first`,
    ],
    [
      'a suite listed twice',
      withLine(7, lines[1]!),
      `${FILE}:8: suite "r" listed twice; expected one line per suite`,
    ],
    [
      'an unknown key',
      withLine(2, lines[2]!.replace('}', ',"extra":1}')),
      `${FILE}:3: line: Unrecognized key: "extra"; expected an item line {"suite", "id", "pass", "gold"?, "values"?}`,
    ],
  ];
  it.each(errors)('refuses %s with one line naming file:line', (_, text, message) => {
    expect(() => parseBaselineFile(text, FILE)).toThrow(InputError);
    try {
      parseBaselineFile(text, FILE);
    } catch (err) {
      expect((err as Error).message).toBe(message);
    }
  });

  it('is refused by check in one line, exit 2', async () => {
    const dir = await initedProject();
    writeFileSync(path.join(dir, FILE), withLine(2, '[]'));
    const r = await check(dir);
    expect(r.status).toBe(2);
    expect(r.err).toBe(
      `groundgate: ${path.join(dir, FILE)}:3: line: expected object, received array; expected a suite line {"suite", "kind", "metrics"}\n`,
    );
  });
});

describe('the commit it is made at', () => {
  it('GITHUB_SHA first, else HEAD through its ref, packed-refs, a detached HEAD or a worktree, else null', () => {
    const dir = tmpTree({});
    expect(headCommit(dir, { GITHUB_SHA: SHA2.toUpperCase() })).toBe(SHA2);
    gitHead(dir, SHA1);
    const sub = path.join(dir, 'a/b');
    mkdirSync(sub, { recursive: true });
    expect(headCommit(sub, {})).toBe(SHA1);
    expect(headCommit(sub, { GITHUB_SHA: 'not a sha' })).toBe(SHA1);
    rmSync(path.join(dir, '.git/refs/heads/main'));
    writeFileSync(path.join(dir, '.git/packed-refs'), `# pack-refs with: peeled\n${SHA2} refs/heads/main\n`);
    expect(headCommit(dir, {})).toBe(SHA2);
    writeFileSync(path.join(dir, '.git/HEAD'), `${SHA1}\n`);
    expect(headCommit(dir, {})).toBe(SHA1);
    // A linked worktree: .git is a file naming its git directory, whose commondir holds the branches.
    const wt = tmpTree({});
    mkdirSync(path.join(dir, '.git/worktrees/wt'), { recursive: true });
    writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(dir, '.git/worktrees/wt')}\n`);
    writeFileSync(path.join(dir, '.git/worktrees/wt/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(dir, '.git/worktrees/wt/commondir'), '../..\n');
    expect(headCommit(wt, {})).toBe(SHA2);
    writeFileSync(path.join(dir, '.git/HEAD'), 'ref: refs/heads/none\n');
    expect(headCommit(dir, {})).toBeNull();
  });
});

describe('which baseline', () => {
  const committed = {
    report: { suites: {} } as Report,
    source: { source: 'committed' as const, file: FILE, commit: SHA1 },
    file: FILE,
  };
  it('a report given or found first, else the committed one, saying so where none was found', () => {
    const found = { report: { suites: { a: {} } } as unknown as Report };
    expect(chooseBaseline(found, committed)).toBe(found);
    expect(chooseBaseline(undefined, committed)).toEqual({
      report: committed.report,
      source: committed.source,
    });
    expect(
      chooseBaseline(
        { warning: 'baseline: auto found no report to compare with: x; no deltas, max_drop gates skipped' },
        committed,
      ),
    ).toEqual({
      report: committed.report,
      source: committed.source,
      warning: `baseline: auto found no report to compare with: x; compared with the committed baseline ${FILE} instead`,
    });
    const warning = { warning: 'no deltas, max_drop gates skipped' };
    expect(chooseBaseline(warning, undefined)).toBe(warning);
    expect(chooseBaseline(undefined, undefined)).toBeUndefined();
  });
});
