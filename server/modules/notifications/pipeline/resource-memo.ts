import type { EventResource } from '../../events/types.js';

/**
 * The resources the match handler read for the events it matched, kept for a moment (issue 15 "Performance"): the
 * `notification.send` rows it enqueued are handled a few milliseconds later, most often on this replica, and read the
 * same resource again (a third of a send's look-ups). A send handled after `ttlMs` (a backlog, another replica, a
 * held send's release) reads it as it is then. Bounded: the oldest entries go first.
 */
export class ResourceMemo {
  private readonly entries = new Map<string, { resource: EventResource; at: number }>();

  constructor(private readonly ttlMs = 2_000, private readonly max = 2_000) {}

  private static key(eventName: string, eventId: string | null): string {
    return `${eventName}\u0000${eventId ?? ''}`;
  }

  set(eventName: string, eventId: string | null, resource: EventResource): void {
    const key = ResourceMemo.key(eventName, eventId);
    this.entries.delete(key);
    this.entries.set(key, { resource, at: Date.now() });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  get(eventName: string, eventId: string | null): EventResource | undefined {
    const key = ResourceMemo.key(eventName, eventId);
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (Date.now() - e.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.resource;
  }

  clear(): void {
    this.entries.clear();
  }
}
