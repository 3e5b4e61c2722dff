import { z } from 'zod';

// Prices are the user's to keep current: groundgate never looks one up (no network at run time), so a
// price table is committed beside the gates and reviewed like them.

/** One model's price in USD per million tokens. */
export const priceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Input tokens served from the provider's prompt cache, when it bills them apart. */
  cached_input: z.number().nonnegative().optional(),
});
export type Price = z.infer<typeof priceSchema>;

/** `pricing:` — model name (as the traces or the judge endpoint name it) to its price. */
export const pricingSchema = z.record(z.string().trim().min(1), priceSchema);
export type Pricing = z.infer<typeof pricingSchema>;

/** Token counts of one answer (or one judge call); `cachedIn` is the part of `tokensIn` served from cache. */
export interface Tokens {
  tokensIn: number;
  tokensOut: number;
  cachedIn?: number;
}

const PER_MILLION = 1_000_000;

/**
 * What `tokens` cost at `price`, in USD. Cached input tokens are billed at `cached_input` when the price has
 * one, else as plain input (a provider that does not discount them bills them in full).
 */
export function costOf(tokens: Tokens, price: Price): number {
  const cached = Math.min(tokens.cachedIn ?? 0, tokens.tokensIn);
  const cachedRate = price.cached_input ?? price.input;
  return (
    ((tokens.tokensIn - cached) * price.input + cached * cachedRate + tokens.tokensOut * price.output) /
    PER_MILLION
  );
}

/** The price of `model` in `pricing`; undefined when the table has none (the caller warns, naming it). */
export function priceOf(pricing: Pricing | undefined, model: string | undefined): Price | undefined {
  if (!pricing || model === undefined) return undefined;
  return Object.hasOwn(pricing, model) ? pricing[model] : undefined;
}
