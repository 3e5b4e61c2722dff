import { afterEach, describe, expect, it } from 'vitest';
import { judgeEnvFromInputs } from '../src/action/judge-env.js';
import { askJudge, type JudgeAsk } from '../src/claims/ask-judge.js';
import { MAX_BODY_BYTES } from '../src/claims/judge-client.js';
import { judgeEndpoint, spendBudget, type JudgeEndpoint } from '../src/claims/judge-endpoint.js';
import { JUDGE_PROMPT } from '../src/claims/judge-prompt.js';
import { estimateRequest, usd } from '../src/claims/judge-spend.js';
import { judgmentKey } from '../src/claims/judgment-key.js';
import { InputError } from '../src/errors.js';
import { JudgeServer } from './helpers/judge-server.js';

const MODEL = 'judge-model-2024-07-18';
const now = () => new Date('2026-12-07T08:00:00.000Z');

const servers: JudgeServer[] = [];
async function server(): Promise<JudgeServer> {
  const s = await new JudgeServer().start();
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function endpoint(s: JudgeServer, change: Partial<JudgeEndpoint> = {}): JudgeEndpoint {
  return {
    baseUrl: s.baseUrl,
    apiKey: 'sk-test-0123456789abcdef',
    model: MODEL,
    maxCalls: 200,
    concurrency: 1,
    perMinute: 10_000,
    timeoutMs: 5_000,
    retries: 2,
    backoffMs: 10,
    budgetMs: 30_000,
    ...change,
  };
}

function asks(n: number): JudgeAsk[] {
  return Array.from({ length: n }, (_, i) => {
    const question = { question: `q${i}`, claim: `claim ${i}`, fact: `fact ${i}` };
    return { key: judgmentKey(question, MODEL, JUDGE_PROMPT), question };
  });
}

describe("the judge's estimate of a request", () => {
  it('is four characters (code points) a token rounded up per message, three a message, three for the reply, and max_tokens out', () => {
    const estimate = estimateRequest([
      { role: 'system', content: '12345678' }, // 2 tokens
      { role: 'user', content: 'héllo' }, // 5 code points: 2 tokens
    ]);
    // 3 (reply) + (3 + 2) + (3 + 2) in; out is JUDGE_MAX_TOKENS, 8.
    expect(estimate).toEqual({ tokensIn: 13, tokensOut: 8 });
    expect(estimateRequest([{ role: 'user', content: '😀😀😀😀😀' }])).toEqual({ tokensIn: 8, tokensOut: 8 });
  });

  it('writes dollars with six decimals at most, trailing zeros dropped', () => {
    expect([usd(0), usd(0.000306), usd(1.5), usd(10), usd(0.0000004)]).toEqual([
      '0',
      '0.000306',
      '1.5',
      '10',
      '0',
    ]);
  });
});

describe("the judge's usage, read from the answers", () => {
  it('sums prompt_tokens and completion_tokens; an answer without usage is counted apart, not as 0', async () => {
    const s = await server();
    s.usage = { prompt_tokens: 120, completion_tokens: 2 };
    const reported = await askJudge(endpoint(s), asks(3), now);
    expect(reported.spend).toEqual({ requests: 3, tokensIn: 360, tokensOut: 6, withoutUsage: 0 });

    s.usage = null;
    const silent = await askJudge(endpoint(s), asks(2), now);
    expect(silent.spend).toEqual({ requests: 2, tokensIn: 0, tokensOut: 0, withoutUsage: 2 });
  });

  it('counts the usage of a malformed answer (billed all the same), not that of a 500', async () => {
    const s = await server();
    s.failures = [
      {
        status: 500,
        body: { error: { message: 'boom' }, usage: { prompt_tokens: 999, completion_tokens: 9 } },
      },
      {
        status: 200,
        body: {
          choices: [{ message: { content: 'I think so' } }],
          usage: { prompt_tokens: 50, completion_tokens: 4 },
        },
      },
    ];
    const run = await askJudge(endpoint(s), asks(1), now);
    expect(run.unjudged.map((u) => u.reason)).toEqual(['malformed']);
    expect(run.spend).toEqual({ requests: 2, tokensIn: 50, tokensOut: 4, withoutUsage: 0 });
  });

  it('reads at most MAX_BODY_BYTES of an answer: a bigger one is malformed, not read whole', async () => {
    const s = await server();
    expect(MAX_BODY_BYTES).toBe(65_536);
    s.failures = [{ status: 200, body: `{"choices":[{"message":{"content":"${'x'.repeat(2_000_000)}"}}]}` }];
    const run = await askJudge(endpoint(s), asks(1), now);
    expect(run.unjudged).toEqual([
      {
        key: asks(1)[0]!.key,
        reason: 'malformed',
        detail: 'the answer is over 64 KiB, not read further; a verdict is a few tokens',
      },
    ]);
    expect(run.spend).toEqual({ requests: 1, tokensIn: 0, tokensOut: 0, withoutUsage: 1 });
  });
});

describe("budgets on the judge's tokens and cost", () => {
  it('a token budget of 250 with 101 tokens an answer sends exactly 3 requests; the rest are unjudged (budget)', async () => {
    const s = await server();
    s.usage = { prompt_tokens: 100, completion_tokens: 1 };
    const run = await askJudge(endpoint(s, { maxTokens: 250 }), asks(5), now);
    // Counted before each request: 0, 101, 202 are below 250 and are sent; 303 is not.
    expect(s.requests).toHaveLength(3);
    expect(run.judged).toHaveLength(3);
    const detail = 'not sent: 250 tokens is the budget (GROUNDGATE_JUDGE_MAX_TOKENS); 303 counted';
    expect(run.unjudged).toEqual(
      asks(5)
        .slice(3)
        .map((a) => ({ key: a.key, reason: 'budget', detail })),
    );
    expect(run.spend).toEqual({ requests: 3, tokensIn: 300, tokensOut: 3, withoutUsage: 0 });
  });

  it('a cost budget of $0.0003 at $1 in / $2 out per million, 100 + 1 tokens an answer, sends exactly 3', async () => {
    const s = await server();
    s.usage = { prompt_tokens: 100, completion_tokens: 1 };
    const price = { input: 1, output: 2 };
    const run = await askJudge(endpoint(s, { maxCostUsd: 0.0003 }), asks(5), now, price);
    // $0.000102 an answer: 0.000204 < 0.0003 sends the third, 0.000306 stops.
    expect(s.requests).toHaveLength(3);
    expect(run.unjudged.map((u) => u.detail)).toEqual([
      'not sent: $0.0003 is the budget (GROUNDGATE_JUDGE_MAX_COST_USD); $0.000306 counted',
      'not sent: $0.0003 is the budget (GROUNDGATE_JUDGE_MAX_COST_USD); $0.000306 counted',
    ]);
  });

  it('requests in flight count at their estimate: a 1-token budget with 4 at a time sends one request, not 4', async () => {
    const s = await server();
    s.usage = { prompt_tokens: 100, completion_tokens: 1 };
    s.delayMs = 50;
    const run = await askJudge(endpoint(s, { maxTokens: 1, concurrency: 4 }), asks(4), now);
    expect(s.requests).toHaveLength(1);
    expect(run.spend).toEqual({ requests: 1, tokensIn: 100, tokensOut: 1, withoutUsage: 0 });
    expect(run.unjudged.map((u) => u.reason)).toEqual(['budget', 'budget', 'budget']);
  });

  it('an answer without usage counts at its estimate: a 1-token budget sends one request, not all', async () => {
    const s = await server();
    const run = await askJudge(endpoint(s, { maxTokens: 1 }), asks(4), now);
    expect(s.requests).toHaveLength(1);
    expect(run.unjudged.map((u) => u.reason)).toEqual(['budget', 'budget', 'budget']);
    const { tokensIn, tokensOut } = estimateRequest([
      { role: 'system', content: 'x' },
      { role: 'user', content: 'y' },
    ]);
    // The estimate of the real prompt is larger than that of two one-character messages.
    expect(run.unjudged[0]!.detail).toMatch(
      /^not sent: 1 tokens is the budget \(GROUNDGATE_JUDGE_MAX_TOKENS\); \d+ counted$/,
    );
    expect(Number(/(\d+) counted/.exec(run.unjudged[0]!.detail)![1])).toBeGreaterThan(tokensIn + tokensOut);
  });

  it("the Action's judge-max-tokens and judge-max-cost-usd inputs set the variables", () => {
    const inputs: Record<string, string> = { 'judge-max-tokens': '5000', 'judge-max-cost-usd': ' 0.5 ' };
    const env: NodeJS.ProcessEnv = {};
    judgeEnvFromInputs((name) => inputs[name] ?? '', env);
    expect(env).toEqual({ GROUNDGATE_JUDGE_MAX_TOKENS: '5000', GROUNDGATE_JUDGE_MAX_COST_USD: '0.5' });
  });

  it('GROUNDGATE_JUDGE_MAX_TOKENS and _MAX_COST_USD are read with or without a key; bad values name the variable', () => {
    expect(spendBudget({})).toEqual({ maxCalls: 200 });
    expect(
      spendBudget({
        GROUNDGATE_JUDGE_MAX_CALLS: '7',
        GROUNDGATE_JUDGE_MAX_TOKENS: '50000',
        GROUNDGATE_JUDGE_MAX_COST_USD: '0.25',
      }),
    ).toEqual({ maxCalls: 7, maxTokens: 50_000, maxCostUsd: 0.25 });
    const { endpoint: e } = judgeEndpoint({
      GROUNDGATE_JUDGE_API_KEY: 'k',
      GROUNDGATE_JUDGE_MODEL: MODEL,
      GROUNDGATE_JUDGE_BASE_URL: 'http://127.0.0.1:1/v1',
      GROUNDGATE_JUDGE_MAX_TOKENS: '900',
    });
    expect([e?.maxTokens, e?.maxCostUsd]).toEqual([900, undefined]);
    expect(() => spendBudget({ GROUNDGATE_JUDGE_MAX_TOKENS: '0' })).toThrow(
      new InputError(
        undefined,
        'GROUNDGATE_JUDGE_MAX_TOKENS="0": expected a whole number of tokens from 1 to 999999999 (unset: no token budget)',
      ),
    );
    expect(() => spendBudget({ GROUNDGATE_JUDGE_MAX_COST_USD: '$5' })).toThrow(
      'GROUNDGATE_JUDGE_MAX_COST_USD="$5": expected an amount in US dollars above 0 (e.g. 0.50), at most six decimals (unset: no cost budget)',
    );
  });
});
