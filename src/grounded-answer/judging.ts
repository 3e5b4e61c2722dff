import type { GoldDigest } from '../gold/digest.js';
import type { GoldItem } from './contract.js';
import type { RunsLoad } from './pipeline/judged-runs.js';

/** Judging under way: helper threads may already be reading traces while the main thread loads gold. */
export interface Judging {
  /** Whether a helper will digest the gold set (see goldDigest): then the main thread need not. */
  digestsGold: Promise<boolean>;
  /**
   * Joins in with the gold set the main thread loaded and checked, and resolves once every run is judged;
   * `questions` maps a gold question to its qid, for traces that name their question (see loadGold).
   */
  finish(gold: readonly GoldItem[], questions?: ReadonlyMap<string, string>): Promise<RunsLoad>;
  /**
   * The gold set's digest from the helper that made it, for the items the main thread loaded (the same
   * lines in the same order); made here if the helper could not.
   */
  goldDigest(gold: readonly GoldItem[]): Promise<GoldDigest>;
  /** Stops the helpers: the gold set did not load. */
  cancel(): Promise<void>;
}
