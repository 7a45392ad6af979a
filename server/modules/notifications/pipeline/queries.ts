import { createHash } from 'node:crypto';
import type { Q } from '../../events/types.js';

/** A short stable name part for a statement text (prepared statement names must differ when texts do). */
const hashes = new Map<string, string>();
function hash(text: string): string {
  let h = hashes.get(text);
  if (!h) hashes.set(text, (h = createHash('sha1').update(text).digest('hex').slice(0, 12)));
  return h;
}

/** The pipeline's SQL (issue 15 "Rules"): rules, recipients, send history writes and the held (pending) sends. */

/** A live rule as the pipeline reads it. */
export interface RuleRow {
  id: string;
  name: string;
  events: string[];
  filter: string | null;
  title: string | null;
  template: string | null;
  properties: Record<string, string> | null;
  repeat_interval: string | null;
  error: string | null;
  error_at: Date | null;
  person_id: string | null;
  team_id: string | null;
  custom_services: unknown[] | null;
  /** nanoseconds */
  wait_for: string | null;
  group_by: string[] | null;
  /** nanoseconds */
  group_by_interval: string | null;
  quiet_hours: Record<string, unknown> | null;
  deleted_at: Date | null;
}

const RULE_COLUMNS = `id, name, events, filter, title, template, properties, repeat_interval, error, error_at, person_id,
  team_id, custom_services, wait_for, group_by, group_by_interval, quiet_hours, deleted_at`;

