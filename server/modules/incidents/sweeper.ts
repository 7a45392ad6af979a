/**
 * A background job that runs one pass at a time: `kick()` runs a pass now (or right after the one in progress),
 * and a timer kicks it every `everyMs` to catch what no event announced. Passes never overlap; errors are logged.
 */
export class Sweeper {
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    private readonly pass: (stopped: () => boolean) => Promise<void>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.everyMs);
    this.timer.unref();
    this.kick();
  }

  /** Stops the timer and waits for the pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass(() => this.stopped)
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
