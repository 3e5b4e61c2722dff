import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { forgeSection, type Forged } from './helpers/forge-partial.js';
import { seeded } from './helpers/random.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

// stability over shards: a question's runs may sit in any shards, and a run_id repeated in two shards is one
// run (placed where it first was, read where it last was). Merged, the report is one run's, byte for byte.
const rnd = seeded(5151);
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

const gates = `version: 1
report_offenders: 30
suites:
  stability:
    kind: stability
    gold: gold.jsonl
    runs: runs/*/*.jsonl
    min_runs: 2
    gates:
      unstable_questions: '== 0'
      coverage: '== 1'
`;

const gold = Array.from({ length: 25 }, (_, i) => ({
  qid: `S${i}`,
  question: `question ${i}?`,
  answerable: i % 6 !== 0,
  gold_claim_substr: i % 6 !== 0 ? [`fact ${i}`] : [],
  gold_citations: i % 6 !== 0 ? [`d${i}`] : [],
  ...(i % 4 === 0 ? { constraints: ['Tokens are never written to the log.'] } : {}),
}));
function generatedRun(): string {
  const i = int(0, 27); // 25 and up: not in gold
  const claim =
    rnd() < 0.1
      ? 'not in context'
      : `It is fact ${rnd() < 0.8 ? i : i + 1}, ${rnd() < 0.5 ? 'surely' : 'maybe'}.`;
  return JSON.stringify({
    qid: `S${i}`,
    // Few run ids: repeats replace earlier lines, within a shard and across shards.
    ...(rnd() < 0.7 ? { run_id: `r${int(1, 4)}` } : {}),
    answer_json: {
      claim,
      citations: rnd() < 0.8 ? [`d${i}`] : [],
      ...(rnd() < 0.6 ? { constraints_echo: ['Tokens are never written to the log.'] } : {}),
    },
    retrieved_ids: [`d${i}`, `d${int(0, 30)}`],
  });
}

async function compare(dir: string, lines: readonly string[], shards: number) {
  rmSync(path.join(dir, 'runs'), { recursive: true, force: true });
  const config = path.join(dir, 'gates.yaml');
  const dealt: string[][] = Array.from({ length: shards }, () => []);
  for (const line of lines) dealt[int(0, shards - 1)]!.push(line);
  const parts: string[] = [];
  for (const [k, own] of dealt.entries()) {
    const folder = path.join(dir, 'runs', `shard-${k}`);
    mkdirSync(folder, { recursive: true });
    const cut = int(0, own.length);
    writeFileSync(
      path.join(folder, 'a.jsonl'),
      own
        .slice(0, cut)
        .map((l) => `${l}\n`)
        .join(''),
    );
    writeFileSync(
      path.join(folder, 'b.jsonl'),
      own
        .slice(cut)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const part = path.join(dir, `part-${k}.partial`);
    await writePartialRun(part, { config, inputs: [{ key: 'runs', path: path.join(folder, '*.jsonl') }] });
    parts.push(part);
  }
  const single = serializeReport((await run({ config })).report);
  const merged = serializeReport((await mergeRun(parts, { config })).report);
  return { single, merged };
}

describe('stability: check --partial and merge give the report of one run', () => {
  it('generated runs, run_ids repeated within and across shards, over 1 to 5 shards', async () => {
    const dir = tmpTree({ 'gates.yaml': gates, 'gold.jsonl': jsonl(gold) });
    for (let round = 0; round < 6; round++) {
      const lines = Array.from({ length: int(20, 160) }, generatedRun);
      for (const shards of [1, 2, 5]) {
        const { single, merged } = await compare(dir, lines, shards);
        expect(merged).toBe(single);
      }
    }
    const { merged } = await compare(dir, Array.from({ length: 120 }, generatedRun), 3);
    const counts = JSON.parse(merged).suites.stability.counts;
    expect(counts.superseded_runs).toBeGreaterThan(0);
    expect(counts.unknown_qids).toBeGreaterThan(0);
  });

  it("the example's runs (examples/stability), dealt at random", async () => {
    const dir = tmpTree({ 'gates.yaml': gates });
    copyFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), path.join(dir, 'gold.jsonl'));
    const lines = readFileSync(path.join(REPO, 'examples/stability/runs.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    for (const shards of [2, 3, 4]) {
      const { single, merged } = await compare(dir, lines, shards);
      expect(merged).toBe(single);
    }
  });

  it('refuses forged runs whose sha256 match: counts the runs contradict, a gold qid called unknown, a run_id twice', async () => {
    const dir = tmpTree({ 'gates.yaml': gates });
    copyFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), path.join(dir, 'gold.jsonl'));
    mkdirSync(path.join(dir, 'runs', 'shard-0'), { recursive: true });
    copyFileSync(path.join(REPO, 'examples/stability/runs.jsonl'), path.join(dir, 'runs/shard-0/a.jsonl'));
    const config = path.join(dir, 'gates.yaml');
    const part = path.join(dir, 'part.partial');
    const forged = async (edit: (section: Forged) => void, message: RegExp) => {
      await writePartialRun(part, {
        config,
        inputs: [{ key: 'runs', path: path.join(dir, 'runs/shard-0/a.jsonl') }],
      });
      forgeSection(part, 'stability', 'runs', (bytes) => {
        const section = JSON.parse(bytes.toString());
        edit(section);
        return Buffer.from(JSON.stringify(section));
      });
      await expect(mergeRun([part], { config })).rejects.toThrow(message);
    };
    await forged(
      (s) => (s.lines = 1e15),
      /part\.partial: suite stability: section runs holds 1000000000000000 lines; expected its runs, superseded lines and unknown lines, 12; expected a consistent partial/,
    );
    await forged(
      (s) => Object.assign(s, { unknown: [['A0001', 1]], lines: s.lines + 1 }),
      /part\.partial: suite stability: section runs lists qid "A0001" as not in gold, which it is/,
    );
    await forged(
      (s) => Object.assign(s, { runs: [...s.runs, s.runs[0]], lines: s.lines + 1 }),
      /part\.partial: suite stability: section runs run 12: run_id "A0001#seed=1;j=none" of "A0001" twice/,
    );
  });
});
