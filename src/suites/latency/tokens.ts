import { compareCodeUnits } from '../../io/files.js';
import { aggregate } from '../../metrics/aggregate.js';
import { notComputable, type MetricValue, type ResolvedMetric } from '../../metrics/spec.js';
import type { Pricing } from '../../cost/pricing.js';
import { costOfUsage, type Cost } from '../../cost/usage.js';
import type { LatencySample } from './contract.js';

// A latency suite's token and cost metrics: each request's usage (from its trace, see cost/usage.ts) as
// per-request values, and their means, percentiles and the cost's total. A request without a value is left
// out of that value's figures and counted apart: n/a, never 0.

/** The per-request values the token metrics aggregate, in the order reports list them. */
export const USAGE_VALUES = ['tokens_in', 'tokens_out', 'tokens', 'cost'] as const;
export type UsageValue = (typeof USAGE_VALUES)[number];

/** One request's values; a value the request has none of is undefined. */
export type UsageValues = Partial<Record<UsageValue, number>>;

/** A request's values, and its cost's verdict (undefined without a pricing table). */
export function usageValues(
  sample: LatencySample,
  pricing: Pricing | undefined,
): { values: UsageValues; cost?: Cost } {
  const u = sample.usage;
  const values: UsageValues = {};
  if (u?.tokensIn !== undefined) values.tokens_in = u.tokensIn;
  if (u?.tokensOut !== undefined) values.tokens_out = u.tokensOut;
  if (u?.tokensIn !== undefined && u.tokensOut !== undefined) values.tokens = u.tokensIn + u.tokensOut;
  if (!pricing) return { values };
  const cost = costOfUsage(u, pricing);
  if (cost.usd !== null) values.cost = cost.usd;
  return { values, cost };
}

/** Every request's values over `samples`, and the warnings about those that have none. */
export function usageOf(
  samples: readonly LatencySample[],
  pricing: Pricing | undefined,
): { values: UsageValues[]; counts: Record<string, number>; warnings: string[] } {
  const values: UsageValues[] = [];
  const unpriced = new Map<string, number>();
  let uncounted = 0;
  let incomplete = 0;
  let unnamed = 0;
  for (const s of samples) {
    const { values: v, cost } = usageValues(s, pricing);
    values.push(v);
    if (!s.usage) uncounted++;
    else if (cost?.usd === null && cost.reason === 'incomplete') incomplete++;
    else if (cost?.usd === null && cost.reason === 'no model') unnamed++;
    if (cost?.usd === null) for (const m of cost.unpriced) unpriced.set(m, (unpriced.get(m) ?? 0) + 1);
  }
  const counts: Record<string, number> = {};
  const warnings: string[] = [];
  if (uncounted === samples.length) return { values, counts, warnings };
  counts.untokened = uncounted;
  if (uncounted > 0)
    warnings.push(
      `${uncounted} of ${samples.length} requests have no token count (tokens_in, tokens_out): n/a, left out of the token and cost figures`,
    );
  if (!pricing) return { values, counts, warnings };
  counts.uncosted = values.filter((v) => v.cost === undefined).length;
  if (incomplete > 0)
    warnings.push(
      `${incomplete} request${incomplete === 1 ? ' counts' : 's count'} input or output tokens but not both: n/a for cost`,
    );
  if (unnamed > 0)
    warnings.push(
      `${unnamed} request${unnamed === 1 ? ' names' : 's name'} no model (model, llm.model_name, gen_ai.response.model): n/a for cost`,
    );
  for (const [model, n] of [...unpriced].sort((a, b) => compareCodeUnits(a[0], b[0])))
    warnings.push(
      `model ${JSON.stringify(model)} has no price in pricing: its ${n} request${n === 1 ? ' is' : 's are'} n/a for cost (prices are yours to keep current; groundgate looks none up)`,
    );
  return { values, counts, warnings };
}

/**
 * The requested token and cost metrics over each request's values: `<value>` (mean), `<value>.p{k}`
 * (percentile k, as p{k}_ms is computed) and `cost.total`. Metrics of other names are left out.
 */
export function usageMetrics(
  values: readonly UsageValues[],
  requested: readonly ResolvedMetric[],
  priced: boolean,
): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  for (const m of requested) {
    const per = m.spec.perItem;
    if (!per || !(USAGE_VALUES as readonly string[]).includes(per.value)) continue;
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
        ? notComputable(`no request has ${value === 'cost' ? 'a cost' : value}`)
        : { value: found };
  }
  return out;
}
