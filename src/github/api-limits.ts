import type { getOctokit } from '@actions/github';

type Octokit = ReturnType<typeof getOctokit>;

/**
 * How long the Action may wait on the GitHub API. A slow or hung API must never hold the job (GitHub's
 * limit is 6 hours) nor change the verdict, which is written before any call is made.
 */
export interface ApiLimits {
  /** One attempt of one request. */
  requestMs: number;
  /** Everything the comment needs, retries and waits included. */
  budgetMs: number;
  /** Attempts per request, the first included. */
  attempts: number;
  /** The first wait before a retry; each later one doubles it (a retry-after header overrides it). */
  backoffMs: number;
}

export const DEFAULT_API_LIMITS: ApiLimits = {
  requestMs: 10_000,
  budgetMs: 30_000,
  attempts: 3,
  backoffMs: 1_000,
};

/**
 * The limits, with GROUNDGATE_API_TIMEOUT_MS and GROUNDGATE_API_BUDGET_MS from the workflow's environment
 * (trusted, like its inputs) for runners behind a slow proxy.
 */
export function apiLimitsFrom(env: NodeJS.ProcessEnv): ApiLimits {
  const ms = (name: string, fallback: number) => {
    const text = env[name]?.trim();
    return text && /^\d{1,7}$/.test(text) && Number(text) > 0 ? Number(text) : fallback;
  };
  return {
    ...DEFAULT_API_LIMITS,
    requestMs: ms('GROUNDGATE_API_TIMEOUT_MS', DEFAULT_API_LIMITS.requestMs),
    budgetMs: ms('GROUNDGATE_API_BUDGET_MS', DEFAULT_API_LIMITS.budgetMs),
  };
}

interface HttpError {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined> };
}

/**
 * Wraps every request of `octokit` (pagination included): each attempt is cut off after `requestMs`, 5xx,
 * network errors, timeouts and rate limits are retried with backoff while the budget allows, and once the
 * budget is spent every further request fails at once. Errors say what could not be done and why.
 */
export function limitRequests(
  octokit: Octokit,
  limits: ApiLimits,
  now: () => number = Date.now,
): { left: () => number } {
  const deadline = now() + limits.budgetMs;
  octokit.hook.wrap('request', async (request, options) => {
    const what = `${options.method} ${String(options.url)}`;
    const started = now();
    for (let attempt = 1; ; attempt++) {
      const left = deadline - now();
      if (left <= 0)
        throw new Error(
          `${what}: not sent, the ${seconds(limits.budgetMs)} budget for GitHub API calls is spent`,
        );
      const timeout = Math.min(limits.requestMs, left);
      const signal = AbortSignal.timeout(timeout);
      // The inner request is bound to this very options object (before-after-hook): a new one would be ignored.
      options.request = { ...options.request, signal };
      try {
        return await request(options);
      } catch (err) {
        const e = err as HttpError;
        const timedOut = signal.aborted;
        const wait = timedOut ? backoff(limits, attempt) : retryDelay(e, attempt, limits, now);
        if (wait === undefined || attempt >= limits.attempts || now() + wait >= deadline) {
          const tries = attempt > 1 ? ` (${attempt} attempts in ${seconds(now() - started)})` : '';
          const why = timedOut ? `no answer within ${seconds(timeout)}${tries}` : `${describe(e)}${tries}`;
          throw Object.assign(new Error(`${what}: ${why}`), {
            status: e.response ? e.status : undefined,
            rateLimited: !timedOut && isRateLimit(e),
          });
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  });
  // What is left of the budget, for work outside Octokit (an artifact's download from its storage host).
  return { left: () => deadline - now() };
}

/** How long to wait before retrying, or undefined when the error is not worth a retry. */
function retryDelay(
  err: HttpError,
  attempt: number,
  limits: ApiLimits,
  now: () => number,
): number | undefined {
  const status = err.status;
  if (status === undefined) return undefined;
  const headers = err.response?.headers ?? {};
  const retryAfter = headers['retry-after'];
  // Secondary rate limits answer 403 or 429 with retry-after, or with no requests remaining until a reset.
  const rateLimited =
    status === 429 ||
    (status === 403 && (retryAfter !== undefined || headers['x-ratelimit-remaining'] === '0'));
  if (rateLimited) {
    if (retryAfter !== undefined && /^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const reset = headers['x-ratelimit-reset'];
    if (reset !== undefined && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now());
    // GitHub asks for at least a minute when it names no time.
    return 60_000;
  }
  return status >= 500 ? backoff(limits, attempt) : undefined;
}

/** Rate limits answer 429, or 403 with retry-after or with no requests remaining until a reset. */
export function isRateLimit(err: HttpError): boolean {
  const headers = err.response?.headers ?? {};
  return (
    err.status === 429 ||
    (err.status === 403 && (headers['retry-after'] !== undefined || headers['x-ratelimit-remaining'] === '0'))
  );
}

function backoff(limits: ApiLimits, attempt: number): number {
  return limits.backoffMs * 2 ** (attempt - 1);
}

function describe(err: HttpError): string {
  const message = (err.message ?? 'failed').split('\n')[0]!.slice(0, 200);
  // Octokit gives network errors status 500 too; only an answer has a real one.
  return err.response && err.status !== undefined ? `HTTP ${err.status}: ${message}` : message;
}

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
