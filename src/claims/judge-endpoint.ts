import { InputError } from '../errors.js';

/**
 * Where and how the judge is asked. It comes from the trusted side only — the workflow's environment, which
 * the Action fills from its inputs — never from gates.yaml, which a fork's pull request can edit: a fork must
 * not point the key at its own server nor pick an expensive model.
 */
export interface JudgeEndpoint {
  /** An OpenAI-style base URL without a trailing slash (`https://api.openai.com/v1`). */
  baseUrl: string;
  /** Sent in the Authorization header only; never in a detail (judge-redact.ts masks it in what is said). */
  apiKey: string;
  model: string;
  /** Asks sent at most in one run; the rest are unjudged ("budget"). */
  maxCalls: number;
  /** Tokens (in and out) after which no request is sent (ask-judge.ts says how they are counted). */
  maxTokens?: number;
  /** USD, at the judge model's price in claims.pricing, after which no request is sent. */
  maxCostUsd?: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Requests started in any 60 s. */
  perMinute: number;
  /** One attempt of one request. */
  timeoutMs: number;
  /** Further attempts of an ask after a 5xx, a network error or a timeout. */
  retries: number;
  /** The first wait before a retry; each later one doubles it. */
  backoffMs: number;
  /** Everything judging may take, waits included; asks not answered by then are unjudged. */
  budgetMs: number;
}

export const JUDGE_DEFAULTS = {
  maxCalls: 200,
  concurrency: 4,
  perMinute: 60,
  timeoutMs: 30_000,
  retries: 2,
  backoffMs: 1_000,
  budgetMs: 600_000,
} as const;

/**
 * The endpoint from GROUNDGATE_JUDGE_BASE_URL, _API_KEY and _MODEL, with the budget from _MAX_CALLS,
 * _CONCURRENCY, _RPM, _TIMEOUT_MS and _BUDGET_MS (defaults above). No key (a fork, an offline run): no
 * endpoint, and nothing else is required. A bad value is an InputError naming the variable; warnings say
 * what is allowed but unwise (an alias for a model, a key sent over plain http).
 */
export function judgeEndpoint(env: NodeJS.ProcessEnv): { endpoint?: JudgeEndpoint; warnings: string[] } {
  const apiKey = value(env, 'GROUNDGATE_JUDGE_API_KEY');
  if (apiKey === undefined) return { warnings: [] };
  const { model, warnings } = judgeModel(env);
  if (model === undefined)
    throw new InputError(
      undefined,
      'GROUNDGATE_JUDGE_MODEL is not set; expected the model to judge with, pinned to a version (e.g. gpt-4o-mini-2024-07-18), since GROUNDGATE_JUDGE_API_KEY is set',
    );
  const baseUrl = judgeBaseUrl(env, warnings);
  const endpoint: JudgeEndpoint = {
    baseUrl,
    apiKey,
    model,
    concurrency: count(env, 'GROUNDGATE_JUDGE_CONCURRENCY', JUDGE_DEFAULTS.concurrency, 1, 64),
    perMinute: count(env, 'GROUNDGATE_JUDGE_RPM', JUDGE_DEFAULTS.perMinute, 1, 100_000),
    timeoutMs: count(env, 'GROUNDGATE_JUDGE_TIMEOUT_MS', JUDGE_DEFAULTS.timeoutMs, 1, 600_000),
    retries: JUDGE_DEFAULTS.retries,
    backoffMs: JUDGE_DEFAULTS.backoffMs,
    budgetMs: count(env, 'GROUNDGATE_JUDGE_BUDGET_MS', JUDGE_DEFAULTS.budgetMs, 1, 6 * 3_600_000),
    ...spendBudget(env),
  };
  return { endpoint, warnings };
}

/**
 * The budgets on the judge's spend, unset by default: GROUNDGATE_JUDGE_MAX_TOKENS (whole tokens, in and out)
 * and GROUNDGATE_JUDGE_MAX_COST_USD (dollars, e.g. 0.50). Read without a key too: a dry run predicts them.
 */
