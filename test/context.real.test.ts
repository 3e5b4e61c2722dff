import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNCONFINED } from '../src/io/confine.js';
import { run } from '../src/run.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

const CB = path.join(FIXTURES, 'contextbench');

async function report() {
  const dir = tmpTree({
    'gates.yaml': `version: 1
suites:
  miniswe:
    kind: context
    gold: ${path.join(CB, 'real-gold-partial.jsonl')}
    predictions: ${path.join(CB, 'trajectories', 'minisweagent')}/*.traj.json
    agent: miniswe
    gates:
      file.coverage: '== 1'
  sweagent:
    kind: context
    gold: ${path.join(CB, 'real-gold-partial.jsonl')}
    predictions: ${path.join(CB, 'trajectories', 'sweagent')}/*.checkpoints.jsonl
    agent: sweagent
`,
  });
  return (await run({ scope: UNCONFINED, config: path.join(dir, 'gates.yaml') })).report;
}

/*
 * The real trajectories against the real gold rows, without checkouts (file and line levels; paths as
 * the extractors normalized them).
 *
 * django__django-11163. Gold init: django/forms/models.py 69-91 and 83-89 → 23 lines. The agent looked at
 *   fields_for_model (100-180) and a file that does not exist (django/utils/model_utils.py 30-60), and
 *   gave 150-152 as its context: file 1/1, line 0/23 with 3 predicted (F1 0).
 *   Steps (6): every union holds models.py (file coverage 1, AUC 1), none reaches 69-91 (AUC 0).
 *   Redundancy: file 1 − 2/6 (without a checkout model_utils.py stays: a checkout would drop it, 1 − 1/5);
 *   line 1 − (81 + 31)/(21+31+31+31+31+3) = 36/148.
 *   Patch: deletes line 151 (hunk @@ -148,7), outside 69-91: EditLoc ∩ 0, deleted 1, gold 23.
 * django__django-12419. Gold: django/conf/global_settings.py 630-642 and 637-642 → 13 lines. Steps cover
 *   1-600 in nine views (11+200+201+201+11+21+21+11+11 = 688 lines looked at, 600 distinct); final
 *   430-440 (11 lines): file 1/1, line 0/13. AUC file 1, line 0. Redundancy file 1 − 1/9, line 88/688.
 *   Patch: the first hunk only adds; the second deletes line 640 (SECURE_REFERRER_POLICY = None),
 *   inside 630-642: EditLoc ∩ 1, deleted 1, gold 13.
 * Aggregates: file 2/2 and 2/2; line coverage 0/36, precision 0/14, F1 0; EditLoc recall 1/36,
 *   precision 1/2; AUC file 1, line 0; redundancy file (2/3 + 8/9)/2, line (36/148 + 88/688)/2.
 *
 * pydata__xarray-4075 (SWE-agent). Gold init: xarray/core/weighted.py 112-210 (142-148 inside) and
 *   xarray/tests/test_weighted.py 32-59, 161-217 → 99 + 28 + 57 = 184 lines. Steps: computation.py
 *   1070-1219, 1060-1220, weighted.py 140-151 (final). File ∩ 1 of gold 2, predicted 1: 0.5, 1, F1 2/3;
 *   line ∩ 12: 12/184, 12/12, F1 24/196. AUC file (0+0+1/2)/3, line (0+0+12/184)/3. Redundancy file
 *   1 − 2/3, line 1 − (161+12)/(150+161+12). The tests file is never opened. No patch: no EditLoc.
 * pydata__xarray-4966 has no gold row: missing_gold.
 */
describe('real trajectories against real-gold-partial.jsonl', () => {
  it('scores the mini-SWE-agent trajectories', async () => {
    const r = (await report()).suites.miniswe!;
    const m = r.metrics;
    expect(m['file.coverage']).toMatchObject({ value: 1, numerator: 2, denominator: 2 });
    expect(m['file.precision']).toMatchObject({ value: 1, numerator: 2, denominator: 2 });
    expect([m['line.coverage'], m['line.precision'], m['line.f1']]).toEqual([
      { value: 0 },
      { value: 0 },
      { value: 0 },
    ]);
    expect(m['editloc.recall']).toEqual({ value: 1 / 36 });
    expect(m['editloc.precision']).toEqual({ value: 1 / 2 });
    expect(m['auc.file']).toEqual({ value: 1 });
    expect(m['auc.line']).toEqual({ value: 0 });
    expect(m['redundancy.file']!.value).toBeCloseTo((2 / 3 + 8 / 9) / 2, 12);
    expect(m['redundancy.line']!.value).toBeCloseTo((36 / 148 + 88 / 688) / 2, 12);
    expect(m['span.coverage']!.value).toBeNull();
    expect(r.counts).toMatchObject({
      predictions: 2,
      scored: 2,
      steps: 15,
      with_patch: 2,
      gold_without_prediction: 1,
    });
    expect(r.warnings).toContain('1 gold row without a prediction, not scored: pydata__xarray-4075');
    expect(r.offenders.map((o) => [o.id, o.labels, o.line_f1, o.editloc_recall])).toEqual([
      ['django__django-11163', ['no_line_overlap'], 0, 0],
      ['django__django-12419', ['no_line_overlap'], 0, 0.0769],
    ]);
  });

  it('scores the SWE-agent trajectories and names the gold file never opened', async () => {
    const r = (await report()).suites.sweagent!;
    const m = r.metrics;
    expect(m['file.coverage']).toMatchObject({ value: 0.5, numerator: 1, denominator: 2 });
    expect(m['file.f1']!.value).toBeCloseTo(2 / 3, 12);
    expect(m['line.coverage']).toEqual({ value: 12 / 184 });
    expect(m['line.precision']).toEqual({ value: 1 });
    expect(m['line.f1']!.value).toBeCloseTo(24 / 196, 12);
    expect(m['auc.file']!.value).toBeCloseTo(1 / 6, 12);
    expect(m['auc.line']!.value).toBeCloseTo(12 / 184 / 3, 12);
    expect(m['redundancy.file']!.value).toBeCloseTo(1 / 3, 12);
    expect(m['redundancy.line']!.value).toBeCloseTo(150 / 323, 12);
    expect(m['editloc.recall']).toEqual({ value: null, reason: 'no scored instance has a model patch' });
    expect(r.counts).toMatchObject({ predictions: 2, scored: 1, missing_gold: 1, steps: 3 });
    expect(r.offenders[0]).toMatchObject({
      id: 'pydata__xarray-4075',
      labels: ['partial_line_overlap', 'gold_file_never_opened'],
      never_opened: ['xarray/tests/test_weighted.py'],
    });
    expect(r.offenders[1]).toMatchObject({ id: 'pydata__xarray-4966', labels: ['missing_gold'] });
  });
});
