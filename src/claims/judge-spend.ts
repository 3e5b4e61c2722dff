import { costOf, type Price } from '../cost/pricing.js';
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
 * What a run of the judge spent: requests sent (retries included), the tokens the endpoint's `usage` reported,
 * and the answers that reported none (their tokens are unknown, not 0).
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

/** The budgets on what judging spends, beside the call budget (GROUNDGATE_JUDGE_MAX_TOKENS, _MAX_COST_USD). */
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
