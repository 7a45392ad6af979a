import type pg from 'pg';

/**
 * The SQL of the connections module. Table and column names come from the USERS registry below only; every value is
 * a bound parameter.
 */

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface ConnectionKey {
  id: string;
  name: string;
  namespace: string;
  type: string;
}

/** A live connection's identity (no secret column), or undefined. */
export async function connectionKey(db: Queryable, id: string): Promise<ConnectionKey | undefined> {
  const { rows } = await db.query<ConnectionKey>(
    'SELECT id, name, namespace, type FROM connections WHERE id::text = $1 AND deleted_at IS NULL', [id],
  );
  return rows[0];
}

/** What can name a connection: the table, the columns listed, where its namespace is, the JSON it is named in. */
interface UserTable {
  table: string;
  columns: readonly string[];
  /** The namespace a bare `connection://<name>` is looked up in (the canary's for a check). */
  namespace: string;
  json: readonly string[];
}

export const USERS = {
  checks: { table: 'checks', columns: ['id', 'name', 'canary_id'], namespace: "coalesce(t.namespace, 'default')", json: ['spec'] },
  notifications: { table: 'notifications', columns: ['id', 'name', 'namespace'], namespace: "coalesce(t.namespace, 'default')", json: ['spec', 'properties'] },
  playbooks: { table: 'playbooks', columns: ['id', 'name', 'namespace'], namespace: 't.namespace', json: ['spec'] },
  scrapers: { table: 'config_scrapers', columns: ['id', 'name', 'namespace'], namespace: "coalesce(t.namespace, 'default')", json: ['spec'] },
} as const satisfies Record<string, UserTable>;

export type UsageKind = keyof typeof USERS;

/**
 * Rows of one kind whose JSON holds a string naming the connection: `connection://<namespace>/<name>`,
 * `connection://<name>` in the connection's namespace, the older `connection://<type>/<name>`, or its id. The LIKE
 * on the JSON text keeps the walk of each document to rows that mention the name or id at all.
 */
export async function usersOf(db: Queryable, kind: UsageKind, c: ConnectionKey): Promise<Record<string, unknown>[]> {
  const u: UserTable = USERS[kind];
  const cols = u.columns.map((col) => `t.${col}`).join(', ');
  const docs = u.json.map((j) => `coalesce(t.${j}, 'null'::jsonb)`);
  const mentions = docs.map((d) => `(${d}::text LIKE '%' || $5 || '%' OR ${d}::text LIKE '%' || $1 || '%')`).join(' OR ');
  const names = docs.map((d) => `EXISTS (
      SELECT 1 FROM jsonb_path_query(${d}, 'strict $.**') AS v(x)
      WHERE jsonb_typeof(v.x) = 'string' AND (
        lower(v.x #>> '{}') = lower('connection://' || $2 || '/' || $3)
        OR (lower(v.x #>> '{}') = lower('connection://' || $3) AND ${u.namespace} = $2)
        OR lower(v.x #>> '{}') = lower('connection://' || $4 || '/' || $3)
        OR v.x #>> '{}' = $1))`).join(' OR ');
  const { rows } = await db.query(
    `SELECT ${cols} FROM ${u.table} t WHERE t.deleted_at IS NULL AND (${mentions}) AND (${names}) ORDER BY t.name LIMIT 500`,
    [c.id, c.namespace, c.name, c.type, c.name.replace(/[\\%_]/g, '\\$&')],
  );
  return rows;
}
