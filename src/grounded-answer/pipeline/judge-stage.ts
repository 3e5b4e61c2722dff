import type { GoldItem } from '../contract.js';
import { goldListsOf, goldListsReader, type GoldLists } from '../gold-item.js';
import { idMeter, type IdMeter } from '../id-meter.js';
import { judgeInto, judgeItem, judgeOptions, type JudgeItem, type JudgeOptions } from './judge.js';
import { copyVerdicts, newVerdicts, type RunTable, type Verdicts } from './runs.js';
import type { ScoreOptions } from '../score-options.js';
import type { ScuRule } from '../scu.js';
import type { JudgedTrace } from '../trace-scan.js';

// The judge stage, the same for every source: each gold item's winning run, as its source reads it back,
// judged into the item's row of the table. A source hands `run` each winner as it reads it; a source whose
// helper threads read a share of the winners has them run this same stage, given as plain data (see
// judgeShare), and hands their verdicts to `adopt`: no source writes a verdict itself.

/** The judge stage as plain data, for another thread: how runs are judged, and the gold rows' lists. */
export interface JudgeData {
  gold: GoldLists;
  rules: readonly ScuRule[] | null;
  options: JudgeOptions;
}

export interface Judge {
  /** Judges gold item `row`'s winning run into the table. */
  run(row: number, t: JudgedTrace): void;
  /** The stage as plain data for a helper (see judgeShare); undefined when gold cannot cross to one. */
  data(): JudgeData | undefined;
  /**
   * Takes row `j` of verdicts a helper's share judged (see judgeShare) as gold item `row`'s, whose run `t`
   * reads (when the id meter still needs it).
   */
  adopt(verdicts: Verdicts, j: number, row: number, t: () => JudgedTrace): void;
  /** How many gold ids the winners' ids meet (see id-meter.ts). */
  readonly meter: IdMeter;
}

export function judgeStage(gold: readonly GoldItem[], table: RunTable, options: ScoreOptions): Judge {
  const judge = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs, options);
  const item = (row: number): JudgeItem => judgeItem(gold[row]!, options.scuRules);
  const meter = idMeter(gold);
  return {
    meter,
    run(row, t) {
      judgeInto(item(row), t, judge, table, row);
      meter.see(row, t);
    },
    data() {
      const lists = goldListsOf(gold);
      return lists && { gold: lists, rules: options.scuRules, options: judge };
    },
    adopt(verdicts, j, row, t) {
      copyVerdicts(verdicts, j, table, row, options.cutoffs.length);
      if (!meter.enough) meter.see(row, t());
    },
  };
}

/**
 * The judge stage on a helper, given as data: `run` judges a run against gold row `row` into the next row of
 * `verdicts`, which cross back to the stage's `adopt`.
 */
export function judgeShare(
  data: JudgeData,
  runs: number,
): { run(row: number, t: JudgedTrace): void; verdicts: Verdicts } {
  const verdicts = newVerdicts(runs, data.options.cutoffs.length);
  const goldRow = goldListsReader(data.gold);
  let next = 0;
  return {
    verdicts,
    run(row, t) {
      judgeInto(judgeItem(goldRow(row), data.rules), t, data.options, verdicts, next++);
    },
  };
}
