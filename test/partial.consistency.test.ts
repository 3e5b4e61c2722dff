import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LABELS } from '../src/suites/consistency/contract.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { seeded } from './helpers/random.js';
import { REPO, tmpTree } from './helpers/tmp.js';

// consistency over shards: pairs split by line, or a scholar's and an auditor's files split apart (a qid's
// two judgments may be in different shards, and the merge joins them); merged, one run's report.
const rnd = seeded(8181);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;

async function compare(dir: string, keys: Record<string, string[]>, shards: number) {
  rmSync(path.join(dir, 'in'), { recursive: true, force: true });
  const config = path.join(dir, 'gates.yaml');
  const parts: string[] = [];
  const dealt = Object.entries(keys).map(([key, lines]) => {
    const own: string[][] = Array.from({ length: shards }, () => []);
    for (const line of lines) own[Math.floor(rnd() * shards)]!.push(line);
    return [key, own] as const;
  });
  for (let k = 0; k < shards; k++) {
    const inputs = dealt.map(([key, own]) => {
      const file = path.join(dir, 'in', key, `shard-${k}.jsonl`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, own[k]!.map((l) => `${l}\n`).join(''));
      return { key, path: file };
    });
    const part = path.join(dir, `part-${k}.partial`);
    await writePartialRun(part, { config, inputs });
    parts.push(part);
  }
  const single = serializeReport((await run({ config })).report);
  return { single, merged: serializeReport((await mergeRun(parts, { config })).report), parts };
}

describe('consistency: check --partial and merge give the report of one run', () => {
  it("the example's pairs, dealt by line", async () => {
    const dir = tmpTree({
      'gates.yaml': `version: 1\nsuites:\n  consistency:\n    kind: consistency\n    pairs: in/pairs/*.jsonl\n    gates:\n      agreement: '>= 0.9'\n      kappa: '>= 0.75'\n`,
    });
    const lines = readFileSync(path.join(REPO, 'examples/consistency/pairs.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    for (const shards of [1, 2, 3]) {
      const { single, merged } = await compare(dir, { pairs: lines }, shards);
      expect(merged).toBe(single);
    }
  });

  it('a scholar and an auditor, their files dealt apart, some qids labelled by one of them only', async () => {
    const dir = tmpTree({
      'gates.yaml': `version: 1\nreport_offenders: 50\nsuites:\n  consistency:\n    kind: consistency\n    scholar: in/scholar/*.jsonl\n    auditor: in/auditor/*.jsonl\n    gates:\n      agreement: '>= 0.9'\n      kappa: '>= 0.5'\n      abstain_rate: '<= 0.1'\n`,
    });
    const judgment = (qid: string) =>
      JSON.stringify({ qid, label: pick(LABELS), ...(rnd() < 0.5 ? { reason: `because ${qid}` } : {}) });
    for (let round = 0; round < 4; round++) {
      const qids = Array.from({ length: 60 }, (_, i) => `C${i}`);
      const scholar = qids.filter(() => rnd() < 0.9).map(judgment);
      const auditor = qids.filter(() => rnd() < 0.9).map(judgment);
      for (const shards of [2, 4]) {
        const { single, merged } = await compare(dir, { scholar, auditor }, shards);
        expect(merged).toBe(single);
      }
    }
  });

  it('refuses a qid in two shards, as one run refuses it twice', async () => {
    const dir = tmpTree({
      'gates.yaml': `version: 1\nsuites:\n  consistency:\n    kind: consistency\n    pairs: in/pairs/*.jsonl\n`,
    });
    const lines = readFileSync(path.join(REPO, 'examples/consistency/pairs.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const { parts } = await compare(dir, { pairs: [...lines, lines[0]!] }, 1).catch(() => ({
      parts: [] as string[],
    }));
    expect(parts).toEqual([]);
    const { parts: two } = await compare(dir, { pairs: lines }, 2);
    const again = path.join(dir, 'again.jsonl');
    writeFileSync(again, `${lines[0]}\n`);
    await writePartialRun(path.join(dir, 'again.partial'), {
      config: path.join(dir, 'gates.yaml'),
      inputs: [{ key: 'pairs', path: again }],
    });
    await expect(
      mergeRun([...two, path.join(dir, 'again.partial')], { config: path.join(dir, 'gates.yaml') }),
    ).rejects.toThrow(/duplicate qid "A0001" \(first at .*\); expected one line per qid/);
  });
});
