import { costOf, priceOf, type Price, type Pricing } from '../cost/pricing.js';
import type { JudgeSpendReport } from '../report/schema.js';
import { JUDGE_MAX_TOKENS, type Usage } from './judge-client.js';
import type { ChatMessage } from './judge-prompt.js';

// The estimate of a request before it is sent, with no tokenizer (none is bundled, and the judge model's
// may be any): OpenAI's rule of thumb of about four characters of English text a token
// (https://help.openai.com/en/articles/4936856), rounded up per message, plus the chat format's overhead as
// OpenAI's cookbook counts it: three tokens a message and three that prime the reply
// (https://github.com/openai/openai-cookbook/blob/main/examples/How_to_count_tokens_with_tiktoken.ipynb).
// The answer is estimated at JUDGE_MAX_TOKENS, the most the request lets the model write: an upper bound.
export const CHARS_PER_TOKEN = 4;
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;

/** Tokens of one request, in (prompt) and out (answer). */
export interface TokenPair {
  tokensIn: number;
  tokensOut: number;
}

/** The estimated tokens of one request with these messages (characters are code points). */
export function estimateRequest(messages: readonly ChatMessage[]): TokenPair {
  let tokensIn = TOKENS_PER_REPLY;
  for (const m of messages)
    tokensIn += TOKENS_PER_MESSAGE + Math.ceil([...m.content].length / CHARS_PER_TOKEN);
  return { tokensIn, tokensOut: JUDGE_MAX_TOKENS };
}

/**
 * What a run of the judge spent: requests sent (retries included), the tokens the endpoint's `usage`
 * reported, and the answers that reported none (their tokens are unknown, not 0).
 */
export interface JudgeSpend {
  requests: number;
  tokensIn: number;
  tokensOut: number;
  withoutUsage: number;
}

export const NO_SPEND: JudgeSpend = { requests: 0, tokensIn: 0, tokensOut: 0, withoutUsage: 0 };

/** `spend` with one more answer's usage (or one more answer without it). */
export function withUsage(spend: JudgeSpend, usage: Usage | undefined): JudgeSpend {
  if (!usage) return { ...spend, withoutUsage: spend.withoutUsage + 1 };
  return {
    ...spend,
    tokensIn: spend.tokensIn + usage.prompt_tokens,
    tokensOut: spend.tokensOut + usage.completion_tokens,
  };
}

/** The sum of two runs' spend (suites judged one after another). */
export function addSpend(a: JudgeSpend, b: JudgeSpend): JudgeSpend {
  return {
    requests: a.requests + b.requests,
    tokensIn: a.tokensIn + b.tokensIn,
    tokensOut: a.tokensOut + b.tokensOut,
    withoutUsage: a.withoutUsage + b.withoutUsage,
  };
}

/** The budgets on what judging spends, beside the call budget: GROUNDGATE_JUDGE_MAX_TOKENS, _MAX_COST_USD. */
export interface SpendBudget {
  /** Tokens in and out together. */
  maxTokens?: number;
  maxCostUsd?: number;
  /** The judge model's price; required with maxCostUsd. */
  price?: Price;
}

/**
 * Why no further request may be sent, or undefined while `counted` (reported tokens, with the estimates of
 * the requests in flight or answered without usage) is below every budget.
 */
export function budgetReached(counted: TokenPair, budget: SpendBudget): string | undefined {
  const tokens = counted.tokensIn + counted.tokensOut;
  if (budget.maxTokens !== undefined && tokens >= budget.maxTokens)
    return `not sent: ${budget.maxTokens} tokens is the budget (GROUNDGATE_JUDGE_MAX_TOKENS); ${tokens} counted`;
  if (budget.maxCostUsd !== undefined && budget.price) {
    const cost = costOf(counted, budget.price);
    if (cost >= budget.maxCostUsd)
      return `not sent: $${budget.maxCostUsd} is the budget (GROUNDGATE_JUDGE_MAX_COST_USD); $${usd(cost)} counted`;
  }
  return undefined;
}

/** A price in USD with enough digits for a judge run (fractions of a cent), trailing zeros dropped. */
export function usd(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}

/** What a run would send, as a dry run predicts it. */
export interface Prediction {
  /** Requests sent, one an ask: retries are not predicted. */
  requests: number;
  /** The estimated tokens of those requests. */
  estimated: TokenPair;
  /** Why the rest would not be sent (a budget), when some would not. */
  stoppedBy?: string;
}

/**
 * The requests a run would send for asks of these estimates, in order: the first `maxCalls`, each while the
 * estimates of those before it are below the token and cost budgets (as askJudge counts them before usage
 * comes back). It is the real run's count when every ask is answered at its first request and, under a token
 * or cost budget, when the endpoint's usage is the estimate or the budget is not reached.
 */
export function predictRequests(
  estimates: readonly TokenPair[],
  budget: SpendBudget & { maxCalls: number },
): Prediction {
  let estimated: TokenPair = { tokensIn: 0, tokensOut: 0 };
  for (const [i, e] of estimates.entries()) {
    const stoppedBy =
      i >= budget.maxCalls
        ? `not sent: ${budget.maxCalls} calls is the budget (GROUNDGATE_JUDGE_MAX_CALLS)`
        : budgetReached(estimated, budget);
    if (stoppedBy) return { requests: i, estimated, stoppedBy };
    estimated = { tokensIn: estimated.tokensIn + e.tokensIn, tokensOut: estimated.tokensOut + e.tokensOut };
  }
  return { requests: estimates.length, estimated };
}

/**
 * What the judge spent, as the terminal and the comment list it: requests, the tokens reported, the answers
 * without usage, and the cost when there is a price and every answer reported its usage (else why not).
 * `model` is the name the line gives the judge model (a renderer escapes it for its medium); `priced` whether
 * claims.pricing prices it, where that is known (a report's block says only that the cost is not).
 */
export function spendParts(
  judge: JudgeSpendReport,
  model = judge.model ?? 'the judge model',
  priced = judge.without_usage > 0,
): string[] {
  const parts = [
    `${judge.requests} request${judge.requests === 1 ? '' : 's'}`,
    `${judge.tokens_in} tokens in`,
    `${judge.tokens_out} out`,
  ];
  if (judge.without_usage)
    parts.push(
      `${judge.without_usage} answer${judge.without_usage === 1 ? '' : 's'} without usage (tokens unknown)`,
    );
  if (judge.cost_usd !== undefined) parts.push(`$${usd(judge.cost_usd)}`);
  else if (judge.requests > 0)
    parts.push(priced ? 'cost unknown' : `no price for ${model} in claims.pricing`);
  return parts;
}

/** The cost of `spend` at `price`: undefined without a price, or when some answer's tokens are unknown. */
export function costOfSpend(spend: JudgeSpend, price: Price | undefined): number | undefined {
  if (!price || spend.withoutUsage > 0) return undefined;
  return costOf(spend, price);
}

/** The report's `judge` block (report/schema.ts, judgeSpendSchema). */
export function spendReport(
  spend: JudgeSpend,
  model: string | undefined,
  pricing: Pricing | undefined,
): JudgeSpendReport {
  const cost = costOfSpend(spend, priceOf(pricing, model));
  return {
    ...(model !== undefined ? { model } : {}),
    requests: spend.requests,
    tokens_in: spend.tokensIn,
    tokens_out: spend.tokensOut,
    without_usage: spend.withoutUsage,
    // Rounded to a billionth of a dollar, far below any bill: float products would print their noise.
    ...(cost !== undefined ? { cost_usd: Number(cost.toFixed(9)) } : {}),
  };
}
