import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { seeded } from './helpers/random.js';
import { FIXTURES, REPO, tmpTree } from './helpers/tmp.js';

// context over shards of its predictions: each instance scores alone, so any split by line merges to the
// report of one run (micro sums and macro means in prediction order), byte for byte.
const rnd = seeded(6161);

const gates = (repos: string, layout = 'shared') => `version: 1
suites:
  context:
    kind: context
    gold: gold.jsonl
    predictions: preds/*/*.jsonl
    repos: ${repos}
    repos_layout: ${layout}
    gates:
      line.f1: '>= 0.7'
      span.coverage: '>= 0.75'
      editloc.precision: '>= 0.9'
      auc.file: '>= 0.8'
      redundancy.line: '<= 0.25'
`;

async function compare(dir: string, lines: readonly string[], shards: number) {
  rmSync(path.join(dir, 'preds'), { recursive: true, force: true });
  const config = path.join(dir, 'gates.yaml');
  const dealt: string[][] = Array.from({ length: shards }, () => []);
  for (const line of lines) dealt[Math.floor(rnd() * shards)]!.push(line);
  const parts: string[] = [];
  for (const [k, own] of dealt.entries()) {
    const file = path.join(dir, 'preds', `shard-${k}`, 'p.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, own.map((l) => `${l}\n`).join(''));
    const part = path.join(dir, `part-${k}.partial`);
    await writePartialRun(part, { config, inputs: [{ key: 'predictions', path: file }] });
    parts.push(part);
  }
  const single = serializeReport((await run({ config })).report);
  const merged = serializeReport((await mergeRun(parts, { config })).report);
  return { single, merged, parts };
}

describe('context: check --partial and merge give the report of one run', () => {
  it.each([
    ['the mini-eval fixture', path.join(FIXTURES, 'contextbench/mini-eval'), 'pred.jsonl', 'repo', 'shared'],
    [
      "the repository's example",
      path.join(REPO, 'examples/context'),
      'predictions.jsonl',
      'repos',
      'per-instance',
    ],
  ])('%s, dealt at random', async (_, from, preds, repos, layout) => {
    const dir = tmpTree({ 'gates.yaml': gates(repos, layout) });
    cpSync(path.join(from, 'gold.jsonl'), path.join(dir, 'gold.jsonl'));
    cpSync(path.join(from, repos), path.join(dir, repos), { recursive: true });
    const lines = readFileSync(path.join(from, preds), 'utf8').split('\n').filter(Boolean);
    for (const shards of [1, 2, 3, 3, 4]) {
      const { single, merged } = await compare(dir, lines, shards);
      expect(merged).toBe(single);
    }
    expect(
      JSON.parse(serializeReport((await run({ config: path.join(dir, 'gates.yaml') })).report)).suites.context
        .counts.scored,
    ).toBeGreaterThan(0);
  });

  it('refuses an instance predicted in two shards, as one run refuses it twice', async () => {
    const from = path.join(FIXTURES, 'contextbench/mini-eval');
    const dir = tmpTree({ 'gates.yaml': gates('repo') });
    cpSync(path.join(from, 'gold.jsonl'), path.join(dir, 'gold.jsonl'));
    cpSync(path.join(from, 'repo'), path.join(dir, 'repo'), { recursive: true });
    const lines = readFileSync(path.join(from, 'pred.jsonl'), 'utf8').split('\n').filter(Boolean);
    const { parts } = await compare(dir, lines, 2);
    const again = path.join(dir, 'preds', 'again', 'p.jsonl');
    mkdirSync(path.dirname(again), { recursive: true });
    writeFileSync(again, `${lines[0]}\n`);
    const config = path.join(dir, 'gates.yaml');
    await writePartialRun(path.join(dir, 'again.partial'), {
      config,
      inputs: [{ key: 'predictions', path: again }],
    });
    await expect(mergeRun([...parts, path.join(dir, 'again.partial')], { config })).rejects.toThrow(
      /suite context: instance ".+" is predicted in .*\.partial too; expected one prediction per instance/,
    );
  });

  it("refuses raw trajectories (their order is not the files' ): extracted predictions split", async () => {
    const dir = tmpTree({
      'gates.yaml': gates('repo').replace('kind: context', 'kind: context\n    agent: miniswe'),
    });
    cpSync(path.join(FIXTURES, 'contextbench/mini-eval/gold.jsonl'), path.join(dir, 'gold.jsonl'));
    mkdirSync(path.join(dir, 'repo'));
    mkdirSync(path.join(dir, 'preds', 'a'), { recursive: true });
    writeFileSync(path.join(dir, 'preds', 'a', 'p.jsonl'), '{}\n');
    await expect(
      writePartialRun(path.join(dir, 'p.partial'), { config: path.join(dir, 'gates.yaml') }),
    ).rejects.toThrow(
      /raw miniswe trajectories cannot be split into partials; expected extracted predictions/,
    );
  });
});
