import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

export interface RecordedRequest {
  method: string;
  path: string;
  body?: unknown;
  authorization?: string;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A stand-in for the GitHub REST API on 127.0.0.1: the issue-comments endpoints of one pull request,
 * paginated with Link headers like the real one, and GET /user answering 403 as it does for the Actions
 * token. `failWrites` makes comment writes answer with that status (a fork's read-only token); `hang`
 * accepts requests and never answers; `delayMs` answers slowly; `failures` are answered, one per request,
 * before any real answer (a 502, a rate limit); `listBarrier` holds comment listings until that many have
 * arrived, so concurrent runs all see the same (empty) list; `onRequest` runs as each request arrives.
 */
export class FakeGitHub {
  comments: FakeComment[] = [];
  requests: RecordedRequest[] = [];
  failWrites?: number;
  hang = false;
  delayMs = 0;
  failures: FakeAnswer[] = [];
  listBarrier = 0;
  onRequest?: (request: RecordedRequest) => void;
  pageSize = 2;
  private nextId = 1000;
  private server?: Server;
  private listsWaiting: (() => void)[] = [];
  private listsSeen = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then((answer) => {
        if (!answer) return; // hang: the connection stays open, unanswered
        const { status, body, headers } = answer;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage): Promise<FakeAnswer | undefined> {
    const request = await this.record(req);
    this.onRequest?.(request);
    if (this.hang) return undefined;
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const failure = this.failures.shift();
    if (failure) return failure;
    if (this.listBarrier && request.method === 'GET' && /\/issues\/\d+\/comments/.test(request.path)) {
      this.listsSeen++;
      if (this.listsSeen < this.listBarrier)
        await new Promise<void>((resolve) => this.listsWaiting.push(resolve));
      else for (const release of this.listsWaiting.splice(0)) release();
    }
    return this.answer(request);
  }

  private async record(req: IncomingMessage): Promise<RecordedRequest> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const request = {
      method: req.method ?? '',
      path: url.pathname + url.search,
      body: text ? (JSON.parse(text) as unknown) : undefined,
      authorization: req.headers.authorization,
    };
    this.requests.push(request);
    return request;
  }

  private answer(request: RecordedRequest): FakeAnswer {
    const url = new URL(request.path, this.url);
    const body = request.body as { body: string };

    if (request.method === 'GET' && url.pathname === '/user') {
      return { status: 403, body: { message: 'Resource not accessible by integration' } };
    }
    let m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (m && request.method === 'GET') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const per = Math.min(Number(url.searchParams.get('per_page') ?? '30'), this.pageSize);
      const slice = this.comments.slice((page - 1) * per, page * per);
      const headers: Record<string, string> = {};
      if (page * per < this.comments.length) {
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        headers.link = `<${next.toString()}>; rel="next"`;
      }
      return { status: 200, body: slice, headers };
    }
    if (m && request.method === 'POST') {
      if (this.failWrites)
        return { status: this.failWrites, body: { message: 'Resource not accessible by integration' } };
      const comment = {
        id: this.nextId++,
        body: body.body,
        user: { login: 'github-actions[bot]', type: 'Bot' },
      };
      this.comments.push(comment);
      return { status: 201, body: comment };
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (m && request.method === 'DELETE') {
      const at = this.comments.findIndex((c) => c.id === Number(m![3]));
      if (at === -1) return { status: 404, body: { message: 'Not Found' } };
      this.comments.splice(at, 1);
      return { status: 204 };
    }
    if (m && request.method === 'PATCH') {
      if (this.failWrites)
        return { status: this.failWrites, body: { message: 'Resource not accessible by integration' } };
      const comment = this.comments.find((c) => c.id === Number(m![3]));
      if (!comment) return { status: 404, body: { message: 'Not Found' } };
      comment.body = body.body;
      return { status: 200, body: comment };
    }
    return { status: 404, body: { message: `fake GitHub has no ${request.method} ${url.pathname}` } };
  }

  writes(): RecordedRequest[] {
    return this.requests.filter((r) => ['POST', 'PATCH', 'DELETE'].includes(r.method));
  }
}
