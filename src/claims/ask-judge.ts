import { seconds } from '../github/api-limits.js';
import { postCompletion, type Attempt } from './judge-client.js';
import type { Price } from '../cost/pricing.js';
import type { JudgeEndpoint } from './judge-endpoint.js';
import { JudgePace, sleep } from './judge-pace.js';
import { JUDGE_PROMPT, judgeMessages } from './judge-prompt.js';
import {
  budgetReached,
  estimateRequest,
  NO_SPEND,
  withUsage,
  type JudgeSpend,
  type SpendBudget,
  type TokenPair,
} from './judge-spend.js';
import type { Judgment } from './judgments-cache.js';
import type { JudgeQuestion } from './judgment-key.js';

export interface JudgeAsk {
  key: string;
  question: JudgeQuestion;
}

/**
 * A 429 is the endpoint pacing its callers, not a fault: one ask waits it out up to this many times (five
 * doubling waits from a 1 s backoff reach 31 s, half of a per-minute window), then is unjudged.
 */
export const RATE_LIMIT_RETRIES = 5;
/**
 * 429s in a row over the whole run, with no other answer between them, after which nothing more is sent: an
 * endpoint that only ever answers 429 (a spent quota) costs this many requests, not the time budget.
 */
export const RATE_LIMIT_STREAK = 4 * RATE_LIMIT_RETRIES;

/**
 * Why an ask has no verdict: `budget` (past GROUNDGATE_JUDGE_MAX_CALLS, or the token or cost budget reached),
 * `time` (the time budget ran out before it could be sent or retried), `rate-limit` (a 429 asked for a
 * longer wait than the time left, the ask was rate-limited RATE_LIMIT_RETRIES + 1 times, or the run had
 * RATE_LIMIT_STREAK 429s in a row), `failed` (5xx, network errors or timeouts on every attempt), `refused`
 * (another 4xx; after a 401, 403 or 404 the asks not yet sent are not sent), `malformed` (an answer that is
 * not one of the three words).
 */
export type UnjudgedReason = 'budget' | 'time' | 'rate-limit' | 'failed' | 'refused' | 'malformed';

export interface Unjudged {
  key: string;
  reason: UnjudgedReason;
  /** One line, never the key: what happened, for the report. */
  detail: string;
}

export interface JudgeRun {
  /** In the order of the asks, one per key. */
  judged: Judgment[];
  /** In the order of the asks, one per key; every key asked is in one list or the other, none is dropped. */
  unjudged: Unjudged[];
  /** HTTP requests sent (retries included) and the tokens their answers reported. */
  spend: JudgeSpend;
}

/**
 * Asks the judge each question once (asks of one key are one; the first `maxCalls` keys in the order given
 * are sent, the rest are unjudged), `concurrency` at a time, at most `perMinute` requests started a minute,
 * within `budgetMs`. 5xx, network errors and timeouts are retried `retries` times with doubling backoff; a
 * 429 holds every request for the wait it names (at least the doubling backoff) when that fits the time
 * left, RATE_LIMIT_RETRIES times an ask, and stops the run after RATE_LIMIT_STREAK in a row. A request is
 * sent only while the tokens counted so far are below the endpoint's token budget and their cost at `price`
 * below its cost budget (budgetReached): the answers' reported usage, and the estimate (estimateRequest) of
 * each request in flight or answered without usage. `now` dates the judgments (`recorded_at`).
 */
export async function askJudge(
  endpoint: JudgeEndpoint,
  given: readonly JudgeAsk[],
  now: () => Date = () => new Date(),
  price?: Price,
): Promise<JudgeRun> {
  // One key, one verdict: two requests for it could disagree, and the judgments file takes one.
  const asks = [...new Map(given.map((a) => [a.key, a])).values()];
  const deadline = Date.now() + endpoint.budgetMs;
  const run: RunState = {
    endpoint,
    deadline,
    pace: new JudgePace(endpoint.perMinute, deadline),
    now,
    budget: { maxTokens: endpoint.maxTokens, maxCostUsd: endpoint.maxCostUsd, price },
    spend: NO_SPEND,
    estimated: { tokensIn: 0, tokensOut: 0 },
    rateLimited: 0,
  };
  const outcomes: (Judgment | Unjudged)[] = new Array(asks.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < asks.length; i = next++) {
      outcomes[i] =
        i < endpoint.maxCalls
          ? await judgeOne(run, asks[i]!)
          : {
              key: asks[i]!.key,
              reason: 'budget',
              detail: `not sent: ${endpoint.maxCalls} calls is the budget (GROUNDGATE_JUDGE_MAX_CALLS)`,
            };
    }
  };
  await Promise.all(Array.from({ length: Math.min(endpoint.concurrency, asks.length) }, worker));

  const judged: Judgment[] = [];
  const unjudged: Unjudged[] = [];
  for (const o of outcomes) {
    if ('verdict' in o) judged.push(o);
    else unjudged.push(o);
  }
  return { judged, unjudged, spend: run.spend };
}

/** What the workers of one run share. */
interface RunState {
  endpoint: JudgeEndpoint;
  deadline: number;
  pace: JudgePace;
  now: () => Date;
  budget: SpendBudget;
  spend: JudgeSpend;
  /** The estimated tokens of the requests in flight and of the answers that reported no usage. */
  estimated: TokenPair;
  /** 429s answered in a row, whichever asks they were for. */
  rateLimited: number;
  /** Why no more requests are sent: an answer that would be the same for every ask. */
  stoppedBy?: { reason: UnjudgedReason; detail: string };
}

