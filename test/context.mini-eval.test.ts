import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MetricValue } from '../src/metrics/spec.js';
import { UNCONFINED } from '../src/io/confine.js';
import { run } from '../src/run.js';
import { evaluate, type InstanceOutcome } from '../src/suites/context/evaluate.js';
import { loadGold } from '../src/suites/context/gold.js';
import { loadPredictions } from '../src/suites/context/predictions.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

/*
 * mini-eval (test/fixtures/contextbench/mini-eval), derived by hand from the definitions.
 *
 * Bytes of the repository (line: [first byte, newline byte]); a line's bytes include its newline:
 *   a.py (475 B, 26 lines)  4 [12,25]  5 [26,55]  7 [81,105]  16 [317,361]  17 [362,362]  19 [364,387]
 *                           22 [426,440]  26 [458,474]
 *   b.py (291 B, 19 lines)  1 [0,30]  4 [33,48]  6 [81,108]  8 [131,147]  9 [148,160]  12 [163,189]
 *                           13 [190,211]
 *   c.py (91 B, 5 lines)    2 [17,30]  3 [31,54]  5 [74,90]
 *   d.py (57 B, 4 lines)    1 [0,20]  3 [22,33]  4 [34,56]   (é, ü, ï are 2 bytes, 日本語 9: 57 bytes, 48 chars)
 * Definitions (tree-sitter, byte offsets, end exclusive):
 *   a.py Config 12-361, __init__ 30-105, load 111-277, get 283-361, parse_config 364-440, helper 443-474
 *   b.py main 33-160, run_async 163-211, Runner 214-290, run 250-290 (under @staticmethod)
 *   c.py unrelated 0-90;  d.py wide 22-56
 * A span selects a definition when !(def.end < span.start || def.start > span.end).
 *
 * demo-1. Gold (gold_ctx, all init): a 5-7, /testbed/ a 19-22, /workspace/demo__demo__0.1/ b 4-9, b 6-8.
 *   files {a, b} = 2; lines a 3+4, b [4,9] 6 = 13; bytes a [26,105] 80 + [364,440] 77, b [33,160] 128 = 285;
 *   symbols Config and __init__ (touched by [26,105]), parse_config ([364,440]), main ([33,160]) = 4.
 * Final: files a, b, c; spans a 17-22, b 4-9, c 40-60.
 *   file   ∩ 2, gold 2, pred 3: coverage 1, precision 2/3, F1 0.8
 *   line   pred a 6 + b 6 + c 21 (not clamped) = 33; ∩ a 19-22 4 + b 6 = 10: 10/13, 10/33, F1 20/46
 *   span   pred a [362,440] 79 + b 128 (c 40-60 starts past the end: dropped) = 207; ∩ 77 + 128 = 205:
 *          205/285, 205/207, F1 = 2·205/(285+207) = 5/6
 *   symbol pred parse_config, main (Config ends at 361 < 362) = 2, both gold: 2/4, 2/2, F1 2/3
 * Steps (5): 1 /testbed/pkg/a.py 1-10 → pkg/a.py [0,161]; 2 b 1-12 [0,189] and c 3-50 [31,90] (end
 *   clamped to the file); 3 a 5-26 [26,474]; 4 pkg/nonexistent.py (no such file: an empty step); 5 b 4-9.
 *   coverage of the union after each step:
 *     file   1/2, 1, 1, 1, 1                 AUC 4.5/5 = 0.9
 *     line   3/13, 9/13, 1, 1, 1             AUC 51/65
 *     span   80/285, 208/285, 1, 1, 1        AUC 1143/1425
 *     symbol 2/4 (Config, __init__, load), 3/4 (+ main, run_async, unrelated), 1, 1, 1   AUC 0.85
 *   redundancy = 1 − |union| / Σ|step|:
 *     file   1 − 3/5 = 0.4;  line 1 − (26+12+48)/(10+12+48+22+6) = 12/98
 *     span   1 − (475+190+60)/(162+190+60+449+128) = 264/989;  symbol 1 − 9/13 = 4/13
 * EditLoc: the model patch deletes a:20 (old numbering) and b:6, b:7, all inside gold init regions:
 *   ∩ 3, deleted 3, gold init lines 13: recall 3/13, precision 1.
 *
 * demo-2. Gold: init b 12-13; add a 4-16, d 3-4. files {a, b, d}; lines (init only) b 2;
 *   bytes b [163,211] 49 + a [12,361] 350 + d [22,56] 35 = 434;
 *   symbols run_async, Config, __init__, load, get, wide = 6 (main ends at 160 < 163).
 * Final (also the only step): files a, b, d; spans b 12-13, d 1-1; symbols named a: Config.get (→ get),
 *   parse_config; b: Runner.run (→ run), missing_fn (no such definition).
 *   file 3/3 F1 1;  line pred 3, ∩ 2: 2/2, 2/3, F1 0.8;  span pred 49 + d [0,20] 21 = 70, ∩ 49: 49/434,
 *   49/70, F1 98/504;  symbol pred get, parse_config, run = 3, ∩ get: 1/6, 1/3, F1 2/9.
 *   AUC = final coverage (one step); redundancy 0. No model patch: no EditLoc (the gold patch, which
 *   deletes b:12, counts only with patch_fallback: ∩ 1, deleted 1, gold 2).
 *
 * demo-3: not/in/repo.py is no file of the repository → nothing left: no_context_extracted.
 * demo-4: no gold row → missing_gold.
 * demo-5: empty gold. Final c.py 1-2 (lines 2, bytes [0,30] 31, symbol unrelated); the one step opens c.py
 *   with no span. Coverage 1 (nothing to find), precision 0, F1 0 at every level. AUC file, symbol, span 1;
 *   line 0 (the evaluator's step convention when the gold has no init lines). Redundancy 0.
 *
 * Aggregates over demo-1, 2, 5 (micro: sums; macro: means of three):
 *   file   ∩ 5, gold 5, pred 7         F1 (0.8 + 1 + 0)/3 = 0.6
 *   symbol ∩ 3, gold 10, pred 6        F1 (2/3 + 2/9 + 0)/3 = 8/27
 *   span   ∩ 254, gold 719, pred 308   F1 (5/6 + 7/36 + 0)/3 = 37/108
 *   line   ∩ 12, gold 15, pred 38      F1 (10/23 + 4/5 + 0)/3 = 142/345
 *   AUC    file (0.9+1+1)/3, symbol (0.85+1/6+1)/3, span (1143/1425+49/434+1)/3, line (51/65+1+0)/3
 *   redundancy file 0.4/3, symbol (4/13)/3, span (264/989)/3, line (12/98)/3
 *   EditLoc 3/13 and 3/3; with patch_fallback (demo-2 scores the gold patch) 4/15 and 4/4.
 */

