import type { GoldDigest } from '../gold/digest.js';
import type { GoldItem } from './contract.js';
import type { RunsLoad } from './judged-runs.js';

/** Judging under way: worker threads may already be reading traces while the main thread loads gold. */
export interface Judging {
  /** Whether a worker will digest the gold set (see goldDigest): then the main thread need not. */
  digestsGold: Promise<boolean>;
  /** Joins in with the gold set the main thread loaded and checked, and resolves once every run is judged. */
  finish(gold: readonly GoldItem[]): Promise<RunsLoad>;
  /**
   * The gold set's digest from the worker that made it, for the items the main thread loaded (the same
   * lines in the same order); made here if the worker could not.
   */
  goldDigest(gold: readonly GoldItem[]): Promise<GoldDigest>;
  /** Stops the workers: the gold set did not load. */
  cancel(): Promise<void>;
}

/** Judging traces read as records (see judgeRecords), under way before gold is loaded where it can be. */
export interface RecordJudging extends Pick<Judging, 'digestsGold' | 'goldDigest'> {
  finish(gold: readonly GoldItem[], questions?: ReadonlyMap<string, string>): Promise<RunsLoad>;
  /** Stops what was started: the gold set did not load. */
  cancel(): Promise<void>;
}
