import type { Q } from '../../events/types.js';
import { liveSilences, type SilenceRow } from '../queries.js';

/**
 * The silences that are or may become active (not deleted, until in the future or none), cached per replica: every
 * send checks them, and at 100 silences reading them per send cost more than the rest of the silence check. Dropped
 * on a change of notification_silences (0109's statement trigger NOTIFYs in the writer's transaction, so a silence
 * committed before an event is seen before that event is handled) and after `ttlMs`; `from` and `until` are compared
 * with the send's time in findSilence, so a silence starts and ends on time from the cache.
 */
export class SilenceCache {
  private rows: SilenceRow[] | null = null;
  private loadedAt = 0;
  private loading: Promise<SilenceRow[]> | null = null;

  constructor(private readonly db: Q, private readonly ttlMs = 30_000) {}

  invalidate(): void {
    this.rows = null;
    this.loading = null;
  }

  async list(): Promise<SilenceRow[]> {
    if (this.rows && Date.now() - this.loadedAt <= this.ttlMs) return this.rows;
    const loading = (this.loading ??= liveSilences(this.db).then((rows) => {
      this.loadedAt = Date.now();
      return rows;
    }));
    const rows = await loading;
    if (this.loading === loading) {
      this.rows = rows;
      this.loading = null;
    }
    return rows;
  }
}
