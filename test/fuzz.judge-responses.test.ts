import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { askJudge, RATE_LIMIT_RETRIES } from '../src/claims/ask-judge.js';
import { postCompletion } from '../src/claims/judge-client.js';
import type { JudgeEndpoint } from '../src/claims/judge-endpoint.js';
import { JUDGE_PROMPT, judgeMessages, VERDICTS } from '../src/claims/judge-prompt.js';
import { judgmentKey } from '../src/claims/judgment-key.js';
import { JUNK } from './helpers/junk.js';
import { REPO } from './helpers/tmp.js';

/**
 * Whatever a judge's endpoint answers (any status, headers such as retry-after and Location in every form,
 * bodies JSON or not, huge, or echoing the key whole or in pieces, or a fetch that fails with the key in its
 * cause), postCompletion and askJudge never throw, never wait past their bounds, and every detail is one line
 * within its limit holding no run of 4 characters of the key. fetch is stubbed at postCompletion's boundary:
 * a local server per input would be 10,000 servers a night.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const SEED = Number(process.env.FUZZ_SEED ?? 20261207) % 2 ** 31;
const HANG_MS = 10_000;

/** The longest detail postCompletion gives: "HTTP 5xx: " and 240 characters of what the endpoint said. */
const ATTEMPT_MAX = 250;
/** askJudge wraps one: "not sent: the endpoint answered 20 requests in a row with 429 (…)" is the longest. */
const UNJUDGED_MAX = ATTEMPT_MAX + 80;

/** The fixed wording details are made of: a key whose piece is a word of it could not be told from a leak. */
const WORDING = ['src/claims/judge-client.ts', 'src/claims/ask-judge.ts', 'src/github/api-limits.ts']
  .map((f) => readFileSync(path.join(REPO, f), 'utf8'))
  .join('\n')
  .toLowerCase();

/** Letters only: a digit of the key could be a number a detail states (a status, a wait). */
const keyArb = fc
  .stringMatching(/^[A-Za-z]{20,40}$/)
  .map((rest) => `sk-${rest}`)
  .filter((key) => pieces(key).every((p) => !WORDING.includes(p)));

function pieces(key: string): string[] {
  const folded = key.toLowerCase();
  return Array.from({ length: folded.length - 3 }, (_, i) => folded.slice(i, i + 4));
}

/** Text built from the key: whole, cut, its ends around an ellipsis (OpenAI's `sk-SECRE...6789`), recased. */
const echoArb = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(key),
    fc
      .tuple(fc.nat(key.length), fc.integer({ min: 4, max: key.length }))
      .map(([from, n]) => key.slice(Math.min(from, key.length - 4), Math.min(from, key.length - 4) + n)),
    fc
      .constantFrom('...', '…', '****', '*'.repeat(30))
      .map((dots) => `${key.slice(0, 8)}${dots}${key.slice(-4)}`),
    fc.constant(key.toUpperCase()),
    fc.constant(key.toLowerCase()),
  );

/** A text the endpoint may send: words, junk, URLs, the key's pieces, all mixed; now and then huge. */
const textArb = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .array(
          fc.oneof(
            fc.string({ maxLength: 12 }),
            fc.constantFrom(...JUNK, '\n', '\u2028', '\u001b[31m'),
            echoArb(key),
            fc.constantFrom(
              `https://u:${key}@login.example/auth?api_key=${key}#${key}`,
              `http://x/${key}?a=1`,
            ),
          ),
          { maxLength: 8 },
        )
        .map((parts) => parts.join(' ')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 500_000 }), echoArb(key))
        .map(([n, echo]) => `${'x'.repeat(n)}${echo}`),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  );

const bodyArb = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    textArb(key),
    textArb(key).map((message) => JSON.stringify({ error: { message, code: 'unsupported_parameter' } })),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    // A chat completion, one of the three words or any content, whose model and fingerprint may echo the key.
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom(...VERDICTS), textArb(key)),
          fc.option(fc.oneof(echoArb(key), textArb(key))),
          fc.option(echoArb(key)),
        )
        .map(([content, model, fp]) =>
          JSON.stringify({ model, system_fingerprint: fp, choices: [{ message: { content } }] }),
        ),
    },
  );

const retryAfterArb = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '0.01',
    '1.5',
    '-1',
    'soon',
    '1e3',
    '99999999999',
    ' 0 ',
    'Thu, 01 Jan 1970 00:00:00 GMT',
  ),
  fc.nat(100).map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
);

const locationArb = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      `https://login.example/auth?api_key=${key}&next=%2F`,
      `/v1/${key}/x?y=${key}`,
      `//evil.example/${key}`,
      'http://[not a url',
      `https://${key}:${key}@login.example/${key.slice(3, 12)}#${key}`,
      `https://${'a'.repeat(100_000)}.example/?k=${key}`,
    ),
    textArb(key),
  );

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
  /** fetch itself fails, with this message as its cause. */
  throws?: string;
}

