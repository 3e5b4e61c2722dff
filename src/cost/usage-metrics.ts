import { compareCodeUnits } from '../io/files.js';
import { aggregate } from '../metrics/aggregate.js';
import { notComputable, type MetricSpec, type MetricValue, type ResolvedMetric } from '../metrics/spec.js';
import type { Pricing } from './pricing.js';
import { costOfUsage, type Cost, type Usage } from './usage.js';

// The token and cost metrics of any suite that reads traces (latency's requests, grounded-qa's answers):
// each one's usage (cost/usage.ts) as per-item values, and their means, percentiles and the cost's total.
// One without a value is left out of that value's figures and counted apart: n/a, never 0.

/** What a suite calls the things it counts tokens of, in its metrics' descriptions and its warnings. */
export type UsageNoun = 'request' | 'answer';

/** The per-item values the token metrics aggregate, in the order reports list them. */
export const USAGE_VALUES = ['tokens_in', 'tokens_out', 'tokens', 'cost'] as const;
export type UsageValue = (typeof USAGE_VALUES)[number];

/** One item's values; a value it has none of is undefined. */
export type UsageValues = Partial<Record<UsageValue, number>>;

const plural = (n: number, noun: UsageNoun) => `${noun}${n === 1 ? '' : 's'}`;

/**
 * The token and cost metrics' specs: each value's mean and percentile family, then the cost's total; all
 * optional (reported where traces count tokens or a gate names one) and built from per-item values.
 */
export function usageSpecs(noun: UsageNoun): MetricSpec[] {
  const values: readonly { value: UsageValue; unit: 'tokens' | 'usd'; what: string }[] = [
    { value: 'tokens_in', unit: 'tokens', what: `input (prompt) tokens per ${noun}` },
    { value: 'tokens_out', unit: 'tokens', what: `output (completion) tokens per ${noun}` },
    { value: 'tokens', unit: 'tokens', what: `tokens (input + output) per ${noun}` },
    { value: 'cost', unit: 'usd', what: `cost per ${noun} in USD at the pricing table` },
  ];
  return [
    ...values.flatMap(({ value, unit, what }): MetricSpec[] => [
      {
        name: value,
        direction: 'lower',
        unit,
        description: `Mean ${what}, over the ${noun}s that have one`,
        optional: true,
        perItem: { value, aggregate: 'mean' },
      },
      {
        name: `${value}.p{k}`,
        direction: 'lower',
        unit,
        description: `Percentile k of ${what} (as p{k}_ms is computed)`,
        optional: true,
        perItem: { value, aggregate: 'percentile' },
      },
    ]),
    {
      name: 'cost.total',
      direction: 'lower',
      unit: 'usd',
      description: `The run's cost in USD: the sum over the ${noun}s that have a cost`,
      optional: true,
      perItem: { value: 'cost', aggregate: 'sum' },
    },
  ];
}

/** Whether `spec` is one of the token and cost metrics (see usageSpecs). */
export const isUsageMetric = (spec: MetricSpec): boolean =>
  spec.perItem !== undefined && (USAGE_VALUES as readonly string[]).includes(spec.perItem.value);

/** An item's values, and its cost's verdict (undefined without a pricing table). */
export function usageValues(
  u: Usage | undefined,
  pricing: Pricing | undefined,
): { values: UsageValues; cost?: Cost } {
  const values: UsageValues = {};
  if (u?.tokensIn !== undefined) values.tokens_in = u.tokensIn;
  if (u?.tokensOut !== undefined) values.tokens_out = u.tokensOut;
  if (u?.tokensIn !== undefined && u.tokensOut !== undefined) values.tokens = u.tokensIn + u.tokensOut;
  if (!pricing) return { values };
  const cost = costOfUsage(u, pricing);
  if (cost.usd !== null) values.cost = cost.usd;
  return { values, cost };
}

