import path from 'node:path';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { seeded } from './helpers/random.js';
import { REPO, tmpTree } from './helpers/tmp.js';

// agent-retrieval over shards of its event documents and result files, dealt apart (a document's trial
// result may be in another shard): merged, the example's report (compare: and delta.* gates included) is
// one run's, byte for byte.
const rnd = seeded(9191);
const config = path.join(REPO, 'gates.yaml');
const RUNS = 'examples/agent-retrieval/runs/staging';

describe('agent-retrieval: check --partial and merge give the report of one run', () => {
  it("the example's documents and result files, dealt at random", async () => {
    const events = globSync(`${RUNS}/*/retrieval_events/**/*.retrieval_events.json`, { cwd: REPO }).sort();
    const outcomes = globSync(`${RUNS}/*/*/*/*/result.json`, { cwd: REPO }).sort();
    expect(events.length).toBeGreaterThan(10);
    const single = serializeReport((await run({ config, suites: ['agent-retrieval'] })).report);
    const dir = tmpTree({});
    for (const shards of [2, 3, 5]) {
      const deal = (files: string[]) => {
        const own: string[][] = Array.from({ length: shards }, () => []);
        files.forEach((f, i) => own[i < shards ? i : Math.floor(rnd() * shards)]!.push(f));
        return own;
      };
      const [byEvents, byOutcomes] = [deal(events), deal(outcomes)];
      const parts: string[] = [];
      for (let k = 0; k < shards; k++) {
        const glob = (files: string[]) =>
          path.join(REPO, files.length === 1 ? files[0]! : `{${files.join(',')}}`);
        const part = path.join(dir, `part-${shards}-${k}.partial`);
        await writePartialRun(part, {
          config,
          suites: ['agent-retrieval'],
          inputs: [
            { key: 'events', path: glob(byEvents[k]!) },
            { key: 'outcomes', path: glob(byOutcomes[k]!) },
          ],
        });
        parts.push(part);
      }
      const merged = serializeReport((await mergeRun(parts, { config })).report);
      expect(merged).toBe(single);
    }
    const report = JSON.parse(single).suites['agent-retrieval'];
    expect(report.metrics['delta.file_recall'].value).not.toBeNull();
  });

  it('refuses to split documents normalized from a runs: folder', async () => {
    const dir = tmpTree({
      'gates.yaml': 'version: 1\nsuites:\n  agents:\n    kind: agent-retrieval\n    runs: runs\n',
      'runs/x.txt': '',
    });
    await expect(
      writePartialRun(path.join(dir, 'p.partial'), { config: path.join(dir, 'gates.yaml') }),
    ).rejects.toThrow(
      /suite "agents": runs: \(a run folder normalized in memory\) cannot be split into partials; expected events:/,
    );
  });
});
