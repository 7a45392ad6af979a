import { MAX_EVENT_IDS, type ChangeInput } from '../../lib/events.js';

/**
 * Coalesces "these checks have new results" into at most one live-update event per relation per `flushMs`: at
 * thousands of results a minute, one NOTIFY per result would flood the bus and every browser.
 */
export class ChangeFeed {
  private readonly pending = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly publish: (change: ChangeInput) => Promise<unknown>,
    private readonly flushMs = 1_000,
  ) {}

  add(relations: readonly string[], ids: readonly string[]): void {
    for (const r of relations) {
      let set = this.pending.get(r);
      if (!set) this.pending.set(r, (set = new Set()));
      // past the cap the event carries no ids ("anything in the relation may have changed")
      if (set.size <= MAX_EVENT_IDS) for (const id of ids) set.add(id);
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const [relation, ids] of this.pending) {
      void this.publish({ relation, ids: ids.size > MAX_EVENT_IDS ? undefined : [...ids] }).catch(() => undefined);
    }
    this.pending.clear();
  }
}