/** One ask, from its first attempt to its verdict or the reason it has none. */
async function judgeOne(run: RunState, ask: JudgeAsk): Promise<Judgment | Unjudged> {
  const { endpoint, deadline, pace } = run;
  const messages = judgeMessages(ask.question);
  const estimate = estimateRequest(messages);
  const unjudged = (reason: UnjudgedReason, detail: string): Unjudged => ({ key: ask.key, reason, detail });
  const spent = `the ${seconds(endpoint.budgetMs)} time budget (GROUNDGATE_JUDGE_BUDGET_MS) was spent`;
  let failures = 0;
  let rateLimits = 0;
  for (;;) {
    if (run.stoppedBy) return unjudged(run.stoppedBy.reason, run.stoppedBy.detail);
    const reached = budgetReached(counted(run), run.budget);
    if (reached) {
      run.stoppedBy = { reason: 'budget', detail: reached };
      return unjudged('budget', reached);
    }
    // Held before the wait for a start, so that workers waiting beside this one count it.
    run.estimated = plus(run.estimated, estimate, 1);
    const notSent = (detail: string) => {
      run.estimated = plus(run.estimated, estimate, -1);
      return unjudged('time', detail);
    };
    if (!(await pace.take()))
      return notSent(
        Date.now() >= deadline
          ? `not sent: ${spent}`
          : `not sent: ${endpoint.perMinute} requests a minute (GROUNDGATE_JUDGE_RPM) and the waits rate limits asked for leave no start within the ${seconds(endpoint.budgetMs)} time budget`,
      );
    const left = deadline - Date.now();
    if (left <= 0) return notSent(`not sent: ${spent}`);
    run.spend = { ...run.spend, requests: run.spend.requests + 1 };
    const attempt: Attempt = await postCompletion(endpoint, messages, Math.min(endpoint.timeoutMs, left));
    const answered = attempt.kind === 'answer' || attempt.kind === 'malformed';
    // An answer without usage stays counted at its estimate: an endpoint that reports none is still bounded.
    if (!answered || attempt.usage) run.estimated = plus(run.estimated, estimate, -1);
    if (answered) run.spend = withUsage(run.spend, attempt.usage);
    run.rateLimited = attempt.kind === 'rate-limited' ? run.rateLimited + 1 : 0;
    switch (attempt.kind) {
      case 'answer':
        return {
          key: ask.key,
          verdict: attempt.verdict,
          model: endpoint.model,
          model_returned: attempt.model_returned,
          fingerprint: attempt.fingerprint,
          prompt: JUDGE_PROMPT.id,
          recorded_at: run.now().toISOString(),
        };
      case 'malformed':
        return unjudged('malformed', attempt.detail);
      case 'refused':
        if (attempt.endpointWide)
          run.stoppedBy ??= {
            reason: 'refused',
            detail: `not sent: an earlier request was refused (${attempt.detail})`,
          };
        return unjudged('refused', attempt.detail);
      case 'rate-limited': {
        rateLimits++;
        if (run.rateLimited >= RATE_LIMIT_STREAK)
          run.stoppedBy ??= {
            reason: 'rate-limit',
            detail: `not sent: the endpoint answered ${RATE_LIMIT_STREAK} requests in a row with 429 (${attempt.detail})`,
          };
        if (rateLimits > RATE_LIMIT_RETRIES || run.stoppedBy)
          return unjudged('rate-limit', `${attempt.detail} (rate-limited ${rateLimits} times)`);
        const wait = Math.max(attempt.waitMs ?? 0, endpoint.backoffMs * 2 ** (rateLimits - 1));
        const remaining = deadline - Date.now();
        if (wait >= remaining)
          return unjudged(
            'rate-limit',
            `${attempt.detail} (asks to wait ${seconds(wait)}; ${seconds(Math.max(0, remaining))} left of the ${seconds(endpoint.budgetMs)} time budget)`,
          );
        pace.pause(Date.now() + wait);
        break;
      }
      case 'retry': {
        failures++;
        // An attempt cut short by the budget rather than by its own timeout says so.
        if (left < endpoint.timeoutMs && Date.now() >= deadline)
          return unjudged('time', `no answer before ${spent} (${attempts(failures)})`);
        if (failures > endpoint.retries)
          return unjudged('failed', `${attempt.detail} (${attempts(failures)})`);
        const wait = endpoint.backoffMs * 2 ** (failures - 1);
        if (Date.now() + wait >= deadline)
          return unjudged('time', `${attempt.detail}; not retried: ${spent}`);
        await sleep(wait);
      }
    }
  }
}

/** What the budgets are held to: the tokens reported, and the estimates of those not (yet) reported. */
function counted(run: RunState): TokenPair {
  return plus(run.estimated, { tokensIn: run.spend.tokensIn, tokensOut: run.spend.tokensOut }, 1);
}

function plus(a: TokenPair, b: TokenPair, sign: 1 | -1): TokenPair {
  return { tokensIn: a.tokensIn + sign * b.tokensIn, tokensOut: a.tokensOut + sign * b.tokensOut };
}

const attempts = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;
