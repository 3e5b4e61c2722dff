import { cpSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

const GATES = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*.jsonl
    gates:
      precision: '>= 0.5'
`;
const SEMANTIC = `${GATES}    claims:
      match: semantic
      cache: judge/judgments.jsonl
      labels: judge/labels.jsonl
`;
const GOLD = jsonl([
  { qid: 'q1', question: 'Q?', answerable: true, gold_claim_substr: ['x'], gold_citations: ['d1'] },
]);
const TRACES = jsonl([{ qid: 'q1', retrieved_ids: ['d1'], answer_json: { claim: 'x', citations: ['d1'] } }]);

function workspace(gates = GATES) {
  return tmpTree({
    'gates.yaml': gates,
    'gold.jsonl': GOLD,
    'traces/a.jsonl': TRACES,
    'judge/judgments.jsonl': '',
    'judge/labels.jsonl': '',
    'base.json': '{}',
    'history.jsonl': '',
  });
}

/** The CLI in-process, with `@/x` standing for the workspace's x: exit status and stderr. */
async function cli(dir: string, argv: string[]) {
  let err = '';
  const status = await main(
    argv.map((a) => a.replaceAll('@/', `${dir}/`)),
    { stdout: () => {}, stderr: (s) => (err += s), isTty: false, env: {} },
  );
  return { status, err: err.replaceAll(`${dir}/`, '@/') };
}

const refusal = (flagAndFile: string, what: string) =>
  `groundgate: ${flagAndFile}: is an input of this run (${what}); expected a path that is not read by the run\n`;

describe('an output path that is an input of the run: exit 2 before anything is written', () => {
  it.each([
    [['--report', '@/gold.jsonl'], '--report @/gold.jsonl', "suite qa's gold"],
    [['--format', 'html=@/traces/a.jsonl'], '--format html @/traces/a.jsonl', "suite qa's traces"],
    [['--report', '@/gates.yaml'], '--report @/gates.yaml', 'the config'],
    [['--format', 'json', '--out', '@/gold.lock.json'], '--out @/gold.lock.json', "suite qa's lock"],
    [
      ['-f', 'text', '--output', '@/./sub/../gold.jsonl'],
      '--output @/./sub/../gold.jsonl',
      "suite qa's gold",
    ],
    [['--baseline', '@/base.json', '--report', '@/base.json'], '--report @/base.json', 'the baseline'],
    [
      ['--history', '@/history.jsonl', '-f', 'markdown=@/history.jsonl'],
      '--format markdown @/history.jsonl',
      'the history',
    ],
    [['--partial', '@/gold.jsonl'], '--partial @/gold.jsonl', "suite qa's gold"],
    [
      ['--input', 'qa.traces=@/other.jsonl', '--report', '@/other.jsonl'],
      '--report @/other.jsonl',
      "suite qa's traces",
    ],
  ])('check %j', async (argv, flagAndFile, what) => {
    const dir = workspace();
    if (argv.includes('qa.traces=@/other.jsonl')) tmpWrite(dir, 'other.jsonl', TRACES);
    const before = snapshot(dir);
    const { status, err } = await cli(dir, ['check', '--config', '@/gates.yaml', ...argv]);
    expect(err).toBe(refusal(flagAndFile, what));
    expect(status).toBe(2);
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(path.join(dir, 'gold.lock.json'))).toBe(false);
  });

  it("refuses the judge's files, which the judge alone may rewrite", async () => {
    const dir = workspace(SEMANTIC);
    expect(
      await cli(dir, ['check', '--config', '@/gates.yaml', '--report', '@/judge/judgments.jsonl']),
    ).toEqual({
      status: 2,
      err: refusal('--report @/judge/judgments.jsonl', "suite qa's claims.cache"),
    });
    expect(await cli(dir, ['check', '--config', '@/gates.yaml', '-f', 'junit=@/judge/labels.jsonl'])).toEqual(
      {
        status: 2,
        err: refusal('--format junit @/judge/labels.jsonl', "suite qa's claims.labels"),
      },
    );
    const priced = workspace(`${SEMANTIC}      pricing: judge/prices.yaml\n`);
    expect(
      await cli(priced, ['check', '--config', '@/gates.yaml', '--report', '@/judge/prices.yaml']),
    ).toEqual({
      status: 2,
      err: refusal('--report @/judge/prices.yaml', "suite qa's claims.pricing"),
    });
  });

  it('sees through a symbolic link to an input', async () => {
    const dir = workspace();
    symlinkSync(path.join(dir, 'gold.jsonl'), path.join(dir, 'link.json'));
    expect(await cli(dir, ['check', '--config', '@/gates.yaml', '--report', '@/link.json'])).toEqual({
      status: 2,
      err: refusal('--report @/link.json', "suite qa's gold"),
    });
    expect(readFileSync(path.join(dir, 'gold.jsonl'), 'utf8')).toBe(GOLD);
  });

  it('refuses a partial of the merge as its report', async () => {
    const dir = workspace();
    tmpWrite(dir, 'shard.partial', 'not read before the refusal');
    expect(
      await cli(dir, ['merge', '@/shard.partial', '--config', '@/gates.yaml', '--report', '@/shard.partial']),
    ).toEqual({
      status: 2,
      err: refusal('--report @/shard.partial', 'a partial'),
    });
    expect(
      await cli(dir, ['merge', '@/shard.partial', '--config', '@/gates.yaml', '--report', '@/gold.jsonl']),
    ).toEqual({
      status: 2,
      err: refusal('--report @/gold.jsonl', "suite qa's gold"),
    });
  });

  it('writes an output beside the inputs, in a folder not made yet, and passes', async () => {
    const dir = workspace();
    const run = await cli(dir, [
      'check',
      '--config',
      '@/gates.yaml',
      '--report',
      '@/out/gold.jsonl',
      '-f',
      'html=@/traces/b.html',
    ]);
    expect(run.status).toBe(0);
    expect(run.err).not.toMatch(/input of this run/);
    expect(JSON.parse(readFileSync(path.join(dir, 'out', 'gold.jsonl'), 'utf8'))).toMatchObject({
      verdict: 'pass',
    });
    expect(readFileSync(path.join(dir, 'gold.jsonl'), 'utf8')).toBe(GOLD);
  });
});

describe('history append and extract: the file they write may not be the one they read', () => {
  it('history append refuses --file naming the report it appends', async () => {
    const dir = workspace();
    tmpWrite(dir, 'report.json', '{}');
    expect(await cli(dir, ['history', 'append', '@/report.json', '--file', '@/./report.json'])).toEqual({
      status: 2,
      err: refusal('--file @/./report.json', 'the report'),
    });
    expect(readFileSync(path.join(dir, 'report.json'), 'utf8')).toBe('{}');
  });

  it('extract refuses --out naming one of its trajectories', async () => {
    const dir = workspace();
    const trajectories = path.join(REPO, 'examples/context/trajectories');
    cpSync(trajectories, path.join(dir, 'traj'), { recursive: true });
    const before = snapshot(dir);
    expect(
      await cli(dir, ['extract', '--agent', 'miniswe', '@/traj', '--out', '@/traj/kv-102.traj.json']),
    ).toEqual({ status: 2, err: refusal('--out @/traj/kv-102.traj.json', 'a trajectory') });
    expect(snapshot(dir)).toEqual(before);
    const written = await cli(dir, [
      'extract',
      '--agent',
      'miniswe',
      '@/traj',
      '--out',
      '@/predictions.jsonl',
    ]);
    expect(written.status).toBe(0);
    expect(readFileSync(path.join(dir, 'predictions.jsonl'), 'utf8').split('\n')).toHaveLength(3);
  });
});

function tmpWrite(dir: string, name: string, text: string) {
  writeFileSync(path.join(dir, name), text);
}

/** Every file of the workspace and its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (f.isFile())
      out[path.relative(dir, path.join(f.parentPath, f.name))] = readFileSync(
        path.join(f.parentPath, f.name),
        'utf8',
      );
  return out;
}