export async function liveRules(db: Q): Promise<RuleRow[]> {
  const { rows } = await db.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM notifications WHERE deleted_at IS NULL`);
  return rows;
}

export async function ruleById(db: Q, id: string): Promise<RuleRow | null> {
  const { rows } = await db.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM notifications WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Pauses a rule whose filter failed at run time (shown Paused for an hour). */
export async function pauseRule(db: Q, id: string, error: string): Promise<void> {
  await db.query('UPDATE notifications SET error = $2, error_at = now() WHERE id = $1', [id, error.slice(0, 2000)]);
}

export async function personEmail(db: Q, id: string): Promise<string | null> {
  const { rows } = await db.query<{ email: string | null }>('SELECT email FROM people WHERE id = $1 AND deleted_at IS NULL', [id]);
  return rows[0]?.email ?? null;
}

/** A team's spec.notifications entries; null when the team is gone. */
export async function teamEntries(db: Q, id: string): Promise<unknown[] | null> {
  const { rows } = await db.query<{ spec: { notifications?: unknown } | null }>(
    'SELECT spec FROM teams WHERE id = $1 AND deleted_at IS NULL', [id]);
  if (!rows[0]) return null;
  const list = rows[0].spec?.notifications;
  return Array.isArray(list) ? list : [];
}

/** What a history row records. */
export interface HistoryInput {
  notification_id: string;
  status: string;
  source_event: string;
  resource_id: string;
  resource_health?: string | null;
  resource_status?: string | null;
  resource_health_description?: string | null;
  /** The resource's type (0109; a trigger fills it when not given). */
  resource_type?: string | null;
  body?: string | null;
  error?: string | null;
  duration_millis?: number | null;
  person_id?: string | null;
  team_id?: string | null;
  connection_id?: string | null;
  silenced_by?: string | null;
  parent_id?: string | null;
  not_before?: Date | null;
  payload?: Record<string, unknown> | null;
  recipient: Record<string, unknown>;
}

const HISTORY_FIELDS = [
  'notification_id', 'status', 'source_event', 'resource_id', 'resource_health', 'resource_status',
  'resource_health_description', 'body', 'error', 'duration_millis', 'person_id', 'team_id', 'connection_id',
  'silenced_by', 'parent_id', 'not_before', 'payload', 'recipient', 'resource_type',
] as const;

/** The column types of HISTORY_FIELDS (an INSERT ... SELECT does not infer its parameters' types from the columns). */
const HISTORY_TYPES: Record<(typeof HISTORY_FIELDS)[number], string> = {
  notification_id: 'uuid', status: 'text', source_event: 'text', resource_id: 'uuid', resource_health: 'text',
  resource_status: 'text', resource_health_description: 'text', body: 'text', error: 'text', duration_millis: 'int',
  person_id: 'uuid', team_id: 'uuid', connection_id: 'uuid', silenced_by: 'uuid', parent_id: 'uuid',
  not_before: 'timestamptz', payload: 'jsonb', recipient: 'jsonb', resource_type: 'text',
};

const INSERT_HISTORY = `INSERT INTO notification_send_history (${HISTORY_FIELDS.join(', ')})
     VALUES (${HISTORY_FIELDS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`;

/**
 * Inserts a history row; returns its id. `xid`: also the writing transaction's id (txid_current()); `also`: an SQL
 * expression evaluated in the same statement (a NOTIFY), so a send's write is one round trip.
 */
export async function insertHistory(db: Q, h: HistoryInput): Promise<string>;
export async function insertHistory(db: Q, h: HistoryInput, o: { xid: true; also?: string }): Promise<{ id: string; xid: string }>;
export async function insertHistory(db: Q, h: HistoryInput, o?: { xid: true; also?: string }): Promise<string | { id: string; xid: string }> {
  const values = HISTORY_FIELDS.map((f) => h[f] ?? null);
  // named (prepared once per connection): PostgreSQL parses and plans the pipeline's hot statements once
  if (!o) return (await db.query<{ id: string }>({ name: 'nsh_insert', text: INSERT_HISTORY, values })).rows[0].id;
  const text = `WITH h AS (${INSERT_HISTORY}) SELECT h.id, txid_current()::text AS xid${o.also ? `, ${o.also} AS also` : ''} FROM h`;
  const { rows } = await db.query<{ id: string; xid: string }>({ name: `nsh_insert_${hash(text)}`, text, values });
  return { id: rows[0].id, xid: rows[0].xid };
}

/** Updates a held (pending) row in place with its outcome. */
export async function finishHistory(db: Q, id: string, h: Partial<HistoryInput>): Promise<void> {
  const fields = HISTORY_FIELDS.filter((f) => h[f] !== undefined);
  if (!fields.length) return;
  await db.query(
    `UPDATE notification_send_history SET ${fields.map((f, i) => `${f} = $${i + 2}`).join(', ')} WHERE id = $1`,
    [id, ...fields.map((f) => h[f])]);
}

/**
 * Dedupe (issue 15): an identical unsent row (same rule, resource, event, recipient and status) of the last 24 h
 * counts one more instead of a new row; first_observed stays, created_at moves to now. Returns its id, or null.
 */
export async function bumpIdentical(db: Q, h: HistoryInput, recipientKey: Record<string, unknown>): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE notification_send_history SET count = count + 1, created_at = now(), error = coalesce($6, error),
       silenced_by = coalesce($7, silenced_by), parent_id = coalesce($8, parent_id)
     WHERE id = (
       SELECT id FROM notification_send_history
       WHERE notification_id = $1 AND resource_id = $2 AND source_event = $3 AND status = $4 AND recipient @> $5::jsonb
         AND status <> 'sent' AND created_at > now() - interval '24 hours'
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE)
     RETURNING id`,
    [h.notification_id, h.resource_id, h.source_event, h.status, JSON.stringify(recipientKey), h.error ?? null,
      h.silenced_by ?? null, h.parent_id ?? null]);
  return rows[0]?.id ?? null;
}

/** The last `sent` (or `sending`: it is on its way) row of the rule, resource, event and recipient inside the repeat interval. */
export async function recentSent(db: Q, ruleId: string, resourceId: string, event: string,
  recipientKey: Record<string, unknown>, withinMs: number): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM notification_send_history
     WHERE notification_id = $1 AND resource_id = $2 AND source_event = $3 AND status IN ('sent', 'sending')
       AND recipient @> $4::jsonb AND created_at > now() - make_interval(secs => $5::float8 / 1000)
     ORDER BY created_at DESC LIMIT 1`,
    [ruleId, resourceId, event, JSON.stringify(recipientKey), withinMs]);
  return rows[0]?.id ?? null;
}

/** Sends (and digest members) of the rule and recipient since a moment: the rate limit and the burst window. */
export async function sentSince(db: Q, ruleId: string, recipientKey: Record<string, unknown>, sinceMs: number):
  Promise<{ count: number; last: Date | null }> {
  const { rows } = await db.query<{ count: number; last: Date | null }>(
    `SELECT count(*)::int AS count, max(created_at) AS last FROM notification_send_history
     WHERE notification_id = $1 AND status = 'sent' AND recipient @> $2::jsonb
       AND created_at > now() - make_interval(secs => $3::float8 / 1000)`,
    [ruleId, JSON.stringify(recipientKey), sinceMs]);
  return rows[0];
}

/** A held digest row of the rule and recipient not yet released (a burst joins it). */
export async function openDigest(db: Q, ruleId: string, recipientKey: Record<string, unknown>):
  Promise<{ id: string; not_before: Date } | null> {
  const { rows } = await db.query<{ id: string; not_before: Date }>(
    `SELECT id, not_before FROM notification_send_history
     WHERE notification_id = $1 AND status = 'pending' AND recipient @> $2::jsonb
       AND payload ->> 'digest' IN ('burst', 'rate-limit')
     ORDER BY not_before LIMIT 1`,
    [ruleId, JSON.stringify(recipientKey)]);
  return rows[0] ?? null;
}

const DIGEST_STATE = `SELECT d.id, d.not_before,
            count(s.id) FILTER (WHERE s.created_at > now() - make_interval(secs => $3::float8 / 1000))::int AS rate_count,
            count(s.id) FILTER (WHERE s.created_at > now() - make_interval(secs => $4::float8 / 1000))::int AS group_count,
            max(s.created_at) FILTER (WHERE s.created_at > now() - make_interval(secs => $4::float8 / 1000)) AS group_last
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (
         SELECT id, not_before FROM notification_send_history
          WHERE notification_id = $1 AND status = 'pending' AND recipient @> $2::jsonb
            AND payload ->> 'digest' IN ('burst', 'rate-limit')
          ORDER BY not_before LIMIT 1) d ON true
       LEFT JOIN notification_send_history s ON s.notification_id = $1 AND s.status = 'sent' AND s.recipient @> $2::jsonb
            AND s.created_at > now() - make_interval(secs => greatest($3::float8, $4::float8) / 1000)
      GROUP BY d.id, d.not_before`;

/** The digest facts as digestState answers them. */
export interface DigestState { open: { id: string; not_before: Date } | null; rateCount: number; groupCount: number; groupLast: Date | null }

/**
 * A fresh send's `sending` row, inserted in the statement that reads the digest facts (digestState) unless they hold
 * it back: the open digest, a burst (when `grouping`) or the rate limit. Returns the facts, and the row (its id, the
 * transaction's id) when it was inserted; `also` is evaluated in the same statement (a NOTIFY) when it was.
 */
export async function insertSendingUnlessHeld(db: Q, h: HistoryInput, digest: { key: Record<string, unknown>; rateMs: number;
  groupMs: number; grouping: boolean; rateLimit: number }, also?: string): Promise<{ state: DigestState; row: { id: string; xid: string } | null }> {
  const n = HISTORY_FIELDS.length;
  const text = `WITH st AS (${DIGEST_STATE.replace(/\$(\d+)/g, (_, i: string) => `$${Number(i) + n}`)}),
     go AS (SELECT 1 FROM st WHERE st.id IS NULL AND NOT ($${n + 5}::boolean AND st.group_count > 0) AND st.rate_count < $${n + 6}),
     h AS (INSERT INTO notification_send_history (${HISTORY_FIELDS.join(', ')})
           SELECT ${HISTORY_FIELDS.map((f, i) => `$${i + 1}::${HISTORY_TYPES[f]}`).join(', ')} FROM go RETURNING id)
     SELECT st.id AS open_id, st.not_before, st.rate_count, st.group_count, st.group_last, h.id, txid_current()::text AS xid
            ${also ? `, CASE WHEN h.id IS NOT NULL THEN ${also} END AS also` : ''}
       FROM st LEFT JOIN h ON true`;
  const values = [...HISTORY_FIELDS.map((f) => h[f] ?? null), h.notification_id, JSON.stringify(digest.key), digest.rateMs, digest.groupMs,
    digest.grouping, digest.rateLimit];
  const { rows } = await db.query<{ open_id: string | null; not_before: Date | null; rate_count: number; group_count: number;
    group_last: Date | null; id: string | null; xid: string }>({ name: `nsh_send_unless_held_${hash(text)}`, text, values });
  const r = rows[0];
  return {
    state: {
      open: r?.open_id && r.not_before ? { id: r.open_id, not_before: r.not_before } : null,
      rateCount: r?.rate_count ?? 0, groupCount: r?.group_count ?? 0, groupLast: r?.group_last ?? null,
    },
    row: r?.id ? { id: r.id, xid: r.xid } : null,
  };
}

/**
 * The digest decision's facts in one query: the rule and recipient's open digest (a held burst or rate-limit row),
 * and its sent rows inside the rate window and inside the burst window (count, newest).
 */
export async function digestState(db: Q, ruleId: string, recipientKey: Record<string, unknown>, rateMs: number, groupMs: number):
  Promise<{ open: { id: string; not_before: Date } | null; rateCount: number; groupCount: number; groupLast: Date | null }> {
  const { rows } = await db.query<{ id: string | null; not_before: Date | null; rate_count: number; group_count: number; group_last: Date | null }>({
    name: 'nsh_digest_state',
    text: DIGEST_STATE,
    values: [ruleId, JSON.stringify(recipientKey), rateMs, groupMs] });
  const r = rows[0];
  return {
    open: r?.id && r.not_before ? { id: r.id, not_before: r.not_before } : null,
    rateCount: r?.rate_count ?? 0, groupCount: r?.group_count ?? 0, groupLast: r?.group_last ?? null,
  };
}

/** A held row whose time has come, as the sweeper claims it. */
export interface DueRow {
  id: string;
  notification_id: string;
  payload: Record<string, unknown> | null;
  recipient: Record<string, unknown> | null;
}

/**
 * Claims due held rows (wait_for, digests, quiet hours) with SKIP LOCKED: every replica sweeps, none takes a row
 * another holds. The claim marks them evaluating-waitfor; the send event it enqueues in the same transaction finishes
 * them (at least once: a crash before the commit leaves them pending).
 */
export async function claimDue(db: Q, limit: number): Promise<DueRow[]> {
  const { rows } = await db.query<DueRow>(
    `UPDATE notification_send_history h SET status = 'evaluating-waitfor'
     FROM (SELECT id FROM notification_send_history WHERE status = 'pending' AND not_before <= now()
           ORDER BY not_before LIMIT $1 FOR UPDATE SKIP LOCKED) due
     WHERE h.id = due.id
     RETURNING h.id, h.notification_id, h.payload, h.recipient`, [limit]);
  return rows;
}

/** Rows joined into a digest, with what their events were about. */
export async function digestMembers(db: Q, ids: string[]): Promise<{ id: string; payload: Record<string, unknown> | null }[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<{ id: string; payload: Record<string, unknown> | null }>(
    'SELECT id, payload FROM notification_send_history WHERE id = ANY($1::uuid[])', [ids]);
  return rows;
}

/** A `sending` row as a delivery reads it. */
export interface SendingRow {
  id: string;
  notification_id: string;
  payload: Record<string, unknown> | null;
}

/** The rows of a delivery still `sending` (finished or gone rows are not delivered again). */
export async function sendingRows(db: Q, ids: string[]): Promise<SendingRow[]> {
  const { rows } = await db.query<SendingRow>(
    `SELECT id, notification_id, payload FROM notification_send_history WHERE id = ANY($1::uuid[]) AND status = 'sending'
     ORDER BY created_at, id`, [ids]);
  return rows;
}

/** Marks held rows released together `sending` (one delivery: payload.batch names its first row) under a lease. */
export async function markSending(db: Q, ids: string[], leaseMs: number, h: Partial<HistoryInput>): Promise<void> {
  const fields = HISTORY_FIELDS.filter((f) => h[f] !== undefined && f !== 'status' && f !== 'not_before' && f !== 'payload');
  await db.query(
    `UPDATE notification_send_history SET status = 'sending', not_before = now() + make_interval(secs => $2::float8 / 1000),
       payload = coalesce(payload, '{}'::jsonb) || jsonb_build_object('batch', $3::text)
       ${fields.map((f, i) => `, ${f} = $${i + 4}`).join('')}
     WHERE id = ANY($1::uuid[])`,
    [ids, leaseMs, ids[0], ...fields.map((f) => h[f])]);
}

/** Finishes a delivery's rows (only those still `sending`: a re-take that finished first wins). */
export async function finishSending(db: Q, ids: string[], o: { status: string; error?: string | null; body?: string | null; duration_millis?: number | null },
  also?: string): Promise<void> {
  const update = `UPDATE notification_send_history SET status = $2, error = $3, body = coalesce($4, body), duration_millis = $5, not_before = NULL
     WHERE id = ANY($1::uuid[]) AND status = 'sending'`;
  // `also`: an SQL expression evaluated once in the same statement (a NOTIFY)
  const text = also ? `WITH u AS (${update} RETURNING 1) SELECT ${also} AS also, (SELECT count(*) FROM u) AS n` : update;
  await db.query({ name: `nsh_finish_${hash(text)}`, text, values: [ids, o.status, o.error ?? null, o.body ?? null, o.duration_millis ?? null] });
}

/**
 * Finishes the rows of several deliveries in one statement (each row its own outcome; only rows still `sending`),
 * and evaluates `also` (a NOTIFY) once.
 */
export async function finishMany(db: Q, rows: { id: string; status: string; error?: string | null; body?: string | null; duration_millis?: number | null }[],
  also?: string): Promise<void> {
  if (!rows.length) return;
  const update = `UPDATE notification_send_history h SET status = v.status, error = v.error, body = coalesce(v.body, h.body),
       duration_millis = v.duration_millis, not_before = NULL
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[]) AS v(id, status, error, body, duration_millis)
     WHERE h.id = v.id AND h.status = 'sending'`;
  const text = also ? `WITH u AS (${update} RETURNING 1) SELECT ${also} AS also, (SELECT count(*) FROM u) AS n` : update;
  await db.query({
    name: `nsh_finish_many_${hash(text)}`, text,
    values: [rows.map((r) => r.id), rows.map((r) => r.status), rows.map((r) => r.error ?? null), rows.map((r) => r.body ?? null),
      rows.map((r) => (r.duration_millis === null || r.duration_millis === undefined ? null : Math.round(r.duration_millis)))],
  });
}

/**
 * Re-takes `sending` rows whose lease expired (their replica died mid-delivery) with SKIP LOCKED, leasing them again
 * to this replica; returns them as deliveries (rows of one digest together).
 */
export async function retakeExpired(db: Q, leaseMs: number, limit: number): Promise<string[][]> {
  const { rows } = await db.query<{ id: string; batch: string }>(
    `UPDATE notification_send_history h SET not_before = now() + make_interval(secs => $1::float8 / 1000)
     FROM (SELECT id FROM notification_send_history WHERE status = 'sending' AND not_before <= now()
           ORDER BY not_before LIMIT $2 FOR UPDATE SKIP LOCKED) due
     WHERE h.id = due.id
     RETURNING h.id, coalesce(h.payload->>'batch', h.id::text) AS batch`, [leaseMs, limit]);
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.batch, [...(out.get(r.batch) ?? []), r.id]);
  return [...out.values()];
}

/** Renews the lease of rows a live replica holds (queued or delivering), so no sweeper re-takes them. */
export async function renewLease(db: Q, ids: string[], leaseMs: number): Promise<void> {
  await db.query(
    `UPDATE notification_send_history SET not_before = now() + make_interval(secs => $2::float8 / 1000)
     WHERE id = ANY($1::uuid[]) AND status = 'sending'`, [ids, leaseMs]);
}
