import { createServer, type IncomingMessage, type Server } from 'node:http';
import { listenLocally, stopLocally } from './local-server.js';

/** A chat-completions request as the stand-in received it. */
export interface JudgeRequest {
  method: string;
  path: string;
  authorization?: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  body?: {
    model?: string;
    temperature?: number;
    seed?: number;
    max_tokens?: number;
    messages?: { role: string; content: string }[];
  };
  /** The three values of the user message, when it is the prompt's JSON object. */
  values?: { question: string; claim: string; fact: string };
}

/** An answer forced on one request: a status, headers, a body (an object is sent as JSON, a string as is). */
export interface InjectedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Waits this long before answering. */
  delayMs?: number;
}

/**
 * A stand-in for an OpenAI-compatible chat-completions endpoint on 127.0.0.1, answering from a hand-written
 * table: `label(claim, fact, word)` sets the content answered for that pair (any text, to send malformed
 * verdicts); a pair not in the table gets `unlabeled`. `failures` are answered one per request before the
 * table (429 with retry-after, 500, a body that is not JSON); `delayMs` slows every answer and `hang` never
 * answers; `usage` is what every answer says it used. It records each request (body, Authorization) and the most requests it had in flight at once.
 * Its base URL, as GROUNDGATE_JUDGE_BASE_URL takes it, is `baseUrl` (`…/v1`).
 */
export class JudgeServer {
  requests: JudgeRequest[] = [];
  failures: InjectedAnswer[] = [];
  delayMs = 0;
  hang = false;
  unlabeled = 'NOT_SUPPORTED';
  /** What the answers say ran: the response's `model` and `system_fingerprint`. */
  model = 'stand-in-judge-2026-11-28';
  fingerprint: string | null = 'fp_stand_in';
  /** The `usage` every answer reports; null sends none (an endpoint that does not say). */
  usage: { prompt_tokens: number; completion_tokens: number } | null = null;
  inFlight = 0;
  maxInFlight = 0;
  url = '';
  private readonly table = new Map<string, string>();
  private server?: Server;

  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  label(claim: string, fact: string, word: string): this {
    this.table.set(pairKey(claim, fact), word);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then((answer) => {
        if (!answer) return; // hang: the connection stays open, unanswered
        const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(body);
        this.inFlight--;
      });
    });
    this.url = await listenLocally(this.server);
    return this;
  }

  async stop(): Promise<void> {
    await stopLocally(this.server);
  }

  private async handle(req: IncomingMessage): Promise<InjectedAnswer | undefined> {
    const request = await this.record(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.hang) return undefined;
    const failure = this.failures.shift();
    const delay = failure?.delayMs ?? this.delayMs;
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    if (failure) return failure;
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions')
      return { status: 404, body: { error: { message: `no ${request.method} ${request.path} here` } } };
    if (!request.values)
      return {
        status: 400,
        body: { error: { message: 'expected the prompt’s JSON object as the user message' } },
      };
    const content = this.table.get(pairKey(request.values.claim, request.values.fact)) ?? this.unlabeled;
    return {
      status: 200,
      body: {
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        model: this.model,
        system_fingerprint: this.fingerprint,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        ...(this.usage
          ? {
              usage: { ...this.usage, total_tokens: this.usage.prompt_tokens + this.usage.completion_tokens },
            }
          : {}),
      },
    };
  }

  private async record(req: IncomingMessage): Promise<JudgeRequest> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request: JudgeRequest = {
      method: req.method ?? '',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      authorization: req.headers.authorization,
    };
    try {
      request.body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JudgeRequest['body'];
      const user = request.body?.messages?.find((m) => m.role === 'user')?.content;
      if (user) request.values = JSON.parse(user) as JudgeRequest['values'];
    } catch {
      // Recorded as it came: a test looks at what was sent.
    }
    this.requests.push(request);
    return request;
  }
}

const pairKey = (claim: string, fact: string) => `${claim}\u0000${fact}`;
