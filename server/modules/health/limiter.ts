/**
 * Bounded concurrency with a slow lane: at most `max` tasks run in the main lane. A task still running after
 * `slowAfterMs` moves to the slow lane (up to `slowMax` there) and frees its main slot, so a few hung targets
 * waiting out their timeouts never hold up the checks queued behind them.
 */
export class Limiter {
  private active = 0;
  private slow = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    readonly max: number,
    readonly slowMax = max * 4,
    readonly slowAfterMs = 2_000,
  ) {}

  get running(): number {
    return this.active + this.slow;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    // a released slot is handed straight to the next waiter, so no newcomer can slip in between
    if (this.active < this.max) this.active++;
    else await new Promise<void>((r) => this.queue.push(r));
    let inSlowLane = false;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    };
    const t = setTimeout(() => {
      if (this.slow >= this.slowMax) return;
      this.slow++;
      inSlowLane = true;
      release();
    }, this.slowAfterMs);
    t.unref?.();
    try {
      return await task();
    } finally {
      clearTimeout(t);
      if (inSlowLane) this.slow--;
      else release();
    }
  }
}
