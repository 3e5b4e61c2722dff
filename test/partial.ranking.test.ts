import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { forgeSection, type Forged } from './helpers/forge-partial.js';
import { seeded } from './helpers/random.js';
import { FIXTURES, REPO, tmpTree } from './helpers/tmp.js';

// A ranking run split by query over shards merges to the report of one run over the shards' files, byte
// for byte: the example run and the trec_eval fixture, dealt at random, with and without `complete`.
const rnd = seeded(4242);

const gates = (complete: boolean) => `version: 1
report_offenders: 25
suites:
  retrieval:
    kind: ranking
    qrels: qrels.txt
    run: runs/*/*.run
    k: 10
    complete: ${complete}
    gates:
      ndcg@10: '>= 0.5'
      P@5: '>= 0.2'
      recall@100: '>= 0.5'
      mrr: { min: 0.5, max_drop: 0.01 }
      map: '>= 0.3'
`;

/** The example's qrels in a folder of its own, and its BM25 run's lines. */
function example() {
  const dir = tmpTree({ 'gates.yaml': gates(false) });
  copyFileSync(path.join(REPO, 'examples/ranking/ferrymark.qrels'), path.join(dir, 'qrels.txt'));
  const lines = readFileSync(path.join(REPO, 'examples/ranking/bm25.run'), 'utf8')
    .split('\n')
    .filter(Boolean);
  return { dir, lines };
}

/** Deals the run's queries to `shards` shards (some maybe empty), each query's lines to one shard, then compares. */
async function compare(dir: string, runLines: readonly string[], shards: number) {
  rmSync(path.join(dir, 'runs'), { recursive: true, force: true });
  const byQuery = new Map<string, string[]>();
  for (const line of runLines) {
    const qid = line.split(/\s+/)[0]!;
    byQuery.set(qid, [...(byQuery.get(qid) ?? []), line]);
  }
  const dealt: string[][] = Array.from({ length: shards }, () => []);
  for (const lines of byQuery.values()) dealt[Math.floor(rnd() * shards)]!.push(...lines);
  const config = path.join(dir, 'gates.yaml');
  const parts: string[] = [];
  for (const [k, lines] of dealt.entries()) {
    const file = path.join(dir, 'runs', `shard-${k}`, 'part.run');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    const part = path.join(dir, `part-${k}.partial`);
    await writePartialRun(part, { config, inputs: [{ key: 'run', path: file }] });
    parts.push(part);
  }
  const single = serializeReport((await run({ config })).report);
  const merged = serializeReport((await mergeRun(parts, { config })).report);
  return { single, merged, parts };
}

describe('ranking: check --partial and merge give the report of one run', () => {
  const cases = [
    [
      'examples/ranking',
      path.join(REPO, 'examples/ranking/ferrymark.qrels'),
      path.join(REPO, 'examples/ranking/bm25.run'),
    ],
    ['fixtures/trec', path.join(FIXTURES, 'trec/small.qrels'), path.join(FIXTURES, 'trec/small.run')],
  ] as const;
  for (const [name, qrels, runFile] of cases) {
    for (const complete of [false, true]) {
      it(`${name}, complete: ${complete}, over 1 to 6 shards`, async () => {
        const dir = tmpTree({ 'gates.yaml': gates(complete) });
        copyFileSync(qrels, path.join(dir, 'qrels.txt'));
        const lines = readFileSync(runFile, 'utf8').split('\n').filter(Boolean);
        // Only part of the run: some qrels queries have no run lines (skipped, or scored 0 with complete).
        const some = lines.filter((l) => !/^(FM00[1-3]|10[4-8]) /.test(l));
        for (const shards of [1, 2, 3, 6]) {
          const { single, merged } = await compare(dir, some, shards);
          expect(merged).toBe(single);
        }
        const report = JSON.parse(
          serializeReport((await run({ config: path.join(dir, 'gates.yaml') })).report),
        );
        expect(report.suites.retrieval.counts.evaluated).toBeGreaterThan(0);
      });
    }
  }

  it('refuses a forged measure outside 0–1, its sha256 made to match', async () => {
    const { dir, lines } = example();
    const { parts } = await compare(dir, lines, 1);
    forgeSection(parts[0]!, 'retrieval', 'scan', (bytes) => {
      const scan = JSON.parse(bytes.toString());
      scan.queries[0].values = scan.queries[0].values.map(() => 9);
      return Buffer.from(JSON.stringify(scan));
    });
    await expect(mergeRun(parts, { config: path.join(dir, 'gates.yaml') })).rejects.toThrow(
      /part-0\.partial: section retrieval\.scan queries\.0\.values\.0: expected .* \(Too big: expected number to be <=1\.000000001\)/,
    );
  });

  it("refuses forged results whose sha256 match: counts the qrels contradict, a run file not the shard's", async () => {
    const { dir, lines } = example();
    const forged = async (edit: (query: Forged) => void, message: RegExp) => {
      const { parts } = await compare(dir, lines, 1);
      forgeSection(parts[0]!, 'retrieval', 'scan', (bytes) => {
        const scan = JSON.parse(bytes.toString());
        edit(scan.queries[0]);
        return Buffer.from(JSON.stringify(scan));
      });
      await expect(mergeRun(parts, { config: path.join(dir, 'gates.yaml') })).rejects.toThrow(message);
    };
    await forged(
      (q) => (q.run[0] = '../../../etc/passwd'),
      /part-0\.partial: suite retrieval: section scan: query "FM001" was read from "\.\.\/\.\.\/\.\.\/etc\/passwd", not one of the shard's run files; expected a partial of these qrels/,
    );
    await forged((q) => (q.relevant += 1), /query "FM001" has \d+ relevant docs, the qrels \d+/);
    await forged(
      (q) => (q.firstRelevantRank = q.retrieved + 1),
      /query "FM001" has its first relevant doc at rank \d+, with \d+ of \d+ retrieved relevant/,
    );
    await forged(
      (q) => (q.missed = ['no-such-doc']),
      /query "FM001" missed "no-such-doc", which the qrels do not judge/,
    );
  });

  it('refuses a query scored in two shards (one run ranks its lines together)', async () => {
    const { dir, lines } = example();
    const { parts } = await compare(dir, lines, 2);
    const fm001 = lines.filter((l) => l.startsWith('FM001 '));
    const extra = path.join(dir, 'runs', 'extra', 'part.run');
    mkdirSync(path.dirname(extra), { recursive: true });
    writeFileSync(extra, fm001.map((l) => `${l}\n`).join(''));
    const config = path.join(dir, 'gates.yaml');
    await writePartialRun(path.join(dir, 'extra.partial'), { config, inputs: [{ key: 'run', path: extra }] });
    await expect(mergeRun([...parts, path.join(dir, 'extra.partial')], { config })).rejects.toThrow(
      /extra\.partial: suite retrieval: query "FM001" was scored in .*part-\d\.partial too; expected each query's run lines in one shard/,
    );
  });
});
