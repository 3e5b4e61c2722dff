import { createServer, type IncomingMessage, type Server } from 'node:http';
import { listenLocally, stopLocally } from './local-server.js';

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
  /** Bytes sent as they are (a zip), instead of JSON. */
  raw?: Uint8Array;
}

/** A workflow run, in the fields the Actions REST API gives and groundgate reads. */
export interface FakeRun {
  id: number;
  head_sha: string;
  head_branch: string;
  event: string;
  status: string;
  conclusion: string | null;
  head_commit: { id: string; timestamp: string };
  path: string;
  head_repository: { full_name: string; owner: { login: string } };
}

/** An uploaded artifact: its zip is served by the storage host the API redirects to. */
export interface FakeArtifact {
  id: number;
  name: string;
  run: number;
  zip: Uint8Array;
  expired?: boolean;
  created_at: string;
  /** Answer the zip request with the zip itself (200) instead of a redirect. */
  direct?: boolean;
}

export interface FakePull {
  number: number;
  state: 'open' | 'closed';
  head: { sha: string; ref: string; label: string };
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
  runs: FakeRun[] = [];
  artifacts: FakeArtifact[] = [];
  pulls: FakePull[] = [];
  defaultBranch = 'main';
  /** Where artifact zips are downloaded from (a second host, as blob storage is for the real API). */
  storage?: FakeStorage;
  private nextId = 1000;
  private server?: Server;
  private listsWaiting: (() => void)[] = [];
  private listsSeen = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then((answer) => {
        if (!answer) return; // hang: the connection stays open, unanswered
        const { status, body, headers, raw } = answer;
        if (raw) {
          res.writeHead(status, {
            'content-type': 'application/zip',
            'content-length': raw.length,
            ...headers,
          });
          res.end(Buffer.from(raw));
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
    this.url = await listenLocally(this.server);
    return this;
  }

  async stop(): Promise<void> {
    await stopLocally(this.server);
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
    const actions = request.method === 'GET' ? this.actionsAnswer(url) : undefined;
    if (actions) return actions;
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

  /** The Actions endpoints groundgate reads: runs, artifacts, artifact zips, pulls, the repository. */
  private actionsAnswer(url: URL): FakeAnswer | undefined {
    const q = url.searchParams;
    const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!repoPath) return undefined;
    const rest = repoPath[3] ?? '';
    const own = `${repoPath[1]}/${repoPath[2]}`;
    const paged = <T>(items: T[]) => {
      const per = Number(q.get('per_page') ?? '30');
      const page = Number(q.get('page') ?? '1');
      return items.slice((page - 1) * per, page * per);
    };
    if (rest === '') return { status: 200, body: { full_name: own, default_branch: this.defaultBranch } };
    if (rest === '/actions/runs') {
      const runs = this.runs
        .filter((r) => !q.get('head_sha') || r.head_sha === q.get('head_sha'))
        .filter((r) => !q.get('branch') || r.head_branch === q.get('branch'))
        .filter((r) => !q.get('event') || r.event === q.get('event'))
        .filter((r) => !q.get('status') || r.conclusion === q.get('status') || r.status === q.get('status'))
        .sort((a, b) => b.id - a.id);
      return { status: 200, body: { total_count: runs.length, workflow_runs: paged(runs) } };
    }
    const artifactJson = (a: FakeArtifact) => {
      const run = this.runs.find((r) => r.id === a.run)!;
      return {
        id: a.id,
        name: a.name,
        size_in_bytes: a.zip.length,
        expired: a.expired ?? false,
        created_at: a.created_at,
        archive_download_url: `${this.url}/repos/${own}/actions/artifacts/${a.id}/zip`,
        workflow_run: {
          id: run.id,
          repository_id: 1,
          head_repository_id: run.head_repository.full_name === own ? 1 : 2,
          head_branch: run.head_branch,
          head_sha: run.head_sha,
        },
      };
    };
    let m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest);
    if (m) {
      const list = this.artifacts
        .filter((a) => a.run === Number(m![1]) && (!q.get('name') || a.name === q.get('name')))
        .map(artifactJson);
      return { status: 200, body: { total_count: list.length, artifacts: paged(list) } };
    }
    if (rest === '/actions/artifacts') {
      const list = this.artifacts
        .filter((a) => !q.get('name') || a.name === q.get('name'))
        .sort((a, b) => b.id - a.id)
        .map(artifactJson);
      return { status: 200, body: { total_count: list.length, artifacts: paged(list) } };
    }
    m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest);
    if (m) {
      const artifact = this.artifacts.find((a) => a.id === Number(m![1]));
      if (!artifact) return { status: 404, body: { message: 'Not Found' } };
      if (artifact.expired) return { status: 410, body: { message: 'Artifact has expired' } };
      if (artifact.direct || !this.storage) return { status: 200, raw: artifact.zip };
      return { status: 302, headers: { location: this.storage.offer(artifact.zip) } };
    }
    if (rest === '/pulls') {
      const pulls = this.pulls.filter(
        (p) =>
          (!q.get('state') || p.state === q.get('state')) &&
          (!q.get('head') || p.head.label === q.get('head')),
      );
      return { status: 200, body: pulls };
    }
    return undefined;
  }

  writes(): RecordedRequest[] {
    return this.requests.filter((r) => ['POST', 'PATCH', 'DELETE'].includes(r.method));
  }
}

/** The blob storage an artifact download redirects to: serves bytes at a signed URL, and records who asked. */
export class FakeStorage {
  requests: { path: string; authorization?: string }[] = [];
  hang = false;
  private blobs = new Map<string, Uint8Array>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
      if (this.hang) return;
      const blob = this.blobs.get(new URL(req.url ?? '/', this.url).pathname);
      if (!blob) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': blob.length });
      res.end(Buffer.from(blob));
    });
    this.url = await listenLocally(this.server);
    return this;
  }

  /** A signed URL for the bytes, as the API's 302 gives. */
  offer(bytes: Uint8Array): string {
    const name = `/blob/${this.blobs.size + 1}.zip`;
    this.blobs.set(name, bytes);
    return `${this.url}${name}?sig=signed`;
  }

  async stop(): Promise<void> {
    await stopLocally(this.server);
  }
}
