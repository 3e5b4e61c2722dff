import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareItems } from '../src/baseline/compare.js';
import { loadConfig } from '../src/config/load.js';
import { canonicalJson } from '../src/gold/canonical.js';
import { ItemRecord } from '../src/report/item-record.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { runCli } from './helpers/process.js';
import { jsonl, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

/** A copy of the repo example (qa suite only) to freeze and edit. */
function example(): string {
  const dir = tmpTree({});
  for (const p of ['gold', 'runs']) cpSync(path.join(REPO, p), path.join(dir, p), { recursive: true });
  writeFileSync(path.join(dir, 'gates.yaml'), qaOnlyGates());
  return dir;
}

describe('gold locks', () => {
  it('freeze → edit one item → verify and check --release exit 2 naming that qid', () => {
    const dir = example();
    const env = { SOURCE_DATE_EPOCH: '1767225600' };
    // The copy carries the committed lock, which must already match the committed gold: freezing again,
    // on another day, keeps it byte for byte.
    const committed = readFileSync(path.join(REPO, 'gold/qa.gold.lock.json'), 'utf8');
    for (const day of [env, { SOURCE_DATE_EPOCH: '1798761600' }]) {
      expect(runCli(['freeze'], dir, day)).toMatchObject({
        status: 0,
        stdout: 'qa: kept gold/qa.gold.lock.json (47 items, sha256:0aa1d6ccfc3b); unchanged\n',
      });
      expect(readFileSync(path.join(dir, 'gold/qa.gold.lock.json'), 'utf8')).toBe(committed);
    }
    expect(JSON.parse(readFileSync(path.join(dir, 'gold/qa.gold.lock.json'), 'utf8'))).toMatchObject({
      frozen: '2026-11-21',
      items: 47,
      gold: ['qa.gold.jsonl'],
    });
    expect(runCli(['verify'], dir)).toMatchObject({
      status: 0,
      stdout: 'qa: gold/qa.gold.jsonl matches qa.gold.lock.json (47 items, frozen 2026-11-21)\n',
    });
    // Release sign-off compares with the committed baseline of this gold set.
    expect(runCli(['baseline'], dir).status).toBe(0);
    expect(runCli(['--release', '-q'], dir).status).toBe(0);

    // Edit FM007's question: one item changed; reordering lines or keys changes nothing.
    const lines = readFileSync(path.join(dir, 'gold/qa.gold.jsonl'), 'utf8').trimEnd().split('\n');
    const edited = lines.map((l) => {
      const item = JSON.parse(l);
      if (item.qid === 'FM007') item.question += ' (reworded)';
      return canonicalJson(item);
    });
    writeFileSync(path.join(dir, 'gold/qa.gold.jsonl'), edited.reverse().join('\n') + '\n');

    const verify = runCli(['verify'], dir);
    expect(verify).toMatchObject({
      status: 2,
      stderr:
        'groundgate: gold/qa.gold.jsonl: does not match its lock gold/qa.gold.lock.json: 1 changed (FM007)\n',
    });
    const release = runCli(['--release'], dir);
    expect(release.status).toBe(2);
    expect(release.stderr).toBe(
      'groundgate: gold/qa.gold.jsonl: gold set does not match its lock gold/qa.gold.lock.json: 1 changed (FM007); a changed gold set needs sign-off and a new lock (groundgate freeze)\n',
    );
    // Outside release mode the check runs and the mismatch is reported, not fatal.
    const check = runCli(['--format', 'markdown'], dir);
    expect(check.status).toBe(0);
    expect(check.stdout).toContain(
      '> **qa**: the gold set does not match its lock `gold/qa.gold.lock.json`: 1 changed (`FM007`). Re-freeze',
    );
  });

  it('keeps item ids that are names of object properties (__proto__, constructor) as plain ids in the lock', () => {
    const item = (qid: string) => ({
      qid,
      question: `${qid}?`,
      answerable: false,
      gold_claim_substr: [],
      gold_citations: [],
    });
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n',
      'g.jsonl': jsonl([item('__proto__'), item('constructor')]),
      't.jsonl': '',
    });
    expect(runCli(['freeze'], dir).status).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(path.join(dir, 'g.lock.json'), 'utf8')).item_sha256)).toEqual([
      '__proto__',
      'constructor',
    ]);
    expect(runCli(['verify'], dir).status).toBe(0);
    writeFileSync(path.join(dir, 'g.jsonl'), jsonl([item('constructor'), item('toString')]));
    expect(runCli(['verify'], dir).stderr).toBe(
      'groundgate: g.jsonl: does not match its lock g.lock.json: 1 added (toString), 1 removed (__proto__)\n',
    );
  });

  it('names added and removed items, and refuses a release without a lock', () => {
    const dir = example();
    runCli(['freeze'], dir);
    const lines = readFileSync(path.join(dir, 'gold/qa.gold.jsonl'), 'utf8').trimEnd().split('\n');
    const extra = {
      qid: 'FM100',
      question: 'new?',
      answerable: false,
      gold_claim_substr: [],
      gold_citations: [],
    };
    writeFileSync(
      path.join(dir, 'gold/qa.gold.jsonl'),
      [...lines.slice(1), JSON.stringify(extra)].join('\n') + '\n',
    );
    expect(runCli(['verify'], dir).stderr).toBe(
      'groundgate: gold/qa.gold.jsonl: does not match its lock gold/qa.gold.lock.json: 1 added (FM100), 1 removed (FM001)\n',
    );

    const bare = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n',
      'g.jsonl': jsonl([extra]),
      't.jsonl': '',
    });
    expect(runCli(['--release'], bare)).toMatchObject({
      status: 2,
      stderr:
        'groundgate: g.lock.json: no lock for gold set g.jsonl; expected one written by "groundgate freeze" (release mode needs a frozen gold set)\n',
    });
  });
});

