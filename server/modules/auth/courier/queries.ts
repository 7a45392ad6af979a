import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

/** A mail to send, as the templates render it. */
export interface OutgoingMail {
  recipient: string;
  subject: string;
  bodyText: string;
  bodyHtml?: string;
  /** e.g. recovery_code, verification_code, email_changed, invite */
  template: string;
}

export interface CourierRow {
  id: string;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string | null;
  template: string;
  send_count: number;
}

/** Queues a mail in the outbox; the leader's sender delivers it. Returns its id. */
export async function insertMessage(db: Db, m: OutgoingMail): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO courier_messages (recipient, subject, body_text, body_html, template)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [m.recipient, m.subject, m.bodyText, m.bodyHtml ?? null, m.template],
  );
  return rows[0].id;
}

/**
 * Claims up to `limit` due mails: queued ones whose time has come, and 'processing' ones whose lease ran out (their
 * sender died). A claimed row is 'processing' until `leaseMs` from now; SKIP LOCKED lets replicas share the work.
 */
export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<CourierRow[]> {
  const { rows } = await db.query<CourierRow>(
    `UPDATE courier_messages m SET status = 'processing', next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
       updated_at = now()
     WHERE m.id IN (
       SELECT id FROM courier_messages WHERE status IN ('queued', 'processing') AND next_attempt_at <= now()
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING m.id, m.recipient, m.subject, m.body_text, m.body_html, m.template, m.send_count`,
    [limit, leaseMs],
  );
  return rows;
}

export async function markSent(db: Db, id: string): Promise<void> {
  await db.query(
    `UPDATE courier_messages SET status = 'sent', send_count = send_count + 1, last_error = NULL, updated_at = now() WHERE id = $1`,
    [id],
  );
}

/** A failed attempt: queued again after `retryInMs`, or abandoned when `abandon`. */
export async function markFailed(db: Db, id: string, error: string, retryInMs: number, abandon: boolean): Promise<void> {
  await db.query(
    `UPDATE courier_messages SET status = CASE WHEN $4 THEN 'abandoned' ELSE 'queued' END, send_count = send_count + 1,
       last_error = $2, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
     WHERE id = $1`,
    [id, error.slice(0, 1000), retryInMs, abandon],
  );
}

/** The earliest time a queued mail is due (to sleep until then), or null. */
export async function nextDue(db: Db): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT min(next_attempt_at) AS at FROM courier_messages WHERE status IN ('queued', 'processing')`,
  );
  return rows[0].at;
}

/** Retention: sign-in activity older than `eventDays`, flows and codes expired more than a day ago, old sent mail. */
export async function deleteExpired(db: Db, eventDays: number): Promise<{ events: number; flows: number; codes: number; mails: number }> {
  const events = await db.query(`DELETE FROM auth_events WHERE created_at < now() - make_interval(days => $1)`, [eventDays]);
  const codes = await db.query(`DELETE FROM auth_one_time_codes WHERE expires_at < now() - interval '1 day'`);
  const flows = await db.query(`DELETE FROM auth_flows WHERE expires_at < now() - interval '1 day'`);
  const errors = await db.query(`DELETE FROM auth_flow_errors WHERE created_at < now() - interval '7 days'`);
  const mails = await db.query(
    `DELETE FROM courier_messages WHERE status IN ('sent', 'abandoned') AND updated_at < now() - make_interval(days => $1)`,
    [eventDays],
  );
  void errors;
  return { events: events.rowCount ?? 0, flows: flows.rowCount ?? 0, codes: codes.rowCount ?? 0, mails: mails.rowCount ?? 0 };
}