const MINI = path.join(FIXTURES, 'contextbench', 'mini-eval');

async function outcomes(patchFallback = false): Promise<InstanceOutcome[]> {
  const gold = await loadGold([path.join(MINI, 'gold.jsonl')]);
  const predictions = await loadPredictions([path.join(MINI, 'pred.jsonl')], 'extracted');
  const repos = { dir: path.join(MINI, 'repo'), layout: 'shared' as const };
  return (await evaluate(gold, predictions, { repos, patchFallback })).outcomes;
}

async function suite(extra = '') {
  const dir = tmpTree({
    'gates.yaml': `version: 1
suites:
  ctx:
    kind: context
    gold: ${path.join(MINI, 'gold.jsonl')}
    predictions: ${path.join(MINI, 'pred.jsonl')}
${extra}    gates:
      line.f1: '>= 0.4'
`,
  });
  return (await run({ scope: UNCONFINED, config: path.join(dir, 'gates.yaml') })).report.suites.ctx!;
}

const close = (value: MetricValue | undefined, expected: number) => {
  expect(value?.value).toBeCloseTo(expected, 12);
};

describe('context suite on mini-eval: per instance', () => {
  it('demo-1: prefixed paths, overlapping gold, a span past the end, an empty step, EditLoc', async () => {
    const s = (await outcomes()).find((o) => o.id === 'demo__demo-1')!.score!;
    expect(s.final.file).toEqual({
      intersection: 2,
      gold: 2,
      predicted: 3,
      coverage: 1,
      precision: 2 / 3,
      f1: expect.closeTo(0.8, 12),
    });
    expect(s.final.line).toMatchObject({ intersection: 10, gold: 13, predicted: 33 });
    expect(s.final.line!.f1).toBeCloseTo(20 / 46, 12);
    expect(s.final.span).toMatchObject({ intersection: 205, gold: 285, predicted: 207 });
    expect(s.final.span!.f1).toBeCloseTo(5 / 6, 12);
    expect(s.final.symbol).toMatchObject({
      intersection: 2,
      gold: 4,
      predicted: 2,
      coverage: 0.5,
      precision: 1,
    });
    expect(s.curve.map((p) => p.file)).toEqual([0.5, 1, 1, 1, 1]);
    expect(s.curve.map((p) => p.line)).toEqual([3 / 13, 9 / 13, 1, 1, 1]);
    expect(s.curve.map((p) => p.span)).toEqual([80 / 285, 208 / 285, 1, 1, 1]);
    expect(s.curve.map((p) => p.symbol)).toEqual([0.5, 0.75, 1, 1, 1]);
    expect(s.auc.file).toBeCloseTo(0.9, 12);
    expect(s.auc.line).toBeCloseTo(51 / 65, 12);
    expect(s.auc.span).toBeCloseTo(1143 / 1425, 12);
    expect(s.auc.symbol).toBeCloseTo(0.85, 12);
    expect(s.redundancy.file).toBeCloseTo(0.4, 12);
    expect(s.redundancy.line).toBeCloseTo(12 / 98, 12);
    expect(s.redundancy.span).toBeCloseTo(264 / 989, 12);
    expect(s.redundancy.symbol).toBeCloseTo(4 / 13, 12);
    expect(s.editloc).toEqual({ intersection: 3, gold: 13, predicted: 3, recall: 3 / 13, precision: 1 });
    expect(s.neverOpened).toEqual([]);
  });

  it('demo-2: init + add gold (lines from init only), named symbols, multi-byte file, no patch', async () => {
    const o = (await outcomes()).find((x) => x.id === 'demo__demo-2')!;
    const s = o.score!;
    expect(o.steps).toBe(1);
    expect(s.final.file).toMatchObject({ intersection: 3, gold: 3, predicted: 3, f1: 1 });
    expect(s.final.line).toMatchObject({ intersection: 2, gold: 2, predicted: 3, coverage: 1 });
    expect(s.final.line!.f1).toBeCloseTo(0.8, 12);
    expect(s.final.span).toMatchObject({ intersection: 49, gold: 434, predicted: 70, precision: 0.7 });
    expect(s.final.span!.f1).toBeCloseTo(98 / 504, 12);
    expect(s.final.symbol).toMatchObject({ intersection: 1, gold: 6, predicted: 3 });
    expect(s.final.symbol!.f1).toBeCloseTo(2 / 9, 12);
    expect(s.auc).toEqual({ file: 1, symbol: 1 / 6, span: 49 / 434, line: 1 });
    expect(s.redundancy).toEqual({ file: 0, symbol: 0, span: 0, line: 0 });
    expect(s.editloc).toBeUndefined();
    const fallback = (await outcomes(true)).find((x) => x.id === 'demo__demo-2')!.score!;
    expect(fallback.editloc).toEqual({ intersection: 1, gold: 2, predicted: 1, recall: 0.5, precision: 1 });
  });

  it('demo-3, demo-4: no repository file left, no gold row', async () => {
    const all = await outcomes();
    expect(all.map((o) => [o.id, o.error])).toEqual([
      ['demo__demo-1', undefined],
      ['demo__demo-2', undefined],
      ['demo__demo-3', 'no_context_extracted'],
      ['demo__demo-4', 'missing_gold'],
      ['demo__demo-5', undefined],
    ]);
  });

  it('demo-5: empty gold keeps the evaluator conventions', async () => {
    const s = (await outcomes()).find((o) => o.id === 'demo__demo-5')!.score!;
    for (const level of ['file', 'symbol', 'span', 'line'] as const) {
      expect(s.final[level]).toMatchObject({ intersection: 0, gold: 0, coverage: 1, precision: 0, f1: 0 });
    }
    expect([s.final.line!.predicted, s.final.span!.predicted, s.final.symbol!.predicted]).toEqual([2, 31, 1]);
    expect(s.auc).toEqual({ file: 1, symbol: 1, span: 1, line: 0 });
    expect(s.redundancy).toEqual({ file: 0, symbol: 0, span: 0, line: 0 });
  });
});

