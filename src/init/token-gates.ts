import type { UsageNoun } from '../cost/usage-metrics.js';
import type { SpanFacts } from '../grounded-answer/spans/span-values.js';
import { compareCodeUnits } from '../io/files.js';
import type { MetricValue } from '../metrics/spec.js';

// What init proposes for the tokens a suite's requests read: a paired max_increase on tokens_in (a prompt that
// grows unnoticed is what a pull request that keeps every answer right still costs), and `pricing:` as a
// commented example only: prices are the user's to keep current, and groundgate looks none up.

/** The rise init allows: 10% more input tokens per request than the baseline's, over the requests both have. */
export const TOKEN_INCREASE = 0.1;

/** A max_increase gate init writes, and the comment beside it. */
export interface Increase {
  metric: string;
  fraction: number;
  note: string;
}

/**
 * What the sampled records say of their usage: whether one counts input or output tokens, the models they
 * name, and whether they count cached tokens.
 */
export interface SampledUsage {
  counted: boolean;
  models: string[];
  cached: boolean;
}

/** The members of a trace that say its usage: a mapping of these alone is optional (init reads the rest). */
export const USAGE_MEMBERS: ReadonlySet<string> = new Set([
  '/tokens_in',
  '/tokens_out',
  '/tokens_cached',
  '/model',
]);

/** How many models the commented pricing example names at most. */
const MODELS = 5;

/**
 * The token counts, models and cached counts of `records` as a suite reads them (the contract's names), and of
 * the LLM spans of sampled span traces, each call its own model (a trace's record names one only when all its
 * calls do).
 */
export function sampledUsage(
  records: readonly unknown[],
  spans: readonly (readonly SpanFacts[])[] = [],
): SampledUsage {
  const calls = spans.flatMap((t) =>
    t
      .filter((s) => s.kind === 'LLM')
      .map((s) => ({
        tokens_in: s.tokensIn,
        tokens_out: s.tokensOut,
        tokens_cached: s.tokensCached,
        model: s.model,
      })),
  );
  const models = new Set<string>();
  let counted = false;
  let cached = false;
  for (const r of [...records, ...calls]) {
    const { model, ...n } = r as {
      model?: unknown;
      tokens_in?: unknown;
      tokens_out?: unknown;
      tokens_cached?: unknown;
    };
    if (typeof model === 'string' && model !== '') models.add(model);
    if (n.tokens_in !== undefined || n.tokens_out !== undefined) counted = true;
    if (n.tokens_cached !== undefined) cached = true;
  }
  // Code-unit order, as reports sort names: the same data writes the same file.
  return { counted, models: [...models].sort(compareCodeUnits), cached };
}

/**
 * The gates a trial run of init is given so that a suite that reads its usage only when asked (grounded-qa)
 * measures the metrics init may gate: without a baseline to compare with they are skipped, and never written
 * as they are (tokenGates, from the measured values, replaces them).
 */
export function askingGates(wanted: readonly string[]): Increase[] {
  return wanted.map((metric) => ({
    metric,
    fraction: TOKEN_INCREASE,
    note: 'asks the trial run to count tokens',
  }));
}

/**
 * The token gates for `metrics` (a suite's measured values, each a mean per `per`): tokens_in's, when it was
 * measured today.
 */
export function tokenGates(
  metrics: Readonly<Record<string, MetricValue>>,
  wanted: readonly string[],
  per: UsageNoun = 'request',
): Increase[] {
  return wanted.flatMap((metric) => {
    const v = metrics[metric]?.value;
    if (v === null || v === undefined || !Number.isFinite(v)) return [];
    const pct = `${Number((TOKEN_INCREASE * 100).toFixed(2))}%`;
    return [
      {
        metric,
        fraction: TOKEN_INCREASE,
        note: `measured ${Number(v.toFixed(2))} per ${per}; fails when the mean over the ${per}s both runs have is more than ${pct} above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)`,
      },
    ];
  });
}

/**
 * The commented `pricing:` example's entries: the models the records name (else a name to replace), each price a
 * placeholder that fails as a number until filled in, so an example uncommented as it is never prices at 0.
 */
export function pricingExample(usage: SampledUsage | undefined): {
  models: string[];
  price: string;
  more: number;
} {
  const models = usage?.models.length ? usage.models.slice(0, MODELS) : ['your-model-name'];
  return {
    models,
    price: `{ input: <USD>, output: <USD>${usage?.cached ? ', cached_input: <USD>' : ''} }`,
    more: Math.max(0, (usage?.models.length ?? 0) - MODELS),
  };
}