/** Every item's values over `usages`, and the counts and warnings about those that have none. */
export function usageOf(
  usages: readonly (Usage | undefined)[],
  pricing: Pricing | undefined,
  noun: UsageNoun,
): { values: UsageValues[]; counts: Record<string, number>; warnings: string[] } {
  const values: UsageValues[] = [];
  const unpriced = new Map<string, number>();
  let uncounted = 0;
  let incomplete = 0;
  let unnamed = 0;
  for (const u of usages) {
    const { values: v, cost } = usageValues(u, pricing);
    values.push(v);
    if (!u) uncounted++;
    else if (cost?.usd === null && cost.reason === 'incomplete') incomplete++;
    else if (cost?.usd === null && cost.reason === 'no model') unnamed++;
    if (cost?.usd === null) for (const m of cost.unpriced) unpriced.set(m, (unpriced.get(m) ?? 0) + 1);
  }
  const counts: Record<string, number> = {};
  const warnings: string[] = [];
  if (uncounted === usages.length) return { values, counts, warnings };
  counts.untokened = uncounted;
  if (uncounted > 0)
    warnings.push(
      `${uncounted} of ${usages.length} ${noun}s have no token count (tokens_in, tokens_out): n/a, left out of the token and cost figures`,
    );
  if (!pricing) return { values, counts, warnings };
  counts.uncosted = values.filter((v) => v.cost === undefined).length;
  if (incomplete > 0)
    warnings.push(
      `${incomplete} ${plural(incomplete, noun)} ${incomplete === 1 ? 'counts' : 'count'} input or output tokens but not both: n/a for cost`,
    );
  if (unnamed > 0)
    warnings.push(
      `${unnamed} ${plural(unnamed, noun)} ${unnamed === 1 ? 'names' : 'name'} no model (model, llm.model_name, gen_ai.response.model): n/a for cost`,
    );
  for (const [model, n] of [...unpriced].sort((a, b) => compareCodeUnits(a[0], b[0])))
    warnings.push(
      `model ${JSON.stringify(model)} has no price in pricing: its ${n} ${plural(n, noun)} ${n === 1 ? 'is' : 'are'} n/a for cost (prices are yours to keep current; groundgate looks none up)`,
    );
  return { values, counts, warnings };
}

/**
 * The requested token and cost metrics over each item's values: `<value>` (mean), `<value>.p{k}`
 * (percentile k, as p{k}_ms is computed) and `cost.total`. Metrics of other names are left out.
 */
export function usageMetrics(
  values: readonly UsageValues[],
  requested: readonly ResolvedMetric[],
  priced: boolean,
  noun: UsageNoun,
): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  for (const m of requested) {
    if (!isUsageMetric(m.spec)) continue;
    const per = m.spec.perItem!;
    const value = per.value as UsageValue;
    if (value === 'cost' && !priced) {
      out[m.name] = notComputable('no pricing: set pricing (USD per million tokens per model) in the suite');
      continue;
    }
    const found = aggregate(
      values.flatMap((x) => (x[value] === undefined ? [] : [x[value]])),
      per.aggregate,
      m.k,
    );
    out[m.name] =
      found === undefined
        ? notComputable(`no ${noun} has ${value === 'cost' ? 'a cost' : value}`)
        : { value: found };
  }
  return out;
}

/** The token and cost figures of a suite's items, as its result reports them (see usageFigures). */
export interface UsageFigures {
  /** Each item's values, in the order of the usages given. */
  values: UsageValues[];
  /** Whether some item counts tokens: only then are the metrics computed and the per-item values listed. */
  counted: boolean;
  metrics: Record<string, MetricValue>;
  counts: Record<string, number>;
  warnings: string[];
}

/**
 * The token and cost metrics a suite reports over its items' usages: each requested one when some item
 * counts tokens, else only those its gates name, as not computable (n/a, not 0).
 */
export function usageFigures(
  usages: readonly (Usage | undefined)[],
  requested: readonly ResolvedMetric[],
  gated: Readonly<Record<string, unknown>>,
  pricing: Pricing | undefined,
  noun: UsageNoun,
): UsageFigures {
  const { values, counts, warnings } = usageOf(usages, pricing, noun);
  const counted = usages.some((u) => u !== undefined);
  // Cost is reported once prices are given (or a gate names it): without them it is one hint, n/a six times over.
  const shown = (m: ResolvedMetric) => counted && (m.spec.perItem!.value !== 'cost' || pricing !== undefined);
  const asked = requested.filter((m) => isUsageMetric(m.spec) && (shown(m) || m.name in gated));
  const metrics = counted
    ? usageMetrics(values, asked, pricing !== undefined, noun)
    : Object.fromEntries(
        asked.map((m) => [
          m.name,
          notComputable(
            'no trace counts tokens (tokens_in and tokens_out, or llm.token_count.* / gen_ai.usage.* on LLM spans)',
          ),
        ]),
      );
  return { values, counted, metrics, counts, warnings };
}

/** Per-item value columns (NaN where an item has none) for the values some item has: SuiteResult.items. */
export function usageColumns(values: readonly UsageValues[]): Record<string, Float64Array> {
  const columns: Record<string, Float64Array> = {};
  for (const v of USAGE_VALUES)
    if (values.some((x) => x[v] !== undefined)) columns[v] = Float64Array.from(values, (x) => x[v] ?? NaN);
  return columns;
}
