import { z } from 'zod';

export const COMPARISONS = ['>=', '<=', '>', '<', '=='] as const;
export type Comparison = (typeof COMPARISONS)[number];

export interface Check {
  op: Comparison;
  threshold: number;
}

/** One entry under `gates:`, normalized from either the string or the object form. */
export interface GateRule {
  checks: Check[];
  /** Largest allowed worsening against the baseline report, in the metric's own unit. */
  maxDrop?: number;
  /**
   * Most items of the metric's population allowed to pass in the baseline report and fail now (paired on
   * unchanged gold): a regression a level gate on a few items cannot see.
   */
  maxNewFailures?: number;
  /**
   * Largest allowed rise over the baseline report's value, as a fraction of it (0.10: at most 10% above),
   * paired per item where both reports carry the metric's per-item values (MetricSpec.perItem).
   */
  maxIncrease?: number;
  /** A non-computable metric passes instead of failing. */
  allowMissing: boolean;
  /** Compare a bound of the Wilson 95% interval instead of the point value (proportions only). */
  confidence?: 'lower_bound' | 'upper_bound';
  /** A drop past maxDrop fails only when the paired randomization test also finds it at p < this. */
  significance?: number;
}

const EXPRESSION = /^\s*(>=|<=|==|>|<)\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*$/i;

export function parseComparison(text: string): Check | undefined {
  const m = EXPRESSION.exec(text);
  if (!m) return undefined;
  return { op: m[1] as Comparison, threshold: Number(m[2]) };
}

// zod's numbers are finite already; the message says so (YAML's .inf and 1e400 are numbers, and infinite).
const finite = z.number({ error: 'expected a finite number' });

const gateObject = z
  .strictObject({
    min: finite.optional(),
    max: finite.optional(),
    max_drop: finite.nonnegative().optional(),
    max_increase: finite
      .nonnegative({ error: 'expected a fraction of the baseline, 0 or more (0.10: 10%)' })
      .optional(),
    max_new_failures: z
      .int({ error: 'expected a whole number of items, 0 or more' })
      .nonnegative({ error: 'expected a whole number of items, 0 or more' })
      .optional(),
    allow_missing: z.boolean().optional(),
    confidence: z.enum(['point', 'lower_bound', 'upper_bound']).optional(),
    significance: z
      .number({ error: 'expected a significance level between 0 and 1, such as 0.05' })
      .gt(0, { error: 'expected a significance level between 0 and 1, such as 0.05' })
      .lt(1, { error: 'expected a significance level between 0 and 1, such as 0.05' })
      .optional(),
  })
  .refine((g) => g.significance === undefined || g.max_drop !== undefined, {
    message: 'significance applies to a max_drop gate; expected max_drop beside it',
  })
  .refine(
    (g) =>
      g.min !== undefined ||
      g.max !== undefined ||
      g.max_drop !== undefined ||
      g.max_new_failures !== undefined ||
      g.max_increase !== undefined,
    { message: 'expected at least one of min, max, max_drop, max_increase, max_new_failures' },
  )
  .transform((g): GateRule => {
    const checks: Check[] = [];
    if (g.min !== undefined) checks.push({ op: '>=', threshold: g.min });
    if (g.max !== undefined) checks.push({ op: '<=', threshold: g.max });
    const confidence = g.confidence === 'point' ? undefined : g.confidence;
    return {
      checks,
      maxDrop: g.max_drop,
      ...(g.max_new_failures !== undefined ? { maxNewFailures: g.max_new_failures } : {}),
      ...(g.max_increase !== undefined ? { maxIncrease: g.max_increase } : {}),
      allowMissing: g.allow_missing ?? false,
      ...(confidence ? { confidence } : {}),
      ...(g.significance !== undefined ? { significance: g.significance } : {}),
    };
  });

const gateString = z.string().transform((text, ctx): GateRule => {
  const check = parseComparison(text);
  if (check && !Number.isFinite(check.threshold)) {
    ctx.addIssue({ code: 'custom', message: `expected a finite threshold, found ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  if (!check) {
    ctx.addIssue({
      code: 'custom',
      message: `expected a comparison such as ">= 0.80", "<= 0.05" or "== 0", found ${JSON.stringify(text)}`,
    });
    return z.NEVER;
  }
  return { checks: [check], allowMissing: false };
});

export const gateRuleSchema = z.union([gateString, gateObject], {
  error:
    'expected a comparison such as ">= 0.80" or an object {min, max, max_drop, max_increase, max_new_failures, allow_missing, confidence, significance}',
});

export const gatesSchema = z.record(z.string(), gateRuleSchema);

export function compare(value: number, { op, threshold }: Check): boolean {
  switch (op) {
    case '>=':
      return value >= threshold;
    case '<=':
      return value <= threshold;
    case '>':
      return value > threshold;
    case '<':
      return value < threshold;
    case '==':
      return value === threshold;
  }
}
