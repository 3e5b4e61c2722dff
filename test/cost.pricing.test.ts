import { describe, expect, it } from 'vitest';
import { costOf, priceOf, pricingSchema } from '../src/cost/pricing.js';

describe('pricing', () => {
  const pricing = pricingSchema.parse({
    'gpt-4o-mini-2024-07-18': { input: 0.15, output: 0.6, cached_input: 0.075 },
    'claude-sonnet': { input: 3, output: 15 },
  });

  it('costs tokens in USD per million, by hand', () => {
    // 1200 in, 300 out at 0.15/0.60 per million: 0.00018 + 0.00018 = 0.00036
    expect(
      costOf({ tokensIn: 1200, tokensOut: 300 }, priceOf(pricing, 'gpt-4o-mini-2024-07-18')!),
    ).toBeCloseTo(0.00036, 12);
    // 1000 in (400 cached), 100 out at 3/15, no cached price: 1000·3 + 100·15 = 4500 per million
    expect(costOf({ tokensIn: 1000, tokensOut: 100, cachedIn: 400 }, pricing['claude-sonnet']!)).toBeCloseTo(
      0.0045,
      12,
    );
    // 600 plain at 0.15 + 400 cached at 0.075 + 0 out = 90 + 30 = 120 per million
    expect(
      costOf({ tokensIn: 1000, tokensOut: 0, cachedIn: 400 }, pricing['gpt-4o-mini-2024-07-18']!),
    ).toBeCloseTo(0.00012, 12);
  });

  it('has no price for a model it does not list, nor for an inherited key', () => {
    expect(priceOf(pricing, 'gpt-4o')).toBeUndefined();
    expect(priceOf(pricing, 'constructor')).toBeUndefined();
    expect(priceOf(undefined, 'claude-sonnet')).toBeUndefined();
  });

  it('refuses a negative price and an unknown key', () => {
    expect(pricingSchema.safeParse({ m: { input: -1, output: 1 } }).success).toBe(false);
    expect(pricingSchema.safeParse({ m: { input: 1, output: 1, cache: 1 } }).success).toBe(false);
  });
});
