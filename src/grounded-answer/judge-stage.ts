import type { GoldItem } from './contract.js';
import { idMeter, type IdMeter } from './id-meter.js';
import { judgeInto, judgeItem, judgeOptions, type JudgeItem, type JudgeOptions } from './judge.js';
import type { RunTable } from './runs.js';
import type { ScoreOptions } from './score-options.js';
import type { JudgedTrace } from './trace-scan.js';

// The judge stage, the same for every source: each gold item's winning run, as its source reads it back,
// judged into the item's row of the table. A source hands `run` each winner as it reads it; one whose helpers
// judge their share (OpenInference) gives them `options` and the gold set, and copies their verdicts back.

export interface Judge {
  /** How runs are judged: plain data, it crosses to helpers. */
  readonly options: JudgeOptions;
  /** Judges gold item `row`'s winning run into the table. */
  run(row: number, t: JudgedTrace): void;
  /** How many gold ids the winners' ids meet: run() shows it each run; a source that copies a helper's verdicts shows it the runs while it is not `enough`. */
  readonly meter: IdMeter;
}

export function judgeStage(gold: readonly GoldItem[], table: RunTable, options: ScoreOptions): Judge {
  const judge = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs, options);
  const item = (row: number): JudgeItem => judgeItem(gold[row]!, options.scuRules);
  const meter = idMeter(gold);
  return {
    options: judge,
    meter,
    run(row, t) {
      judgeInto(item(row), t, judge, table, row);
      meter.see(row, t);
    },
  };
}
