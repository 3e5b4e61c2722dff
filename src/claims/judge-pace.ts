/**
 * When the next request may start: at most `perMinute` starts in any 60 s (a sliding window over the
 * starts so far, oldest first), and not before a pause a 429 asked for. Pure, for the tests.
 */
export function nextStart(
  starts: readonly number[],
  perMinute: number,
  pausedUntil: number,
  now: number,
): number {
  const windowOpens = starts.length < perMinute ? now : starts[starts.length - perMinute]! + MINUTE_MS;
  return Math.max(now, windowOpens, pausedUntil);
}

const MINUTE_MS = 60_000;

/**
 * The requests/minute limit and the pauses, shared by all of one run's workers (concurrency is their
 * number). `take` waits for a start and records it, or says it would come after the deadline.
 */
export class JudgePace {
  private readonly starts: number[] = [];
  private pausedUntil = 0;

  constructor(
    private readonly perMinute: number,
    private readonly deadline: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Resolves true once a request may start (recorded as started), false when that is past the deadline. */
  async take(): Promise<boolean> {
    for (;;) {
      const now = this.clock();
      const at = nextStart(this.starts, this.perMinute, this.pausedUntil, now);
      if (at >= this.deadline) return false;
      if (at <= now) {
        this.starts.push(now);
        if (this.starts.length > this.perMinute) this.starts.shift();
        return true;
      }
      // Another worker may take the start while this one sleeps: asked again on waking.
      await sleep(at - now);
    }
  }

  /** No request starts before `until` (a 429's retry-after holds every worker, not only the one it hit). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
