import type pg from 'pg';
import { parseConnectionRef, type ConnectionTarget } from '../../lib/connection-ref.js';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** A team responder claimed for delivery, with what the message needs. */
export interface ClaimedResponder {
  id: string;
  incident_id: string;
  external_id: string | null;
  properties: Record<string, unknown> | null;
  team_name: string;
  /** The team's `spec.responder_clients[responderType]` (may name a connection). */
  client: Record<string, unknown> | null;
  incident_display_id: string;
  incident_title: string;
}

/** An SMTP-capable row of `connections` (secrets included: never returned or logged). */
export interface SmtpConnectionRow extends ConnectionTarget {
  properties: Record<string, unknown> | null;
}

/**
 * Claims up to `limit` team responders waiting for delivery: pending ones, and ones left `sending` for over
 * `staleSeconds` (a replica died mid-send). The conditional UPDATE makes each claim exclusive across replicas.
 */
export async function claimPending(db: Queryable, limit: number, staleSeconds: number): Promise<ClaimedResponder[]> {
  const { rows } = await db.query<ClaimedResponder>(
    `WITH picked AS (
       SELECT id FROM responders
       WHERE deleted_at IS NULL AND team_id IS NOT NULL
         AND (delivery_status = 'pending'
              OR (delivery_status = 'sending' AND updated_at < now() - make_interval(secs => $2)))
       ORDER BY created_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     UPDATE responders r SET delivery_status = 'sending', delivery_error = NULL
     FROM picked, teams t, incidents i
     WHERE r.id = picked.id AND t.id = r.team_id AND i.id = r.incident_id
     RETURNING r.id, r.incident_id, r.external_id, r.properties, t.name AS team_name,
       t.spec -> 'responder_clients' -> (r.properties ->> 'responderType') AS client,
       i.incident_id AS incident_display_id, i.title AS incident_title`,
    [limit, staleSeconds],
  );
  return rows;
}

/** Records the outcome of one delivery. `externalId` fills external_id only when the person left it empty. */
export async function finishDelivery(
  db: Queryable, id: string, status: 'sent' | 'failed' | 'recorded', error: string | null, externalId: string | null,
): Promise<void> {
  await db.query(
    `UPDATE responders SET delivery_status = $2, delivery_error = $3,
       delivered_at = CASE WHEN $2 = 'sent' THEN now() ELSE delivered_at END,
       external_id = coalesce(nullif(external_id, ''), $4)
     WHERE id = $1 AND delivery_status = 'sending'`,
    [id, status, error, externalId],
  );
}

/**
 * The SMTP connection for an email responder: the one the team's client names (`connection://ns/name`, `ns/name`,
 * a name or an id), else the oldest connection of type smtp. Deleted connections never count.
 */
export async function findSmtpConnection(db: Queryable, ref: string | null): Promise<SmtpConnectionRow | null> {
  const cols = 'id, name, namespace, type, url, username, password, insecure_tls, properties';
  if (ref) {
    const bare = ref.replace(/^connection:\/\//, '');
    // a malformed reference can still be an id
    const { namespace: ns, name } = parseConnectionRef(ref) ?? { namespace: null, name: bare };
    const { rows } = await db.query<SmtpConnectionRow>(
      `SELECT ${cols} FROM connections
       WHERE deleted_at IS NULL AND (id::text = $1 OR (name = $2 AND ($3::text IS NULL OR namespace = $3)))
       ORDER BY created_at LIMIT 1`,
      [bare, name, ns],
    );
    return rows[0] ?? null;
  }
  const { rows } = await db.query<SmtpConnectionRow>(
    `SELECT ${cols} FROM connections
     WHERE deleted_at IS NULL AND (lower(type) = 'smtp' OR url ILIKE 'smtp://%' OR url ILIKE 'smtps://%')
     ORDER BY created_at LIMIT 1`,
  );
  return rows[0] ?? null;
}

/** Puts a failed (or recorded) team responder back in the queue; false when there is no such responder. */
export async function requeue(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE responders SET delivery_status = 'pending', delivery_error = NULL
     WHERE id = $1 AND team_id IS NOT NULL AND deleted_at IS NULL AND delivery_status IN ('failed', 'recorded', 'pending')`,
    [id],
  );
  return (rowCount ?? 0) > 0;
}

/** A definition-of-done evidence whose script has not (yet) found it done, with what the script may read. */
export interface DodEvidence {
  id: string;
  script: string;
  type: string;
  description: string;
  evidence: unknown;
  properties: unknown;
  /** The check's summary row (status, uptime, latency, labels...) for check evidence, else null. */
  check: Record<string, unknown> | null;
  incident: Record<string, unknown>;
}

/** Open incidents' definition-of-done evidences with a script that are not done yet. */
export async function dodToEvaluate(db: Queryable, limit: number): Promise<DodEvidence[]> {
  const { rows } = await db.query<DodEvidence>(
    `SELECT e.id, e.script, e.type, e.description, e.evidence, e.properties,
       (SELECT to_jsonb(c) FROM check_summary c WHERE c.id = e.check_id) AS "check",
       jsonb_build_object('id', i.id, 'incident_id', i.incident_id, 'title', i.title, 'status', i.status,
         'severity', i.severity, 'type', i.type) AS incident
     FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id JOIN incidents i ON i.id = h.incident_id
     WHERE e.definition_of_done AND e.script IS NOT NULL AND btrim(e.script) <> '' AND e.done IS NOT TRUE
       AND i.status <> 'closed'
     ORDER BY e.updated_at
     LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Records a script's outcome; touches the row (and its updated_at) only when something changed. */
export async function recordDod(db: Queryable, id: string, done: boolean, result: string): Promise<void> {
  await db.query(
    `UPDATE evidences SET done = $2, script_result = $3
     WHERE id = $1 AND (done IS DISTINCT FROM $2 OR script_result IS DISTINCT FROM $3)`,
    [id, done, result],
  );
}