describe('context suite on mini-eval: aggregates through gates.yaml', () => {
  it('micro for the final context and EditLoc, macro for F1, AUC and redundancy', async () => {
    const r = await suite("    repos: '" + path.join(MINI, 'repo') + "'\n    repos_layout: shared\n");
    const m = r.metrics;
    expect(m['file.coverage']).toMatchObject({ value: 1, numerator: 5, denominator: 5 });
    expect(m['file.precision']).toMatchObject({ value: 5 / 7, numerator: 5, denominator: 7 });
    close(m['file.f1'], 0.6);
    expect(m['symbol.coverage']).toMatchObject({ value: 0.3, numerator: 3, denominator: 10 });
    expect(m['symbol.precision']).toMatchObject({ value: 0.5, numerator: 3, denominator: 6 });
    close(m['symbol.f1'], 8 / 27);
    expect(m['span.coverage']).toEqual({ value: 254 / 719 });
    expect(m['span.precision']).toEqual({ value: 254 / 308 });
    close(m['span.f1'], 37 / 108);
    expect(m['line.coverage']).toEqual({ value: 12 / 15 });
    expect(m['line.precision']).toEqual({ value: 12 / 38 });
    close(m['line.f1'], 142 / 345);
    close(m['auc.file'], 2.9 / 3);
    close(m['auc.symbol'], (0.85 + 1 / 6 + 1) / 3);
    close(m['auc.span'], (1143 / 1425 + 49 / 434 + 1) / 3);
    close(m['auc.line'], (51 / 65 + 1) / 3);
    close(m['redundancy.file'], 0.4 / 3);
    close(m['redundancy.symbol'], 4 / 13 / 3);
    close(m['redundancy.span'], 264 / 989 / 3);
    close(m['redundancy.line'], 12 / 98 / 3);
    expect(m['editloc.recall']).toEqual({ value: 3 / 13 });
    expect(m['editloc.precision']).toEqual({ value: 1 });
    expect(r.counts).toEqual({
      gold_rows: 4,
      predictions: 5,
      scored: 3,
      missing_gold: 1,
      checkout_failed: 0,
      no_context_extracted: 1,
      gold_without_prediction: 0,
      steps: 7,
      with_patch: 1,
    });
    expect(r.warnings).toEqual([
      '1 instance not scored (missing_gold): demo__demo-4',
      '1 instance not scored (no_context_extracted): demo__demo-3',
    ]);
  });

  it('matches the evaluator EditLoc with patch_fallback: the gold patch of demo-2 counts', async () => {
    const r = await suite(
      "    repos: '" + path.join(MINI, 'repo') + "'\n    repos_layout: shared\n    patch_fallback: true\n",
    );
    expect(r.metrics['editloc.recall']).toEqual({ value: 4 / 15 });
    expect(r.metrics['editloc.precision']).toEqual({ value: 1 });
    expect(r.counts.with_patch).toBe(2);
  });

  it('lists offenders by line F1, lowest first, with the gold files never opened; then the unscored', async () => {
    const r = await suite("    repos: '" + path.join(MINI, 'repo') + "'\n    repos_layout: shared\n");
    expect(r.offenders.map((o) => [o.id, o.labels, o.line_f1])).toEqual([
      ['demo__demo-5', ['no_line_overlap'], 0],
      ['demo__demo-1', ['partial_line_overlap'], 0.4348],
      ['demo__demo-2', ['partial_line_overlap'], 0.8],
      ['demo__demo-4', ['missing_gold'], undefined],
      ['demo__demo-3', ['no_context_extracted'], undefined],
    ]);
    expect(r.offenders[1]).toMatchObject({
      never_opened: [],
      gold_files: ['pkg/a.py', 'pkg/b.py'],
      final_files: ['pkg/a.py', 'pkg/b.py', 'pkg/c.py'],
      steps: 5,
      editloc_recall: 0.2308,
    });
  });

  /*
   * Without repos, paths are not checked against a checkout and only file and line are computable:
   * demo-3 keeps not/in/repo.py and is scored (file 0/1 with 1 predicted; line 0/5 with none predicted:
   * precision 1, F1 0; AUC 0; redundancy 0). demo-1's step 4 keeps pkg/nonexistent.py 1-5: file
   * redundancy 1 − 4/6, line 1 − (86+5)/(98+5). Aggregates over demo-1, 2, 3, 5:
   *   file ∩ 5, gold 6, pred 8; line ∩ 12, gold 20, pred 38, F1 (10/23 + 4/5 + 0 + 0)/4
   *   AUC file (0.9+1+0+1)/4, line (51/65+1+0+0)/4; redundancy file (1/3)/4, line (12/103)/4
   */
  it('scores file and line levels without repos, and says why the others are missing', async () => {
    const r = await suite();
    const m = r.metrics;
    expect(m['file.coverage']).toMatchObject({ value: 5 / 6, numerator: 5, denominator: 6 });
    expect(m['file.precision']).toMatchObject({ value: 5 / 8, numerator: 5, denominator: 8 });
    expect(m['line.coverage']).toEqual({ value: 12 / 20 });
    expect(m['line.precision']).toEqual({ value: 12 / 38 });
    close(m['line.f1'], (10 / 23 + 0.8) / 4);
    close(m['auc.file'], 2.9 / 4);
    close(m['auc.line'], (51 / 65 + 1) / 4);
    close(m['redundancy.file'], 1 / 3 / 4);
    close(m['redundancy.line'], 12 / 103 / 4);
    expect(m['editloc.recall']).toEqual({ value: 3 / 13 });
    for (const name of ['symbol.coverage', 'span.f1', 'auc.symbol', 'redundancy.span']) {
      expect(m[name]).toEqual({
        value: null,
        reason:
          'needs file contents: set "repos" to the repository checkouts (symbols and byte spans are read from files)',
      });
    }
    expect(r.counts).toMatchObject({ scored: 4, no_context_extracted: 0, missing_gold: 1 });
    expect(r.warnings).toContain(
      'no "repos": symbol and span metrics are not computable; file paths are not checked',
    );
  });
});
