import type { Q } from '../types.js';

/**
 * The SQL of the Notification / NotificationSilence CRs: recipient look-ups for the row mapping, the send history
 * counts their status reports, and which CR a console row came from. Every value is a bound parameter.
 */

/** A live person by email (case-insensitive) or else by exact name. */
export async function findPerson(c: Q, text: string): Promise<string | null> {
  const { rows } = await c.query<{ id: string }>(
    `SELECT id FROM people WHERE deleted_at IS NULL AND (lower(email) = lower($1) OR name = $1)
     ORDER BY (lower(email) = lower($1)) DESC NULLS LAST, created_at LIMIT 1`,
    [text],
  );
  return rows[0]?.id ?? null;
}

export async function findTeam(c: Q, name: string): Promise<string | null> {
  const { rows } = await c.query<{ id: string }>('SELECT id FROM teams WHERE deleted_at IS NULL AND name = $1 LIMIT 1', [name]);
  return rows[0]?.id ?? null;
}

export async function findPlaybook(c: Q, namespace: string, name: string): Promise<string | null> {
  const { rows } = await c.query<{ id: string }>(
    `SELECT id FROM playbooks WHERE deleted_at IS NULL AND name = $2
     ORDER BY (namespace = $1) DESC, created_at LIMIT 1`,
    [namespace, name],
  );
  return rows[0]?.id ?? null;
}

/** The send history of one rule as a Notification CR's status counts it. */
export interface SendCounts {
  notification_id: string;
  sent: number;
  failed: number;
  pending: number;
  last_sent: string | null;
  last_failed: string | null;
  last_error: string | null;
  rule_error: string | null;
}

/** The counts of every live Notification CR's rule (one query; the CRs are few). */
export async function crSendCounts(c: Q): Promise<Array<SendCounts & { namespace: string; name: string; generation: string | null }>> {
  const { rows } = await c.query(
    `SELECT k.namespace, k.name, k.generation::text AS generation, n.id AS notification_id, n.error AS rule_error,
            coalesce(h.sent, 0)::int AS sent, coalesce(h.failed, 0)::int AS failed, coalesce(h.pending, 0)::int AS pending,
            h.last_sent, h.last_failed,
            (SELECT e.error FROM notification_send_history e
              WHERE e.notification_id = n.id AND e.status = 'error' ORDER BY e.created_at DESC LIMIT 1) AS last_error
     FROM kubernetes_objects k
     JOIN notifications n ON n.id = k.row_id AND n.deleted_at IS NULL
     LEFT JOIN LATERAL (
       SELECT count(*) FILTER (WHERE s.status = 'sent') AS sent,
              count(*) FILTER (WHERE s.status = 'error') AS failed,
              count(*) FILTER (WHERE s.status IN ('pending', 'evaluating-waitfor', 'sending')) AS pending,
              max(s.created_at) FILTER (WHERE s.status = 'sent') AS last_sent,
              max(s.created_at) FILTER (WHERE s.status = 'error') AS last_failed
       FROM notification_send_history s WHERE s.notification_id = n.id
     ) h ON true
     WHERE k.kind = 'Notification' AND k.row_table = 'notifications' AND k.deleted_at IS NULL`,
  );
  return rows.map((r) => ({
    ...r,
    last_sent: r.last_sent ? new Date(r.last_sent).toISOString() : null,
    last_failed: r.last_failed ? new Date(r.last_failed).toISOString() : null,
  }));
}

/** The live CR a notifications / notification_silences row came from, if any. */
export async function crOfRow(c: Q, table: 'notifications' | 'notification_silences', id: string): Promise<{
  kind: string; namespace: string; name: string; managed_by: string | null; source_link: string | null;
} | undefined> {
  const { rows } = await c.query(
    `SELECT kind, namespace, name, managed_by, source_link FROM kubernetes_objects
     WHERE row_table = $1 AND row_id = $2 AND deleted_at IS NULL ORDER BY observed_at DESC LIMIT 1`,
    [table, id],
  );
  return rows[0];
}
