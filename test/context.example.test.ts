import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
import { extractTrajectories, trajectoryFiles } from '../src/suites/context/extract/index.js';
import { REPO } from './helpers/tmp.js';

const EXAMPLE = path.join(REPO, 'examples', 'context');

/*
 * examples/context, by hand (lines; bytes and symbols are covered on mini-eval):
 *   kv-101 gold init kv/cache.py 28-30 (3 lines). Final 24-30 (7): coverage 1, precision 3/7, F1 0.6. The
 *     patch deletes line 29: EditLoc 1 of 1 deleted, of 3 gold. Steps cache.py 1-34, store.py 1-22,
 *     cache.py 24-31: file coverage 1, 1, 1; line redundancy 1 − (34 + 22)/(34 + 22 + 8) = 1/8.
 *   kv-102 gold init src/client.ts 17-28 (12). Final 1-4 and 17-28 (16): 1, 12/16, F1 6/7. The patch
 *     deletes line 19: 1 of 1, of 12. Steps index.ts 1-1, client.ts 1-33, 17-28: file coverage 0, 1, 1;
 *     line redundancy 1 − 34/46.
 *   Aggregates: line 15/15 and 15/23, F1 (0.6 + 6/7)/2; EditLoc 2/15 and 2/2; AUC file (1 + 2/3)/2;
 *   redundancy line (1/8 + 12/46)/2.
 */
describe('examples/context', () => {
  it('predictions.jsonl is what groundgate extract writes from the trajectories', async () => {
    const dir = path.join(EXAMPLE, 'trajectories');
    const extracted = await extractTrajectories(trajectoryFiles([dir], 'miniswe'), 'miniswe');
    const lines = extracted.map(({ instance_id, traj_data, model_patch }) =>
      JSON.stringify({ instance_id, traj_data, model_patch }),
    );
    expect(readFileSync(path.join(EXAMPLE, 'predictions.jsonl'), 'utf8')).toBe(lines.join('\n') + '\n');
  });

  it('passes its gates in gates.yaml with the numbers derived above', async () => {
    const { report } = await run({ config: path.join(REPO, 'gates.yaml'), suites: ['context'] });
    const s = report.suites.context!;
    expect(report.verdict).toBe('pass');
    expect(s.warnings).toEqual([]);
    expect(s.metrics['line.coverage']).toEqual({ value: 1 });
    expect(s.metrics['line.precision']).toEqual({ value: 15 / 23 });
    expect(s.metrics['line.f1']!.value).toBeCloseTo((0.6 + 6 / 7) / 2, 12);
    expect(s.metrics['editloc.recall']).toEqual({ value: 2 / 15 });
    expect(s.metrics['editloc.precision']).toEqual({ value: 1 });
    expect(s.metrics['auc.file']!.value).toBeCloseTo(5 / 6, 12);
    expect(s.metrics['redundancy.line']!.value).toBeCloseTo((1 / 8 + 12 / 46) / 2, 12);
    expect(s.counts).toMatchObject({ gold_rows: 2, scored: 2, steps: 6, with_patch: 2 });
  });
});
