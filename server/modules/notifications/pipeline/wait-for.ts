import type pg from 'pg';
import { NOTIFICATION_SEND_EVENT } from '../../../contracts/notifications.js';
import { inTransaction } from '../../../lib/tx.js';
import { enqueueEvent } from '../../events/queries.js';
import { stableUuid, type SendProperties } from './match.js';
import { claimDue, type DueRow } from './queries.js';
import { keyJson } from './recipients.js';

/**
 * The held sends' sweeper (wait_for, digests, quiet hours), on every replica: claims due `pending` rows with SKIP
 * LOCKED and, in the same transaction, enqueues the `notification.send` that checks them again and finishes them
 * (one per wait_for row; one per rule and recipient for digest rows). Returns how many rows it released.
 */
export async function releaseDue(db: pg.Pool, batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await inTransaction(db, async (client) => {
      const rows = await claimDue(client, batch);
      for (const group of groups(rows)) {
        const ids = group.map((r) => r.id).sort();
        const first = group[0].payload as SendProperties;
        await enqueueEvent(client, {
          name: NOTIFICATION_SEND_EVENT,
          event_id: stableUuid('release', ...ids),
          properties: { ...first, pending_ids: ids },
        });
      }
      return rows.length;
    });
    total += n;
    if (n < batch) return total;
  }
}

/** Digest rows by rule and recipient; every other held row alone. Rows without a payload are dropped. */
function groups(rows: DueRow[]): DueRow[][] {
  const out: DueRow[][] = [];
  const digests = new Map<string, DueRow[]>();
  for (const r of rows) {
    const p = r.payload as SendProperties | null;
    if (!p?.recipient) continue;
    if (!p.digest) {
      out.push([r]);
      continue;
    }
    const k = `${r.notification_id}|${JSON.stringify(keyJson(p.recipient))}`;
    digests.set(k, [...(digests.get(k) ?? []), r]);
  }
  return [...out, ...digests.values()];
}
