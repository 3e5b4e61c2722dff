import { z } from 'zod';
import { preview } from '../errors.js';
import { safeParse } from '../io/validate.js';
import { seconds } from '../github/api-limits.js';
import type { JudgeEndpoint } from './judge-endpoint.js';
import { parseVerdict, type ChatMessage, type Verdict } from './judge-prompt.js';
import { redacted, redactedLocation } from './judge-redact.js';

/** Sent with every request: with temperature 0 it asks the endpoint for repeatable answers where it can. */
export const JUDGE_SEED = 47;
/** Room for the longest verdict, NOT_SUPPORTED, in common tokenizers, and little more: an essay is malformed. */
export const JUDGE_MAX_TOKENS = 8;

/**
 * The most of a response body read: a verdict is a few tokens in a JSON envelope of a few hundred bytes, and
 * an error message is shown in one line; an endpoint sending more is not read further.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** The tokens a request used, as the endpoint's `usage` says; absent when it says none. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** What one attempt of one request came to. */
export type Attempt =
  | { kind: 'answer'; verdict: Verdict; model_returned: string; fingerprint: string | null; usage?: Usage }
  /** An answer that is not one of the three words: asking again at temperature 0 would give it again. */
  | { kind: 'malformed'; detail: string; usage?: Usage }
  /** A 5xx, a network error or no answer in time: worth another attempt. */
  | { kind: 'retry'; detail: string }
  /** 429, with the wait it asks for when it names one. */
  | { kind: 'rate-limited'; waitMs?: number; detail: string }
  /**
   * Another 4xx, or a redirect. 401, 403, 404, redirects and unsupported parameters (a bad key, a model not
   * granted, a wrong URL, a model that cannot be asked at temperature 0) are the same for every ask.
   */
  | { kind: 'refused'; detail: string; endpointWide: boolean };

const completionSchema = z.looseObject({
  model: z.string().optional(),
  system_fingerprint: z.string().nullish(),
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string().nullish() }) })).min(1),
});

const tokenCount = z.int().nonnegative();
/** OpenAI's `usage` of a chat completion; the other counts it may hold (total, details) are not read. */
const usageSchema = z.looseObject({ prompt_tokens: tokenCount, completion_tokens: tokenCount });

/** The request's body: the pinned model, temperature 0, a fixed seed, a few tokens. */
function completionRequest(endpoint: JudgeEndpoint, messages: ChatMessage[]): Record<string, unknown> {
  return {
    model: endpoint.model,
    messages,
    temperature: 0,
    seed: JUDGE_SEED,
    max_tokens: JUDGE_MAX_TOKENS,
    n: 1,
  };
}

/**
 * One POST to `${baseUrl}/chat/completions`, cut off after `timeoutMs` (the body's reading included), its
 * body read up to MAX_BODY_BYTES.
 * Redirects are not followed: the key goes to the configured host only. Everything the endpoint sent reaches
 * a detail through `redacted` only: one line, size-limited, no piece of the key, no URL's query.
 */
