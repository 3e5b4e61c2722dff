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

/** What the sampled records say of their usage: the models they name, and whether they count cached tokens. */
export interface SampledUsage {
  models: string[];
  cached: boolean;
}

/** How many models the commented pricing example names at most. */
const MODELS = 5;

/** The models and cached counts of `records` as a latency suite reads them (the contract's names). */
export function sampledUsage(records: readonly unknown[]): SampledUsage {
  const models = new Set<string>();
  let cached = false;
  for (const r of records) {
    const { model, tokens_cached: c } = r as { model?: unknown; tokens_cached?: unknown };
    if (typeof model === 'string' && model !== '') models.add(model);
    if (c !== undefined) cached = true;
  }
  // Code-unit order, as reports sort names: the same data writes the same file.
  return { models: [...models].sort(compareCodeUnits), cached };
}

/** The token gates for `metrics` (a suite's measured values): tokens_in's, when it was measured today. */
export function tokenGates(
  metrics: Readonly<Record<string, MetricValue>>,
  wanted: readonly string[],
): Increase[] {
  return wanted.flatMap((metric) => {
    const v = metrics[metric]?.value;
    if (v === null || v === undefined || !Number.isFinite(v)) return [];
    const pct = `${Number((TOKEN_INCREASE * 100).toFixed(2))}%`;
    return [
      {
        metric,
        fraction: TOKEN_INCREASE,
        note: `measured ${Number(v.toFixed(2))} per request; fails when the mean over the requests both runs have is more than ${pct} above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)`,
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
