import type { MarkerSettings } from './citation-markers.js';
import type { RefusalSettings } from './refusal.js';
import type { ClaimsSettings } from '../claims/rules/index.js';
import type { ScuRule } from './scu.js';
import type { TraceInput } from './trace-input.js';

/** How a suite's runs are judged and scored: read by every stage from reading traces to the metrics. */
export interface ScoreOptions {
  refusalToken: string;
  /** `refusal:`'s phrases and patterns, beside the token. */
  refusal?: RefusalSettings;
  /** `citation_markers:`: citations are read from the claim, not listed by the trace. */
  markers?: MarkerSettings;
  /** The contradiction rules when `scu` is on; null when it is off (then K always holds). */
  scuRules: readonly ScuRule[] | null;
  /** Cutoffs at which `recall@k` and `chr@k_upper_bound` are computed. */
  cutoffs: readonly number[];
  /** How the traces are read; canonical JSON Lines when absent. */
  traces?: TraceInput;
  /** `claims:` when set: how claims are matched beyond the substring rule (absent: that rule alone). */
  claims?: ClaimsSettings;
}
