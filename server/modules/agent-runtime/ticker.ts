/**
 * Runs `run()` at start and every `intervalMs`, one at a time (a slow upstream never stacks requests); stop() waits
 * for the run in progress. The pinger and the puller are such loops.
 */
export abstract class SerialTicker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  protected stopped = false;

  protected constructor(private readonly intervalMs: number) {}

  protected abstract run(): Promise<void>;

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref?.();
  }

  private tick(): void {
    if (this.running || this.stopped) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