export function spendBudget(env: NodeJS.ProcessEnv): {
  maxCalls: number;
  maxTokens?: number;
  maxCostUsd?: number;
} {
  const tokens = value(env, 'GROUNDGATE_JUDGE_MAX_TOKENS');
  if (tokens !== undefined && !/^[1-9]\d{0,8}$/.test(tokens))
    throw new InputError(
      undefined,
      `GROUNDGATE_JUDGE_MAX_TOKENS=${JSON.stringify(tokens.slice(0, 40))}: expected a whole number of tokens from 1 to 999999999 (unset: no token budget)`,
    );
  const maxTokens = tokens === undefined ? undefined : Number(tokens);
  const name = 'GROUNDGATE_JUDGE_MAX_COST_USD';
  const dollars = value(env, name);
  if (dollars !== undefined && !(/^\d{1,6}(\.\d{1,6})?$/.test(dollars) && Number(dollars) > 0))
    throw new InputError(
      undefined,
      `${name}=${JSON.stringify(dollars.slice(0, 40))}: expected an amount in US dollars above 0 (e.g. 0.50), at most six decimals (unset: no cost budget)`,
    );
  return {
    maxCalls: count(env, 'GROUNDGATE_JUDGE_MAX_CALLS', JUDGE_DEFAULTS.maxCalls, 0, 100_000),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(dollars !== undefined ? { maxCostUsd: Number(dollars) } : {}),
  };
}

/**
 * GROUNDGATE_JUDGE_MODEL, checked, with or without a key: cached judgments are found by keys that hash the
 * model, so a run without a key (a fork) needs it too.
 */
export function judgeModel(env: NodeJS.ProcessEnv): { model?: string; warnings: string[] } {
  const model = value(env, 'GROUNDGATE_JUDGE_MODEL');
  if (model === undefined) return { warnings: [] };
  if (!/^[\x21-\x7e]{1,200}$/.test(model))
    throw new InputError(
      undefined,
      `GROUNDGATE_JUDGE_MODEL=${JSON.stringify(model.slice(0, 60))}: expected a model name (printable ASCII without spaces, at most 200 characters)`,
    );
  const warnings = isPinned(model)
    ? []
    : [
        `GROUNDGATE_JUDGE_MODEL=${model} looks like an alias (no date or version at its end): the provider may move it to a newer model, and judgments recorded under it stop being reproducible; pin a dated version (e.g. gpt-4o-mini-2024-07-18)`,
      ];
  return { model, warnings };
}

/**
 * Whether a model name ends in a date or a version: `gpt-4o-mini-2024-07-18`, `claude-3-5-sonnet-20241022`,
 * `gpt-4-0613`, `mistral-large-2407`, `gpt-4-1106-preview`, `gemini-1.5-pro-002`, `claude-3-5-sonnet@20240620`,
 * `anthropic.claude-3-5-sonnet-20241022-v2:0`. `gpt-4o-mini`, `gpt-4o`, `llama3:latest` are aliases.
 */
export function isPinned(model: string): boolean {
  const date = /[-_@.](?:19|20)\d{2}-?(?:0[1-9]|1[0-2])-?(?:0[1-9]|[12]\d|3[01])(?=$|[-_:@])/;
  // MMDD (OpenAI's gpt-4-0613) or YYMM (Mistral's mistral-large-2407).
  const fourDigits = /-\d{4}(?:-preview)?$/;
  const version = /-(?:\d{3}|v\d+(?::\d+)?)$/;
  return date.test(model) || fourDigits.test(model) || version.test(model);
}

function judgeBaseUrl(env: NodeJS.ProcessEnv, warnings: string[]): string {
  const name = 'GROUNDGATE_JUDGE_BASE_URL';
  const text = value(env, name);
  const expected =
    'expected the base URL of an OpenAI-compatible API, as OpenAI clients take it (e.g. https://api.openai.com/v1)';
  if (text === undefined)
    throw new InputError(undefined, `${name} is not set; ${expected}, since GROUNDGATE_JUDGE_API_KEY is set`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(undefined, `${name}=${JSON.stringify(text.slice(0, 80))} is not a URL; ${expected}`);
  }
  const shown = `${name}=${url.origin}${url.pathname}`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InputError(undefined, `${shown}: ${url.protocol} is not http(s); ${expected}`);
  if (url.username || url.password || url.search || url.hash)
    throw new InputError(
      undefined,
      `${shown} has credentials, a query or a fragment; ${expected}, and the key in GROUNDGATE_JUDGE_API_KEY`,
    );
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (/\/chat\/completions$/.test(base))
    throw new InputError(
      undefined,
      `${shown} ends in /chat/completions; ${expected}: /chat/completions is added to it`,
    );
  if (url.protocol === 'http:' && !isLoopback(url.hostname))
    warnings.push(`${name}=${base} is plain http: the API key crosses the network unencrypted`);
  return base;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A variable's trimmed text; unset and empty are the same (the Action passes an empty input as ""). */
function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = value(env, name);
  if (text === undefined) return fallback;
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max))
    throw new InputError(
      undefined,
      `${name}=${JSON.stringify(text.slice(0, 40))}: expected a whole number from ${min} to ${max} (default ${fallback})`,
    );
  return n;
}
