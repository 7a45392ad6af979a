import type pg from 'pg';
import { KUBERNETES_CRD_SOURCE } from '../../contracts/kubernetes.js';
import { notifyChange } from '../../lib/events.js';
import { columnsOfSpec } from '../connections/cr.js';
import { reconcileChecks, softDeleteCanary } from '../health/queries.js';
import type { CheckDef } from '../health/spec.js';
import type { KindDef } from './kinds.js';
import type { KubeObject } from './objects.js';
import { withOnKey } from '../playbooks/spec.js';
import { NOTIFICATION_COLUMNS, notificationRowOf, SILENCE_COLUMNS, silenceRowOf } from '../notifications/cr/row.js';

/**
 * The SQL of the Kubernetes module: the kubernetes_objects ledger and one writer per table a kind reconciles into.
 * Identifiers are constants of this file (the table comes from the kinds registry, checked against WRITERS); every
 * value is a bound parameter.
 */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** A kubernetes_objects row, as the sync reads it back. */
export interface LedgerRow {
  uid: string;
  kind: string;
  namespace: string;
  name: string;
  resource_version: string | null;
  generation: string | null;
  managed_by: 'flux' | 'argo' | null;
  source_link: string | null;
  row_table: string | null;
  row_id: string | null;
  last_error: string | null;
  observed_at: string;
  deleted_at: string | null;
}

const LEDGER_COLS = `uid, kind, namespace, name, resource_version, generation::text, managed_by, source_link, row_table,
  row_id, last_error, observed_at, deleted_at`;

/** The live ledger rows of a kind (what the console believes exists in the cluster). */
export async function liveObjects(c: Q, kind: string): Promise<LedgerRow[]> {
  const { rows } = await c.query<LedgerRow>(
    `SELECT ${LEDGER_COLS} FROM kubernetes_objects WHERE kind = $1 AND deleted_at IS NULL`, [kind],
  );
  return rows;
}

export async function liveObjectByKey(c: Q, kind: string, namespace: string, name: string): Promise<LedgerRow | undefined> {
  const { rows } = await c.query<LedgerRow>(
    `SELECT ${LEDGER_COLS} FROM kubernetes_objects WHERE kind = $1 AND namespace = $2 AND name = $3 AND deleted_at IS NULL
     FOR UPDATE`,
    [kind, namespace, name],
  );
  return rows[0];
}

/** The ledger row of a table row (a canary id), live or not. */
export async function objectByRow(c: Q, table: string, rowId: string): Promise<LedgerRow | undefined> {
  const { rows } = await c.query<LedgerRow>(
    `SELECT ${LEDGER_COLS} FROM kubernetes_objects WHERE row_table = $1 AND row_id = $2
     ORDER BY deleted_at IS NULL DESC, observed_at DESC LIMIT 1`,
    [table, rowId],
  );
  return rows[0];
}

export async function countLive(c: Q): Promise<Map<string, number>> {
  const { rows } = await c.query<{ kind: string; n: number }>(
    'SELECT kind, count(*)::int AS n FROM kubernetes_objects WHERE deleted_at IS NULL GROUP BY kind',
  );
  return new Map(rows.map((r) => [r.kind, r.n]));
}

