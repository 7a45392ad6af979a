import type pg from 'pg';

/**
 * The /api/playbook routes' SQL (issue 14 "API"): playbooks, the run's resource, ids a parameter names, runs as read
 * (secret parameters `***`, lease columns left out), and log lines for the live watchers. Parameterised only; table
 * and column names are constants here.
 */

type Queryable = Pick<pg.Pool | pg.PoolClient | pg.Client, 'query'>;

export interface PlaybookApiRow {
  [column: string]: unknown;
  id: string;
  name: string;
  namespace: string;
  title: string;
  icon: string | null;
  description: string | null;
  category: string;
  source: string;
  created_at: string;
  created_by: string | null;
  spec: Record<string, unknown>;
}

const PLAYBOOK_COLUMNS = 'p.id, p.name, p.namespace, p.title, p.icon, p.description, p.category, p.source, p.created_at, p.created_by, p.spec';

/** A live playbook, or null. */
export async function getLivePlaybook(db: Queryable, id: string): Promise<PlaybookApiRow | null> {
  const { rows } = await db.query<PlaybookApiRow>(
    `SELECT ${PLAYBOOK_COLUMNS} FROM playbooks p WHERE p.id = $1 AND p.deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
}

/** Every live playbook, by title. */
export async function listLivePlaybooks(db: Queryable): Promise<PlaybookApiRow[]> {
  const { rows } = await db.query<PlaybookApiRow>(
    `SELECT ${PLAYBOOK_COLUMNS} FROM playbooks p WHERE p.deleted_at IS NULL ORDER BY coalesce(nullif(p.title, ''), p.name), p.id`);
  return rows;
}

/** The three kinds of resource a playbook runs on, with their tables (constants). */
export const RESOURCE_KINDS = {
  check: { table: 'checks', param: 'check_id', selectors: 'checks' },
  config: { table: 'config_items', param: 'config_id', selectors: 'configs' },
  component: { table: 'components', param: 'component_id', selectors: 'components' },
} as const;
export type ResourceKind = keyof typeof RESOURCE_KINDS;

/** A live resource's row as templates see it (`.check`, `.config`, `.component`), or null. */
export async function getResource(db: Queryable, kind: ResourceKind, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(r) AS row FROM ${RESOURCE_KINDS[kind].table} r WHERE r.id = $1 AND r.deleted_at IS NULL`, [id]);
  return rows[0]?.row ?? null;
}

/** A check's canary row (`.canary` in templates). */
export async function getCanary(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ row: Record<string, unknown> }>(
    'SELECT to_jsonb(c) - \'spec\' AS row FROM canaries c WHERE c.id = $1', [id]);
  return rows[0]?.row ?? null;
}

/** For each `where` clause (over one row of `table`, parameters in `values`), whether row `id` satisfies it. */
export async function matchClauses(
  db: Queryable, kind: ResourceKind, id: string, clauses: readonly string[], values: readonly unknown[],
): Promise<boolean[]> {
  if (!clauses.length) return [];
  const idParam = `$${values.length + 1}`;
  const cols = clauses.map((c, i) => `EXISTS (SELECT 1 FROM ${RESOURCE_KINDS[kind].table} WHERE id = ${idParam} AND (${c})) AS m${i}`);
  const { rows } = await db.query<Record<string, boolean>>(`SELECT ${cols.join(', ')}`, [...values, id]);
  return clauses.map((_c, i) => rows[0][`m${i}`] === true);
}

/** Which of the ids exist (live) in the table a parameter type names. */
export const ID_TABLES = {
  people: 'people', team: 'teams', check: 'checks', config: 'config_items', component: 'components',
} as const;

export async function existingIds(db: Queryable, table: keyof typeof ID_TABLES, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM ${ID_TABLES[table]} WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/** The caller as templates see it (`.user`). */
export async function getPerson(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ row: Record<string, unknown> }>(
    'SELECT jsonb_build_object(\'id\', id, \'name\', name, \'email\', email) AS row FROM people WHERE id = $1', [id]);
  return rows[0]?.row ?? null;
}

// runs and actions as read: parameters through the mask (0074), lease columns left out
const RUN_COLUMNS = `r.id, r.playbook_id, r.spec, r.status, r.created_at, r.start_time, r.scheduled_time, r.end_time,
  r.timeout, r.created_by, r.check_id, r.config_id, r.component_id,
  playbook_run_parameters_masked(r.parameters) AS parameters, r.request, r.agent_id, r.parent_id,
  r.notification_send_id, r.error`;
const ACTION_COLUMNS = `a.id, a.name, a.status, a.retry_count, a.playbook_run_id, a.start_time, a.scheduled_time,
  a.end_time, a.result, a.is_pushed, a.agent_id, a.error`;

export async function getRunView(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query(`SELECT ${RUN_COLUMNS} FROM playbook_runs r WHERE r.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listRunActions(db: Queryable, runId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query(
    `SELECT ${ACTION_COLUMNS} FROM playbook_run_actions a WHERE a.playbook_run_id = $1 ORDER BY a.scheduled_time, a.start_time NULLS LAST, a.id`,
    [runId]);
  return rows;
}

/** A run's stored parameters as written (a re-run reuses a sealed secret the caller sent back as `***`). */
export async function getRunParameters(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ parameters: Record<string, unknown> | null }>(
    'SELECT parameters FROM playbook_runs WHERE id = $1', [id]);
  return rows.length ? (rows[0].parameters ?? {}) : null;
}

export interface LogLineRow {
  action_id: string;
  seq: number;
  stream: string;
  text: string;
  created_at: Date;
}

/**
 * Up to `limit` stored lines of a run after the given seqs (action id → last seq sent; an action not listed from
 * its first line), in (action, seq) order.
 */
export async function logLinesAfter(
  db: Queryable, runId: string, since: Readonly<Record<string, number>>, limit: number,
): Promise<LogLineRow[]> {
  const actions = Object.keys(since);
  const { rows } = await db.query<LogLineRow>(
    `SELECT l.action_id, l.seq, l.stream, l.text, l.created_at
       FROM playbook_run_action_logs l
       LEFT JOIN unnest($2::uuid[], $3::int[]) AS s(action_id, seq) ON s.action_id = l.action_id
      WHERE l.run_id = $1 AND l.seq > coalesce(s.seq, -1)
      ORDER BY l.action_id, l.seq
      LIMIT $4`,
    [runId, actions, actions.map((a) => since[a]), limit]);
  return rows;
}
