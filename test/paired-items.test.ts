import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNCONFINED } from '../src/io/confine.js';
import { serializeReport, type Report } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { REPO, tmpDir } from './helpers/tmp.js';

/**
 * The repository's own example run once; its report, with a few items' values raised by hand, is the
 * baseline of a second run of the same inputs: every difference is one the test planted.
 */
async function againstPlanted(
  suite: string,
  metric: string,
  raise: (ids: readonly string[]) => Record<string, number>,
): Promise<{ base: Report; now: Report; raised: Record<string, number> }> {
  const config = path.join(REPO, 'gates.yaml');
  const base = (await run({ scope: UNCONFINED, config, suites: [suite] })).report;
  const record = JSON.parse(serializeReport(base)) as {
    suites: Record<string, { items: Record<string, { values?: Record<string, number> }> }>;
  };
  const items = record.suites[suite]!.items;
  const withValue = Object.keys(items).filter((id) => items[id]!.values?.[metric] !== undefined);
  const raised = raise(withValue);
  for (const [id, by] of Object.entries(raised)) items[id]!.values![metric]! += by;
  const file = path.join(tmpDir(), 'base.json');
  writeFileSync(file, JSON.stringify(record));
  const now = (await run({ scope: UNCONFINED, config, suites: [suite], baseline: file })).report;
  return { base, now, raised };
}

describe('per-item values and paired Δ for context and agent-retrieval (point 3)', () => {
  it('agent-retrieval: each task carries its gated per-task values; delta.* has none', async () => {
    const { base, now, raised } = await againstPlanted('agent-retrieval', 'file_recall', (ids) => ({
      [ids[0]!]: 0.25,
      [ids[1]!]: 0.5,
    }));
    const items = base.suites['agent-retrieval']!.items!;
    const anyTask = items.keys()[0]!;
    expect(Object.keys(items.get(anyTask)!.values ?? {}).sort()).toEqual(
      expect.arrayContaining(['file_recall']),
    );
    for (const id of items.keys()) expect(items.value(id, 'delta.file_recall')).toBeUndefined();
    const paired = now.suites['agent-retrieval']!.metrics.file_recall!.paired!;
    const n = [...items.keys()].filter((id) => items.value(id, 'file_recall') !== undefined).length;
    expect(paired.items).toBe(n);
    // Now − baseline: the two raised tasks lost 0.25 and 0.5, the rest 0.
    expect(paired.mean_delta).toBeCloseTo(-0.75 / n, 12);
    // Two nonzero differences of one sign: 2 of the 4 sign flips reach |−0.75|.
    expect(paired).toMatchObject({ randomization: 'exact', randomization_p: 0.5 });
    expect(Object.keys(raised)).toHaveLength(2);
  });

  it('context: each instance carries its F1, AUC and redundancy; pooled coverage has none', async () => {
    const { base, now } = await againstPlanted('context', 'line.f1', (ids) => ({ [ids[0]!]: 0.125 }));
    const items = base.suites.context!.items!;
    const scored = [...items.keys()].filter((id) => items.value(id, 'line.f1') !== undefined);
    expect(scored.length).toBeGreaterThan(1);
    for (const id of scored) {
      expect(items.value(id, 'auc.file')).toBeTypeOf('number');
      expect(items.value(id, 'line.coverage')).toBeUndefined();
    }
    const paired = now.suites.context!.metrics['line.f1']!.paired!;
    expect(paired.items).toBe(scored.length);
    expect(paired.mean_delta).toBeCloseTo(-0.125 / scored.length, 12);
    // One nonzero difference: both of its sign flips reach it.
    expect(paired.randomization_p).toBe(1);
  });
});
