import type { z } from 'zod';
import type { Containment } from '../../grounded-answer/containment.js';

/**
 * A gold item's facts as every rule may read them, made once per item: the substrings as written, and as the
 * substring rule matches them (lowercased; the short ones trimmed, matched as whole words).
 */
export interface GoldFacts extends Containment {
  facts: readonly string[];
}

/**
 * One claim rule (`claims: {match: <name>}`, docs/metrics.md "Claims"), in the manner of an eslint rule: a
 * module with its name, its options and how it matches. The table (index.ts) lists them; gates.yaml, the
 * verdict flags, report.json and triage read it.
 */
export interface ClaimRule<Options extends z.ZodObject = z.ZodObject, With = unknown> {
  /** Its name in gates.yaml (`match`) and in report.json (an offender's `match`, `claims_<name>` counts). */
  readonly name: string;
  /** Former names report.json gave it, still read in a baseline written before. */
  readonly formerly?: readonly string[];
  /** The `claims:` keys it reads beside `match`, with their defaults and checks. */
  readonly options: Options;
  /** What match reads of its options, made once a suite: plain data, as it crosses to helper threads. */
  create(options: z.output<Options>): With;
  /**
   * The name of the rule that found one of the item's facts in the claim (its own, or the one it tries
   * first), or undefined. `lower` is the claim lowercased, made once a run for every check that reads it.
   * It runs once for every answered run of an answerable item: it should allocate nothing it can avoid.
   */
  match(claim: string, lower: string, item: GoldFacts, options: With): string | undefined;
  /** What triage tells a team whose answered claims miss under this rule (the containment stage). */
  readonly advice: string;
  /**
   * The judge reads the misses it leaves (claims/semantic.ts): a run asks it after judging, `groundgate judge`
   * fills its judgments file, the action commits that file, and shards are refused (one file, one writer).
   */
  readonly asksJudge?: boolean;
}