const answerArb = (key: string): fc.Arbitrary<Answer> =>
  fc.record({
    status: fc.oneof(
      fc.constantFrom(200, 200, 200, 204, 301, 302, 304, 307, 400, 401, 403, 404, 429, 429, 500, 503),
      fc.integer({ min: 200, max: 599 }),
    ),
    headers: fc.array(
      fc.oneof(
        retryAfterArb.map((v): [string, string] => ['retry-after', v]),
        retryAfterArb.map((v): [string, string] => ['retry-after-ms', v]),
        locationArb(key).map((v): [string, string] => ['location', v]),
        echoArb(key).map((v): [string, string] => ['x-echo', `Bearer ${v}`]),
      ),
      { maxLength: 4 },
    ),
    body: bodyArb(key),
    throws: fc.option(textArb(key), { nil: undefined, freq: 8 }),
  });

/** A fetch that answers `answers` in turn (the last one again), as the endpoint would. */
function stubFetch(answers: readonly Answer[]): { calls: number } {
  const seen = { calls: 0 };
  vi.stubGlobal('fetch', async () => {
    const a = answers[Math.min(seen.calls++, answers.length - 1)]!;
    if (a.throws !== undefined) throw new TypeError('fetch failed', { cause: new Error(a.throws) });
    const headers = new Headers();
    for (const [name, value] of a.headers) {
      try {
        headers.append(name, value);
      } catch {
        // A value no HTTP header can carry (a line break, a character past Latin-1) never arrives.
      }
    }
    const empty = [204, 205, 304].includes(a.status);
    return new Response(empty ? null : a.body, { status: a.status, headers });
  });
  return seen;
}
afterEach(() => {
  vi.unstubAllGlobals();
});

function endpoint(key: string, change: Partial<JudgeEndpoint> = {}): JudgeEndpoint {
  return {
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: key,
    model: 'judge-2026-01-01',
    maxCalls: 200,
    concurrency: 2,
    perMinute: 100_000,
    timeoutMs: 1_000,
    retries: 2,
    backoffMs: 1,
    budgetMs: 40,
    ...change,
  };
}

/** One line, within `max`, and no run of 4 characters of the key in any case. */
function expectClean(detail: string, key: string, max: number): void {
  // eslint-disable-next-line no-control-regex
  expect(detail).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/);
  expect(detail.length).toBeLessThanOrEqual(max);
  const folded = detail.toLowerCase();
  for (const piece of pieces(key)) expect(folded).not.toContain(piece);
}

describe('judge responses under fuzzing', () => {
  it('postCompletion never throws; its detail, or what an answer says ran, is one clean line', async () => {
    const messages = judgeMessages({ question: 'q', claim: 'c', fact: 'f' });
    await fc.assert(
      fc.asyncProperty(
        keyArb.chain((key) => fc.tuple(fc.constant(key), answerArb(key))),
        async ([key, answer]) => {
          stubFetch([answer]);
          const attempt = await postCompletion(endpoint(key), messages, 1_000);
          if (attempt.kind !== 'answer') return expectClean(attempt.detail, key, ATTEMPT_MAX);
          expect(VERDICTS).toContain(attempt.verdict);
          // What it says ran is written to the committed judgments file.
          expectClean(attempt.model_returned, key, ATTEMPT_MAX);
          if (attempt.fingerprint !== null) expectClean(attempt.fingerprint, key, ATTEMPT_MAX);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);

  it('askJudge never throws nor outlasts its budget; every ask is judged or unjudged with a clean line', async () => {
    await fc.assert(
      fc.asyncProperty(
        keyArb.chain((key) =>
          fc.tuple(
            fc.constant(key),
            fc.array(answerArb(key), { minLength: 1, maxLength: 8 }),
            fc.integer({ min: 1, max: 3 }),
            fc.integer({ min: 1, max: 2 }),
          ),
        ),
        async ([key, answers, n, concurrency]) => {
          const seen = stubFetch(answers);
          const asks = Array.from({ length: n }, (_, i) => {
            const question = { question: `q${i}`, claim: `c${i}`, fact: `f${i}` };
            return { key: judgmentKey(question, 'judge-2026-01-01', JUDGE_PROMPT), question };
          });
          const started = Date.now();
          const run = await askJudge(endpoint(key, { concurrency }), asks);
          // A hang guard, not a timing: the budget is 40 ms.
          expect(Date.now() - started).toBeLessThan(HANG_MS);
          expect([...run.judged, ...run.unjudged].map((o) => o.key).sort()).toEqual(
            asks.map((a) => a.key).sort(),
          );
          expect(run.spend.requests).toBe(seen.calls);
          expect(run.spend.requests).toBeLessThanOrEqual(n * (RATE_LIMIT_RETRIES + 1 + 3));
          for (const u of run.unjudged) expectClean(u.detail, key, UNJUDGED_MAX);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 1_200_000);
});
