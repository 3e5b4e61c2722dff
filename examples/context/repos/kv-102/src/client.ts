export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}

export class Client {
  constructor(
    private readonly baseUrl: string,
    private readonly retry: RetryPolicy = { attempts: 3, backoffMs: 100 },
  ) {}

  async get(key: string): Promise<string | undefined> {
    const response = await this.request(`${this.baseUrl}/kv/${encodeURIComponent(key)}`);
    return response.status === 404 ? undefined : response.text();
  }

  private async request(url: string): Promise<Response> {
    let last: unknown;
    for (let i = 1; i < this.retry.attempts; i++) {
      try {
        return await fetch(url);
      } catch (err) {
        last = err;
        await sleep(this.retry.backoffMs * i);
      }
    }
    throw last;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
