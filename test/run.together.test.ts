import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
import { REPO, tmpTree } from './helpers/tmp.js';

/*
 * Suites with small inputs run together (run() in src/run.ts). What a run reports must not depend on it:
 * every suite's section, the gates in config order, and, when suites fail, the first one's error in config
 * order, not the error that came first in time.
 */
describe('suites run together', () => {
  it('report what each suite reports when run alone (the example, all eight suites)', async () => {
    const config = path.join(REPO, 'gates.yaml');
    const all = await run({ config });
    const names = Object.keys(all.report.suites);
    expect(names).toEqual([
      'qa',
      'retrieval',
      'latency',
      'latency-accuracy',
      'consistency',
      'stability',
      'context',
      'agent-retrieval',
    ]);
    const alone = [];
    for (const name of names) alone.push(await run({ config, suites: [name] }));
    for (const [i, name] of names.entries())
      expect(JSON.stringify(all.report.suites[name])).toBe(JSON.stringify(alone[i]!.report.suites[name]));
    expect(all.report.gates).toEqual(alone.flatMap((r) => r.report.gates));
    expect(all.warnings).toEqual(alone.flatMap((r) => r.warnings));
  });

  /** A qa suite whose trace set ends with a broken line (found only after reading 600 lines) and a
   * consistency suite whose first line is broken (found at once). */
  function failingPair(order: 'qa first' | 'consistency first'): string {
    const dir = tmpTree({});
    cpSync(path.join(REPO, 'gold'), path.join(dir, 'gold'), { recursive: true });
    const traces = readFileSync(path.join(REPO, 'runs/qa.trace.jsonl'), 'utf8');
    writeFileSync(path.join(dir, 'qa.trace.jsonl'), traces.repeat(12) + '{"qid": "FM001", broken\n');
    writeFileSync(path.join(dir, 'pairs.jsonl'), '{"qid": "A1", broken\n');
    const qa = `  qa:\n    kind: grounded-qa\n    gold: gold/qa.gold.jsonl\n    traces: qa.trace.jsonl\n    gates: { precision: '>= 0' }\n`;
    const consistency = `  consistency:\n    kind: consistency\n    pairs: pairs.jsonl\n    gates: { agreement: '>= 0' }\n`;
    const suites = order === 'qa first' ? qa + consistency : consistency + qa;
    writeFileSync(path.join(dir, 'gates.yaml'), `version: 1\nsuites:\n${suites}`);
    return path.join(dir, 'gates.yaml');
  }

  it('fail with the first failing suite in config order, whichever failed first', async () => {
    await expect(run({ config: failingPair('qa first') })).rejects.toThrow(/qa\.trace\.jsonl:601:/);
    await expect(run({ config: failingPair('consistency first') })).rejects.toThrow(/pairs\.jsonl:1:/);
  });

  it('fail with an input error in its suite’s turn: a later missing file does not hide an earlier error', async () => {
    const config = failingPair('qa first');
    const yaml = readFileSync(config, 'utf8').replace('pairs: pairs.jsonl', 'pairs: missing.jsonl');
    writeFileSync(config, yaml);
    await expect(run({ config })).rejects.toThrow(/qa\.trace\.jsonl:601:/);
    writeFileSync(config, yaml.replace('traces: qa.trace.jsonl', 'traces: runs/qa.trace.jsonl'));
    cpSync(path.join(REPO, 'runs'), path.join(path.dirname(config), 'runs'), { recursive: true });
    await expect(run({ config })).rejects.toThrow(/file not found: "missing\.jsonl"/);
  });
});
