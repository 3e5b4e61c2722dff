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

/**
 * A stand-in for the GitHub REST API on 127.0.0.1: the issue-comments endpoints of one pull request,
 * paginated with Link headers like the real one, and GET /user answering 403 as it does for the Actions
 * token. `failWrites` makes comment writes answer with that status (a fork's read-only token).
 */
export class FakeGitHub {
  comments: FakeComment[] = [];
  requests: RecordedRequest[] = [];
  failWrites?: number;
  pageSize = 2;
  private nextId = 1000;
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, body, headers }) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(
    req: IncomingMessage,
  ): Promise<{ status: number; body?: unknown; headers?: Record<string, string> }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      body,
      authorization: req.headers.authorization,
    });

    if (req.method === 'GET' && url.pathname === '/user') {
      return { status: 403, body: { message: 'Resource not accessible by integration' } };
    }
    let m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (m && req.method === 'GET') {
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
    if (m && req.method === 'POST') {
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
    if (m && req.method === 'PATCH') {
      if (this.failWrites)
        return { status: this.failWrites, body: { message: 'Resource not accessible by integration' } };
      const comment = this.comments.find((c) => c.id === Number(m![3]));
      if (!comment) return { status: 404, body: { message: 'Not Found' } };
      comment.body = body.body;
      return { status: 200, body: comment };
    }
    return { status: 404, body: { message: `fake GitHub has no ${req.method} ${url.pathname}` } };
  }

  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' || r.method === 'PATCH');
  }
}