export async function invalidObjects(c: Q, limit = 100): Promise<Array<{ kind: string; namespace: string; name: string; error: string; at: string }>> {
  const { rows } = await c.query(
    `SELECT kind, namespace, name, last_error AS error, observed_at AS at FROM kubernetes_objects
     WHERE deleted_at IS NULL AND last_error IS NOT NULL ORDER BY observed_at DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
}

/** Annotations worth keeping: kubectl's last-applied copy of the whole object is dropped (it can be large). */
export function keptAnnotations(a: Record<string, string> | undefined): Record<string, string> | null {
  if (!a) return null;
  const out = Object.fromEntries(Object.entries(a).filter(([k]) => k !== 'kubectl.kubernetes.io/last-applied-configuration'));
  return Object.keys(out).length ? out : null;
}

export async function upsertLedger(c: Q, v: {
  obj: KubeObject; kind: KindDef; managedBy: string | null; sourceLink: string | null; rowId: string | null; error: string | null;
  /** This replica's identity. */
  by: string;
}): Promise<void> {
  const m = v.obj.metadata;
  await c.query(
    `INSERT INTO kubernetes_objects (uid, kind, api_version, namespace, name, resource_version, generation, labels,
       annotations, managed_by, source_link, row_table, row_id, last_error, observed_by, observed_at, deleted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, now(), NULL)
     ON CONFLICT (uid) DO UPDATE SET namespace = EXCLUDED.namespace, name = EXCLUDED.name,
       resource_version = EXCLUDED.resource_version, generation = EXCLUDED.generation, labels = EXCLUDED.labels,
       annotations = EXCLUDED.annotations, managed_by = EXCLUDED.managed_by, source_link = EXCLUDED.source_link,
       row_table = EXCLUDED.row_table, row_id = coalesce(EXCLUDED.row_id, kubernetes_objects.row_id),
       last_error = EXCLUDED.last_error, observed_by = EXCLUDED.observed_by, observed_at = now(), deleted_at = NULL`,
    [m.uid, v.kind.kind, `${v.kind.group}/${v.kind.version}`, m.namespace ?? '', m.name, m.resourceVersion ?? null,
      m.generation ?? null, m.labels ?? null, keptAnnotations(m.annotations), v.managedBy, v.sourceLink, v.kind.table,
      v.rowId, v.error, v.by],
  );
}

export async function markLedgerDeleted(c: Q, uid: string, by: string): Promise<void> {
  await c.query(
    'UPDATE kubernetes_objects SET deleted_at = now(), observed_at = now(), observed_by = $2 WHERE uid = $1 AND deleted_at IS NULL',
    [uid, by],
  );
}

/** An EnvVar (`value`, or `valueFrom` a secret / config map / helm value / service account) as the reference stores it. */
export function envVarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (!v || typeof v !== 'object') return null;
  const e = v as { value?: unknown; valueFrom?: Record<string, { name?: string; key?: string } | string | undefined> };
  if (typeof e.value === 'string') return e.value;
  const from = e.valueFrom;
  if (!from) return null;
  const ref = (scheme: string, r: unknown) => {
    const x = r as { name?: string; key?: string };
    return `${scheme}://${x.name ?? ''}/${x.key ?? ''}`;
  };
  if (from.secretKeyRef) return ref('secret', from.secretKeyRef);
  if (from.configMapKeyRef) return ref('configmap', from.configMapKeyRef);
  if (from.helmRef) return ref('helm', from.helmRef);
  if (typeof from.serviceAccount === 'string') return `serviceaccount://${from.serviceAccount}`;
  return null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** What a writer needs to persist one CR's row. */
export interface RowInput {
  id: string;
  name: string;
  namespace: string;
  labels: Record<string, string> | null;
  annotations: Record<string, string> | null;
  spec: Record<string, unknown>;
  /** Canary only: the validated checks, reconciled by the health module's own code. */
  checks?: CheckDef[];
  /** Columns a kind's mapping computed from the spec (notifications: people, teams and durations resolved). */
  mapped?: Record<string, unknown>;
}

interface Writer {
  upsert(c: Q, r: RowInput): Promise<void>;
  softDelete(c: Q, id: string): Promise<void>;
}

const softDelete = (table: string) => async (c: Q, id: string) => {
  await c.query(`UPDATE ${table} SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`, [id]);
};

/**
 * The upsert of one table: `cols` after (id, name, namespace, labels, spec, source). A revived CR (same uid) clears
 * deleted_at.
 */
function tableWriter(table: string, extra: Record<string, (r: RowInput) => unknown>): Writer {
  const names = Object.keys(extra);
  const cols = ['id', 'name', 'namespace', 'labels', 'spec', 'source', ...names];
  const quoted = cols.map((c) => `"${c}"`);
  const params = cols.map((_, i) => `$${i + 1}`);
  const updates = quoted.filter((c) => c !== '"id"').map((c) => `${c} = EXCLUDED.${c}`);
  const sql = `INSERT INTO ${table} (${quoted.join(', ')}) VALUES (${params.join(', ')})
    ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}, deleted_at = NULL`;
  return {
    async upsert(c, r) {
      await c.query(sql, [r.id, r.name, r.namespace, r.labels, r.spec, KUBERNETES_CRD_SOURCE, ...names.map((n) => extra[n](r))]);
    },
    softDelete: softDelete(table),
  };
}

/** A writer that stores the spec as `map` gives it. */
function withSpec(w: Writer, map: (spec: RowInput['spec']) => RowInput['spec']): Writer {
  return { upsert: (c, r) => w.upsert(c, { ...r, spec: map(r.spec) }), softDelete: w.softDelete };
}

/** A table whose columns a kind's mapping computes from the spec (with the database at hand). */
function mappedWriter(table: string, columns: readonly string[], map: (c: Q, r: RowInput) => Promise<Record<string, unknown>>): Writer {
  const w = tableWriter(table, Object.fromEntries(columns.map((k) => [k, (r: RowInput) => r.mapped?.[k] ?? null])));
  return { upsert: async (c, r) => w.upsert(c, { ...r, mapped: await map(c, r) }), softDelete: w.softDelete };
}

/** One writer per table of the kinds registry. */
export const WRITERS: Record<KindDef['table'], Writer> = {
  canaries: {
    // The canary row, then its checks through the health module's reconcileChecks, as a console save does; the
    // scheduler picks the change up from the canaries table (it polls its signature), so CRs run like any canary.
    async upsert(c, r) {
      await c.query(
        `INSERT INTO canaries (id, name, namespace, labels, annotations, spec, source) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, namespace = EXCLUDED.namespace, labels = EXCLUDED.labels,
           annotations = EXCLUDED.annotations, spec = EXCLUDED.spec, source = EXCLUDED.source, deleted_at = NULL`,
        [r.id, r.name, r.namespace, r.labels, r.annotations, r.spec, KUBERNETES_CRD_SOURCE],
      );
      const checks = await reconcileChecks(c, r.id, r.namespace, r.checks ?? []);
      await notifyChange(c, { relation: 'checks', ids: checks.map((x) => x.id) });
    },
    async softDelete(c, id) {
      await softDeleteCanary(c, id); // the canary and its checks, as a console delete
      await notifyChange(c, { relation: 'checks' });
    },
  },
  topologies: tableWriter('topologies', { schedule: (r) => str(r.spec.schedule) }),
  config_scrapers: tableWriter('config_scrapers', {}),
  // the triggers under `on` even when YAML 1.1 made the key `true` (playbooks/spec.ts withOnKey)
  playbooks: withSpec(tableWriter('playbooks', {
    title: (r) => str(r.spec.title) ?? r.name,
    icon: (r) => str(r.spec.icon),
    description: (r) => str(r.spec.description),
    category: (r) => str(r.spec.category) ?? '',
  }), withOnKey),
  // flat fields, else crds.md's typed block (postgres: {url, username, password}, slack: {token, channel}...)
  connections: tableWriter('connections', {
    type: (r) => columnsOfSpec(r.spec).type,
    url: (r) => columnsOfSpec(r.spec).url,
    username: (r) => columnsOfSpec(r.spec).username,
    password: (r) => columnsOfSpec(r.spec).password,
    certificate: (r) => columnsOfSpec(r.spec).certificate,
    insecure_tls: (r) => columnsOfSpec(r.spec).insecure_tls,
    properties: (r) => columnsOfSpec(r.spec).properties,
  }),
  // every `to` / fallback field, durations in ns (server/modules/notifications/cr/row.ts); people and teams resolved
  // in this transaction (the reconciler's check refused unknown ones already)
  notifications: mappedWriter('notifications', NOTIFICATION_COLUMNS, async (c, r) => (await notificationRowOf(c, r.spec, r.namespace)).row),
  notification_silences: mappedWriter('notification_silences', SILENCE_COLUMNS, async (_c, r) => silenceRowOf(r.spec).row),
  incident_rules: tableWriter('incident_rules', {}),
  logging_backends: tableWriter('logging_backends', {}),
};

/** The latest health of one live check of a canary, for its CR status. */
export interface CanaryCheckHealth {
  id: string;
  name: string;
  status: string | null;
  last_runtime: string | null;
  last_transition_time: string | null;
  message: string | null;
  error: string | null;
  /** Results in the last hour, passed and all, and their 95th percentile duration (ms). */
  passed: number;
  total: number;
  p95: number | null;
}

/** The live checks of several canaries with their latest result and last hour, by canary id (one query). */
export async function canaryHealth(c: Q, canaryIds: string[]): Promise<Map<string, CanaryCheckHealth[]>> {
  const { rows } = await c.query(
    `SELECT ch.canary_id, ch.id, ch.name, coalesce(u.status, ch.status) AS status, u.last_runtime, ch.last_transition_time,
            u.last_message AS message, u.last_error AS error,
            coalesce(h.passed, 0)::int AS passed, coalesce(h.total, 0)::int AS total, h.p95
     FROM checks ch
     LEFT JOIN checks_unlogged u ON u.check_id = ch.id
     LEFT JOIN LATERAL (
       SELECT count(*) FILTER (WHERE s.status) AS passed, count(*) AS total,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY s.duration) AS p95
       FROM check_statuses s WHERE s.check_id = ch.id AND s.time > now() - interval '1 hour'
     ) h ON true
     WHERE ch.canary_id = ANY($1::uuid[]) AND ch.deleted_at IS NULL
     ORDER BY ch.canary_id, ch.type, ch.name`,
    [canaryIds],
  );
  const out = new Map<string, CanaryCheckHealth[]>();
  for (const r of rows) {
    const list = out.get(r.canary_id) ?? [];
    list.push({
      id: r.id, name: r.name, status: r.status, message: r.message, error: r.error, passed: r.passed, total: r.total,
      last_runtime: r.last_runtime ? new Date(r.last_runtime).toISOString() : null,
      last_transition_time: r.last_transition_time ? new Date(r.last_transition_time).toISOString() : null,
      p95: r.p95 === null ? null : Number(r.p95),
    });
    out.set(r.canary_id, list);
  }
  return out;
}