describe('flips against a baseline', () => {
  it('pairs only items with unchanged gold, and tests regressed vs fixed with McNemar', () => {
    const base = {
      A: { pass: true, gold: 'a1' },
      B: { pass: true, gold: 'b1' },
      C: { pass: false, gold: 'c1' },
      D: { pass: true, gold: 'd1' },
      E: { pass: true, gold: 'e1' },
      R: { pass: true, gold: 'r1' },
    };
    const now = {
      A: { pass: false, gold: 'a1' }, // regressed
      B: { pass: false, gold: 'b1' }, // regressed
      C: { pass: true, gold: 'c1' }, // fixed
      D: { pass: false, gold: 'd2' }, // edited: not compared
      E: { pass: true, gold: 'e1' }, // unchanged pass
      N: { pass: false, gold: 'n1' }, // added
    };
    // b = 2 regressed, c = 1 fixed: p = 2 · (1 + 3)/8 = 1 (capped).
    expect(compareItems(ItemRecord.fromRecord(now), ItemRecord.fromRecord(base))).toEqual({
      gold_changes: { added: ['N'], removed: ['R'], changed: ['D'] },
      paired: 4,
      regressed: ['A', 'B'],
      fixed: ['C'],
      mcnemar_p: 1,
    });
  });

  it('lists what the regressed traces broke first among offenders, with deltas', async () => {
    const dir = tmpTree({});
    const config = path.join(REPO, 'gates.yaml');
    writeFileSync(
      path.join(dir, 'base.json'),
      serializeReport((await run({ config, suites: ['qa'] })).report),
    );
    const { report } = await run({
      config,
      suites: ['qa'],
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }],
      baseline: path.join(dir, 'base.json'),
    });
    const qa = report.suites.qa!;
    // The base run fails FM009 FM011 FM015 FM023 FM043, and all five still fail on the regressed traces;
    // the regressed run fails 22 items, so 22 − 5 = 17 passed before and fail now, and nothing was fixed.
    expect(qa.comparison).toMatchObject({
      paired: 47,
      fixed: [],
      gold_changes: { added: [], removed: [], changed: [] },
    });
    expect(qa.comparison!.regressed).toHaveLength(17);
    expect(qa.comparison!.regressed).not.toContain('FM009');
    // 17 vs 0 discordant pairs: p = 2 / 2^17.
    expect(qa.comparison!.mcnemar_p / (2 / 2 ** 17)).toBeCloseTo(1, 12);
    const firstSeventeen = qa.offenders.slice(0, 17);
    expect(firstSeventeen.every((o) => o.flip === 'pass → fail')).toBe(true);
    expect(
      qa.offenders
        .slice(17)
        .map((o) => o.id)
        .sort(),
    ).toEqual(['FM009', 'FM011', 'FM015', 'FM023', 'FM043']);

    // A report that lists 5 offenders lists 5 of the regressed ones, and still counts all 22.
    const few = await run({
      config,
      suites: ['qa'],
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }],
      baseline: path.join(dir, 'base.json'),
      loaded: { ...loadConfig(config), reportOffenders: 5 },
    });
    const fewQa = few.report.suites.qa!;
    expect(fewQa.offenders_total).toBe(22);
    expect(fewQa.offenders.map((o) => [o.id, o.flip])).toEqual(
      qa.offenders.slice(0, 5).map((o) => [o.id, 'pass → fail']),
    );
  });
});

describe('confidence: lower_bound', () => {
  it('turns a pass on a point estimate into a fail when the interval is too wide', async () => {
    // 10 answerable items, 9 answered correctly, 1 claim miss: precision = 9/10 = 0.9, Wilson lower bound 0.5959.
    const gold = Array.from({ length: 10 }, (_, i) => ({
      qid: `Q${i}`,
      question: 'q',
      answerable: true,
      gold_claim_substr: ['right answer'],
      gold_citations: ['d'],
    }));
    const traces = gold.map((g, i) => ({
      qid: g.qid,
      retrieved_ids: ['d'],
      answer_json: { claim: i === 0 ? 'wrong' : 'the right answer', citations: ['d'] },
    }));
    const gates = (rule: string) =>
      `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    gates:\n      precision: ${rule}\n`;
    const dir = tmpTree({
      'point.yaml': gates('">= 0.8"'),
      'bound.yaml': gates('{ min: 0.8, confidence: lower_bound }'),
      'g.jsonl': jsonl(gold),
      't.jsonl': jsonl(traces),
    });
    const point = (await run({ config: path.join(dir, 'point.yaml') })).report;
    const bound = (await run({ config: path.join(dir, 'bound.yaml') })).report;
    expect(point.gates[0]).toMatchObject({ value: 0.9, passed: true });
    expect(bound.gates[0]).toMatchObject({ value: 0.9, passed: false, confidence: 'lower_bound' });
    expect(bound.gates[0]!.compared).toBeCloseTo(0.59585, 4);
    expect(bound.verdict).toBe('fail');
  });
});