export async function postCompletion(
  endpoint: JudgeEndpoint,
  messages: ChatMessage[],
  timeoutMs: number,
): Promise<Attempt> {
  const said = (text: string) => redacted(text, endpoint.apiKey);
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  let headers: Headers;
  let body: { text: string; over: boolean };
  try {
    const response = await fetch(`${endpoint.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${endpoint.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(completionRequest(endpoint, messages)),
      redirect: 'manual',
      signal,
    });
    status = response.status;
    headers = response.headers;
    body = await readCapped(response, MAX_BODY_BYTES);
  } catch (err) {
    return { kind: 'retry', detail: said(fetchFailure(err, signal, timeoutMs)) };
  }
  const { text } = body;
  if (status === 429)
    return {
      kind: 'rate-limited',
      waitMs: retryAfterMs(headers),
      detail: `HTTP 429: ${said(errorMessage(text))}`,
    };
  if (status >= 300 && status < 400)
    return {
      kind: 'refused',
      detail: `HTTP ${status}: redirects to ${redactedLocation(headers.get('location'), endpoint.baseUrl, endpoint.apiKey)}, not followed (the key goes to GROUNDGATE_JUDGE_BASE_URL only; set it to where the API is)`,
      endpointWide: true,
    };
  if (status >= 500) return { kind: 'retry', detail: `HTTP ${status}: ${said(errorMessage(text))}` };
  if (status < 200 || status >= 300)
    return {
      kind: 'refused',
      detail: `HTTP ${status}: ${said(errorMessage(text))}`,
      endpointWide: status === 401 || status === 403 || status === 404 || refusesTheRequest(text),
    };
  if (body.over)
    return {
      kind: 'malformed',
      detail: `the answer is over ${MAX_BODY_BYTES / 1024} KiB, not read further; a verdict is a few tokens`,
    };
  return readAnswer(text, said);
}

/** The body's first `max` bytes as text, and whether there was more (the rest is not read). */
async function readCapped(response: Response, max: number): Promise<{ text: string; over: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body)
    for await (const chunk of response.body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > max) {
        await response.body.cancel().catch(() => undefined);
        break;
      }
    }
  const bytes = Buffer.concat(chunks);
  return { text: bytes.subarray(0, max).toString('utf8'), over: size > max };
}

function readAnswer(text: string, said: (text: string) => string): Attempt {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'malformed', detail: `the answer is not JSON: ${preview(said(text))}` };
  }
  // Tokens billed even when the answer is of no use: an answer that says its usage is counted either way.
  const usage = usageOf(body);
  const parsed = safeParse(completionSchema, body);
  if (!parsed.success)
    return {
      kind: 'malformed',
      detail: 'the answer is not a chat completion (no choices[0].message.content)',
      ...usage,
    };
  const content = parsed.data.choices[0]!.message.content ?? '';
  const verdict = parseVerdict(content);
  if (!verdict)
    return {
      kind: 'malformed',
      detail: `the model answered ${preview(said(content))}; expected SUPPORTED, NOT_SUPPORTED or UNCLEAR`,
      ...usage,
    };
  // What the endpoint says it ran is written to the judgments file, which is committed: redacted too.
  const fingerprint = parsed.data.system_fingerprint;
  return {
    kind: 'answer',
    verdict,
    model_returned: said(parsed.data.model ?? ''),
    fingerprint: fingerprint == null ? null : said(fingerprint),
    ...usage,
  };
}

/** `{usage}` when the answer names both counts as whole numbers, else nothing: unknown is not 0. */
function usageOf(body: unknown): { usage?: Usage } {
  const usage = (body as { usage?: unknown } | null)?.usage;
  const parsed = safeParse(usageSchema, usage);
  if (!parsed.success) return {};
  const { prompt_tokens, completion_tokens } = parsed.data;
  return { usage: { prompt_tokens, completion_tokens } };
}

/**
 * The wait a 429 asks for: `retry-after-ms` (OpenAI's), else `retry-after` in seconds or as an HTTP date;
 * undefined when it names none.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * A 400 that every ask would get: the model refuses a parameter of the request itself (OpenAI's reasoning
 * models take no `temperature: 0` nor `max_tokens`), not something in one ask's text.
 */
function refusesTheRequest(text: string): boolean {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } })?.error?.code;
    return code === 'unsupported_parameter' || code === 'unsupported_value';
  } catch {
    return false;
  }
}

/** An OpenAI-style error's message (`{"error": {"message": …}}`), else the body; not yet redacted. */
function errorMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: the body itself says what went wrong, if anything.
  }
  return text.trim() ? text : 'no message';
}

function fetchFailure(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `no answer within ${seconds(timeoutMs)}`;
  const e = err as Error & { cause?: Error };
  return String(e?.cause?.message ?? e?.message ?? err);
}
