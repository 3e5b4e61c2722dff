import { afterEach, describe, expect, it } from 'vitest';
import { askJudge, RATE_LIMIT_RETRIES, RATE_LIMIT_STREAK, type JudgeAsk } from '../src/claims/ask-judge.js';
import { retryAfterMs } from '../src/claims/judge-client.js';
import { redacted, redactedLocation } from '../src/claims/judge-redact.js';
import type { JudgeEndpoint } from '../src/claims/judge-endpoint.js';
import { nextStart } from '../src/claims/judge-pace.js';
import { JUDGE_PROMPT } from '../src/claims/judge-prompt.js';
import { judgmentKey } from '../src/claims/judgment-key.js';
import { JudgeServer } from './helpers/judge-server.js';

const KEY = 'sk-test-0123456789abcdef';
const MODEL = 'judge-model-2024-07-18';
const AT = new Date('2026-11-28T13:30:00.000Z');
const now = () => AT;

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
    apiKey: KEY,
    model: MODEL,
    maxCalls: 200,
    concurrency: 4,
    perMinute: 10_000,
    timeoutMs: 5_000,
    retries: 2,
    backoffMs: 10,
    budgetMs: 30_000,
    ...change,
  };
}

/** n asks "claim i" × "fact i", keyed as the suite keys them. */
function asks(n: number): JudgeAsk[] {
  return Array.from({ length: n }, (_, i) => {
    const question = { question: `q${i}`, claim: `claim ${i}`, fact: `fact ${i}` };
    return { key: judgmentKey(question, MODEL, JUDGE_PROMPT), question };
  });
}

describe('askJudge against a stand-in chat-completions server (the real HTTP path)', () => {
  it('sends one request per ask with temperature 0, the fixed seed, the pinned model and the key; reads each verdict', async () => {
    const s = await server();
    s.label('claim 0', 'fact 0', 'SUPPORTED').label('claim 1', 'fact 1', ' unclear\n');
    const run = await askJudge(endpoint(s), asks(3), now);
    const [a0, a1, a2] = asks(3);
    expect(run).toEqual({
      judged: [
        {
          key: a0!.key,
          verdict: 'SUPPORTED',
          model: MODEL,
          model_returned: 'stand-in-judge-2026-11-28',
          fingerprint: 'fp_stand_in',
          prompt: 'groundgate/claim-support@1',
          recorded_at: '2026-11-28T13:30:00.000Z',
        },
        expect.objectContaining({ key: a1!.key, verdict: 'UNCLEAR' }),
        expect.objectContaining({ key: a2!.key, verdict: 'NOT_SUPPORTED' }),
      ],
      unjudged: [],
      spend: { requests: 3, tokensIn: 0, tokensOut: 0, withoutUsage: 3 },
    });
    expect(s.requests).toHaveLength(3);
    for (const r of s.requests) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/v1/chat/completions');
      expect(r.authorization).toBe(`Bearer ${KEY}`);
      expect(r.body).toMatchObject({ model: MODEL, temperature: 0, seed: 47, max_tokens: 8 });
      expect(r.body!.messages!.map((m) => m.role)).toEqual(['system', 'user']);
    }
    expect(s.requests.map((r) => r.values!.claim).sort()).toEqual(['claim 0', 'claim 1', 'claim 2']);
  });

  it('asks of one key are sent once', async () => {
    const s = await server();
    const [a0, a1] = asks(2);
    const run = await askJudge(endpoint(s), [a0!, a1!, a0!, a1!, a0!], now);
    expect(run.spend.requests).toBe(2);
    expect(run.judged.map((j) => j.key)).toEqual([a0!.key, a1!.key]);
  });

  it('a fingerprint the endpoint does not send is null', async () => {
    const s = await server();
    s.fingerprint = null;
    const run = await askJudge(endpoint(s), asks(1), now);
    expect(run.judged[0]!.fingerprint).toBeNull();
  });

  it('retries a 500 and a slow answer, and gives up after the retries with the reason', async () => {
    const s = await server();
    s.failures = [
      { status: 500, body: { error: { message: 'The server had an error' } } },
      { status: 200, delayMs: 400, body: {} },
    ];
    const recovered = await askJudge(endpoint(s, { concurrency: 1, timeoutMs: 150 }), asks(1), now);
    expect(recovered.judged.map((j) => j.verdict)).toEqual(['NOT_SUPPORTED']);
    expect(recovered.spend.requests).toBe(3);

    s.failures = Array(3).fill({ status: 503, body: { error: { message: 'Overloaded' } } });
    const failed = await askJudge(endpoint(s, { concurrency: 1 }), asks(1), now);
    expect(failed).toEqual({
      judged: [],
      unjudged: [{ key: asks(1)[0]!.key, reason: 'failed', detail: 'HTTP 503: Overloaded (3 attempts)' }],
      spend: { requests: 3, tokensIn: 0, tokensOut: 0, withoutUsage: 0 },
    });

    s.failures = Array(3).fill({ status: 200, delayMs: 400, body: {} });
    const slow = await askJudge(endpoint(s, { concurrency: 1, timeoutMs: 100 }), asks(1), now);
    expect(slow.unjudged).toEqual([
      { key: asks(1)[0]!.key, reason: 'failed', detail: 'no answer within 0.1 s (3 attempts)' },
    ]);
  });

  it('waits out a 429 whose Retry-After fits the time left; one that does not leaves the ask unjudged at once', async () => {
    const s = await server();
    s.failures = [
      {
        status: 429,
        headers: { 'retry-after-ms': '50' },
        body: { error: { message: 'Rate limit reached' } },
      },
    ];
    const waited = await askJudge(endpoint(s, { concurrency: 1 }), asks(2), now);
    expect(waited.judged).toHaveLength(2);
    expect(waited.spend.requests).toBe(3);

    s.failures = [
      { status: 429, headers: { 'retry-after': '120' }, body: { error: { message: 'Rate limit reached' } } },
    ];
    const gaveUp = await askJudge(endpoint(s, { concurrency: 1, budgetMs: 5_000 }), asks(1), now);
    expect(gaveUp).toEqual({
      judged: [],
      unjudged: [
        {
          key: asks(1)[0]!.key,
          reason: 'rate-limit',
          detail: expect.stringMatching(
            /^HTTP 429: Rate limit reached \(asks to wait 120 s; [45](\.\d)? s left of the 5 s time budget\)$/,
          ),
        },
      ],
      spend: { requests: 1, tokensIn: 0, tokensOut: 0, withoutUsage: 0 },
    });
  });

  it('a 429 is waited out 5 times an ask, then the ask is unjudged; 20 in a row stop the run', async () => {
    expect([RATE_LIMIT_RETRIES, RATE_LIMIT_STREAK]).toEqual([5, 20]);
    const s = await server();
    const limited = {
      status: 429,
      headers: { 'retry-after': '0' },
      body: { error: { message: 'Rate limit reached' } },
    };
    // Five 429s, then an answer: the sixth request is the ask's last chance and it is answered.
    s.failures = Array(5).fill(limited);
    const fifth = await askJudge(endpoint(s, { concurrency: 1, backoffMs: 1 }), asks(1), now);
    expect([fifth.spend.requests, fifth.judged.length]).toEqual([6, 1]);

    s.failures = Array(6).fill(limited);
    const sixth = await askJudge(endpoint(s, { concurrency: 1, backoffMs: 1 }), asks(1), now);
    expect(sixth).toEqual({
      judged: [],
      unjudged: [
        {
          key: asks(1)[0]!.key,
          reason: 'rate-limit',
          detail: 'HTTP 429: Rate limit reached (rate-limited 6 times)',
        },
      ],
      spend: { requests: 6, tokensIn: 0, tokensOut: 0, withoutUsage: 0 },
    });

    // An endpoint that answers 429 forever, with a 10-minute budget: 6 + 6 + 6 requests for the first three
    // asks, the fourth's second is the 20th 429 in a row, and nothing more is sent.
    s.failures = Array(1000).fill(limited);
    const forever = await askJudge(
      endpoint(s, { concurrency: 1, backoffMs: 1, budgetMs: 600_000 }),
      asks(10),
      now,
    );
    expect(forever.spend.requests).toBe(20);
    expect(forever.judged).toEqual([]);
    const stopped =
      'not sent: the endpoint answered 20 requests in a row with 429 (HTTP 429: Rate limit reached)';
    expect(forever.unjudged.map((u) => [u.reason, u.detail])).toEqual([
      ...Array(3).fill(['rate-limit', 'HTTP 429: Rate limit reached (rate-limited 6 times)']),
      ['rate-limit', 'HTTP 429: Rate limit reached (rate-limited 2 times)'],
      ...Array(6).fill(['rate-limit', stopped]),
    ]);
  });

  it('an answer that is not one of the three words is unjudged (malformed), not retried', async () => {
    const s = await server();
    s.label('claim 2', 'fact 2', 'Supported.');
    s.failures = [
      { status: 200, body: '<html>gateway</html>' },
      { status: 200, body: { choices: [] } },
    ];
    const run = await askJudge(endpoint(s, { concurrency: 1 }), asks(3), now);
    expect(run.spend.requests).toBe(3);
    expect(run.judged).toEqual([]);
    expect(run.unjudged.map((u) => [u.reason, u.detail])).toEqual([
      ['malformed', 'the answer is not JSON: "<html>gateway</html>"'],
      ['malformed', 'the answer is not a chat completion (no choices[0].message.content)'],
      ['malformed', 'the model answered "Supported."; expected SUPPORTED, NOT_SUPPORTED or UNCLEAR'],
    ]);
  });

  it('past GROUNDGATE_JUDGE_MAX_CALLS the asks are unjudged ("budget"), never dropped', async () => {
    const s = await server();
    const all = asks(5);
    const run = await askJudge(endpoint(s, { maxCalls: 2 }), all, now);
    expect(run.spend.requests).toBe(2);
    expect(run.judged.map((j) => j.key)).toEqual([all[0]!.key, all[1]!.key]);
    expect(run.unjudged).toEqual(
      all.slice(2).map((a) => ({
        key: a.key,
        reason: 'budget',
        detail: 'not sent: 2 calls is the budget (GROUNDGATE_JUDGE_MAX_CALLS)',
      })),
    );
    const none = await askJudge(endpoint(s, { maxCalls: 0 }), all, now);
    expect([none.spend.requests, none.judged.length, none.unjudged.length]).toEqual([0, 0, 5]);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    for (const concurrency of [2, 4]) {
      const s = await server();
      s.delayMs = 100;
      const run = await askJudge(endpoint(s, { concurrency }), asks(8), now);
      expect(run.judged).toHaveLength(8);
      expect(s.maxInFlight).toBe(concurrency);
    }
  });

  it('a request that would start past the requests/minute window and the time budget is not sent', async () => {
    const s = await server();
    const run = await askJudge(endpoint(s, { perMinute: 1, concurrency: 2, budgetMs: 5_000 }), asks(3), now);
    expect(run.spend.requests).toBe(1);
    expect(run.judged).toHaveLength(1);
    expect(run.unjudged.map((u) => [u.reason, u.detail])).toEqual(
      Array(2).fill([
        'time',
        'not sent: 1 requests a minute (GROUNDGATE_JUDGE_RPM) and the waits rate limits asked for leave no start within the 5 s time budget',
      ]),
    );
  });

  it('an endpoint that never answers costs the time budget, no more: every ask is unjudged, none dropped', async () => {
    const s = await server();
    s.hang = true;
    const all = asks(3);
    const run = await askJudge(endpoint(s, { concurrency: 1, timeoutMs: 100, budgetMs: 250 }), all, now);
    expect(run.judged).toEqual([]);
    expect(run.unjudged.map((u) => u.key)).toEqual(all.map((a) => a.key));
    // Where the budget cuts in depends on the machine's speed; what it leads to does not.
    const budget = 'the 0.3 s time budget \\(GROUNDGATE_JUDGE_BUDGET_MS\\) was spent';
    const details = new RegExp(
      `^(no answer within 0\\.1 s \\(3 attempts\\)|no answer within 0\\.1 s; not retried: ${budget}|no answer before ${budget} \\([123] attempts?\\)|not sent: ${budget})$`,
    );
    for (const u of run.unjudged) {
      expect(['failed', 'time']).toContain(u.reason);
      expect(u.detail).toMatch(details);
    }
    expect(run.unjudged[2]!.reason).toBe('time');
    expect(run.spend.requests).toBeLessThanOrEqual(5);
  });

  it('a 401 stops the run (the key is wrong for every ask) and the key a server echoes is masked', async () => {
    const s = await server();
    s.failures = [{ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.` } } }];
    const run = await askJudge(endpoint(s, { concurrency: 1 }), asks(3), now);
    expect(run.spend.requests).toBe(1);
    expect(run.unjudged.map((u) => [u.reason, u.detail])).toEqual([
      ['refused', 'HTTP 401: Incorrect API key provided: ***.'],
      ['refused', 'not sent: an earlier request was refused (HTTP 401: Incorrect API key provided: ***.)'],
      ['refused', 'not sent: an earlier request was refused (HTTP 401: Incorrect API key provided: ***.)'],
    ]);
    expect(JSON.stringify(run)).not.toContain(KEY);
  });

  it('a 400 for one ask is that ask’s; a parameter the model refuses (temperature, max_tokens) stops the run', async () => {
    const s = await server();
    s.failures = [
      { status: 400, body: { error: { message: 'Invalid prompt: flagged', code: 'invalid_prompt' } } },
    ];
    const one = await askJudge(endpoint(s, { concurrency: 1 }), asks(2), now);
    expect([one.spend.requests, one.judged.length, one.unjudged]).toEqual([
      2,
      1,
      [{ key: asks(1)[0]!.key, reason: 'refused', detail: 'HTTP 400: Invalid prompt: flagged' }],
    ]);
    const unsupported = {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    };
    s.failures = [{ status: 400, body: { error: unsupported } }];
    const all = await askJudge(endpoint(s, { concurrency: 1 }), asks(3), now);
    expect(all.spend.requests).toBe(1);
    expect(all.unjudged.map((u) => u.detail)).toEqual([
      `HTTP 400: ${unsupported.message}`,
      `not sent: an earlier request was refused (HTTP 400: ${unsupported.message})`,
      `not sent: an earlier request was refused (HTTP 400: ${unsupported.message})`,
    ]);
  });

  it('what the answer says ran (model, fingerprint) is redacted before it is recorded', async () => {
    const s = await server();
    s.model = `gpt-x for ${KEY}`;
    s.fingerprint = `fp_${KEY.slice(5, 15)}`;
    const run = await askJudge(endpoint(s), asks(1), now);
    expect(run.judged.map((j) => [j.model_returned, j.fingerprint])).toEqual([['gpt-x for ***', 'fp_***']]);
  });

  it('a redirect is not followed: the key goes to the configured host only, and the run stops', async () => {
    const s = await server();
    s.failures = [{ status: 307, headers: { location: `${s.url}/elsewhere` }, body: '' }];
    const run = await askJudge(endpoint(s, { concurrency: 1 }), asks(2), now);
    expect(run.unjudged.map((u) => [u.reason, u.detail])).toEqual([
      [
        'refused',
        `HTTP 307: redirects to ${s.url}/elsewhere, not followed (the key goes to GROUNDGATE_JUDGE_BASE_URL only; set it to where the API is)`,
      ],
      [
        'refused',
        expect.stringMatching(/^not sent: an earlier request was refused \(HTTP 307: redirects to /),
      ],
    ]);
    expect(s.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });
});

describe('what the endpoint says, redacted', () => {
  const SECRET = 'sk-SECRET-KEY-0123456789';

  it('masks the key, any run of 4 or more of its characters in any case, and no shorter run', () => {
    expect(redacted(`Incorrect API key provided: ${SECRET}.`, SECRET)).toBe(
      'Incorrect API key provided: ***.',
    );
    // OpenAI's partial echo: the first 8 and the last 4 characters.
    expect(redacted('Incorrect API key provided: sk-SECRE...6789. You can find…', SECRET)).toBe(
      'Incorrect API key provided: ***...***. You can find…',
    );
    expect(redacted('key sk-secret-key-01 is revoked', SECRET)).toBe('key *** is revoked');
    expect(redacted('the middle: KEY-, and 3 characters: sk- 789', SECRET)).toBe(
      'the middle: ***, and 3 characters: sk- 789',
    );
    // Two pieces side by side are one stretch of ***; a key shorter than 4 is masked whole.
    expect(redacted('x 6789sk-S y', SECRET)).toBe('x *** y');
    expect(redacted('abc abd', 'abc')).toBe('*** abd');
    // The whole key is masked whole, its public prefix (below) with it.
    expect(redacted('sk-proj-Abc123Def456Ghi789!', 'sk-proj-Abc123Def456Ghi789')).toBe('***!');
  });

  it("leaves a provider's public prefix (sk-proj-) alone when 16 characters or more follow it", () => {
    const proj = 'sk-proj-Abc123Def456Ghi789';
    expect(redacted(`Project proj_1 cannot use key sk-proj-Abc1****i789`, proj)).toBe(
      `Project proj_1 cannot use key sk-pr${'*'.repeat(10)}`,
    );
    // A short rest: the whole key is secret, its first words too.
    expect(redacted('project sk-proj-a1', 'sk-proj-a1b2c3')).toBe('***ect ***');
  });

  it('names a URL by origin and path: no credentials, query or fragment', () => {
    expect(
      redacted('see https://user:pw@login.example/auth?api_key=sk-THE-SECRET-KEY#frag now', 'unrelated'),
    ).toBe('see https://login.example/auth now');
    expect(
      redactedLocation(`https://login.example/auth?api_key=${SECRET}`, 'http://127.0.0.1/v1', SECRET),
    ).toBe('https://login.example/auth');
    expect(redactedLocation(`/v2/${SECRET}/x?y=1`, 'http://127.0.0.1:9/v1', SECRET)).toBe(
      'http://127.0.0.1:9/v2/***/x',
    );
    expect(redactedLocation('http://[not a url', 'http://127.0.0.1/v1', SECRET)).toBe(
      'a Location that is not a URL',
    );
    expect(redactedLocation(null, 'http://127.0.0.1/v1', SECRET)).toBe('nowhere');
  });

  it('is one line without control characters, at most 240 characters, the key masked before the cut', () => {
    expect(redacted('a\r\n\tb\u001b[31mc\u2028d\u0000', SECRET)).toBe('a b [31mc d');
    const long = redacted(`${'x'.repeat(236)}${SECRET}`, SECRET);
    expect(long).toBe(`${'x'.repeat(236)}***`);
    const cut = redacted(`${'y'.repeat(238)}${SECRET}tail`, SECRET);
    expect(cut).toBe(`${'y'.repeat(238)}*…`);
    expect(redacted(`${'z'.repeat(5_000_000)}`, SECRET)).toHaveLength(240);
  });
});

describe('pacing', () => {
  it('at most perMinute starts in any 60 s, and none before a pause ends', () => {
    expect(nextStart([], 2, 0, 5)).toBe(5);
    expect(nextStart([0, 10_000], 3, 0, 30_000)).toBe(30_000);
    expect(nextStart([0, 10_000, 20_000], 2, 0, 30_000)).toBe(70_000);
    expect(nextStart([0, 10_000, 20_000], 3, 0, 30_000)).toBe(60_000);
    expect(nextStart([0, 10_000, 20_000], 3, 65_000, 30_000)).toBe(65_000);
    expect(nextStart([0], 1, 0, 90_000)).toBe(90_000);
  });

  it('reads the wait a 429 asks for from retry-after-ms, retry-after seconds or an HTTP date', () => {
    const at = Date.parse('2026-11-28T13:30:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), at)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), at)).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), at)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sat, 28 Nov 2026 13:30:07 GMT' }), at)).toBe(7_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), at)).toBeUndefined();
    expect(retryAfterMs(new Headers(), at)).toBeUndefined();
  });
});
