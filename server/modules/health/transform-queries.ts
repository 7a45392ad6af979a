import type pg from 'pg';
import type { TransformedCheck } from './transform.js';

/** Parameterised SQL for transformed checks (transform.ts). Every value is a bound parameter. */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface TransformedRow {
  id: string;
  type: string;
  name: string;
  severity: string | null;
}

/**
 * Creates or updates the transformed checks of one check (`parentId`) under its canary, as the reference's
 * PersistCheck does for them: namespace from the result or the canary, description and icon from the result or the
 * check, owner and severity from the check, `deleted_at` from the result's deletedAt (revived when it has none). A
 * row of the canary's own spec with the same type and name is never taken over: that result is left out.
 */
export async function upsertTransformedChecks(
  c: Q, v: { canaryId: string; parentId: string; checks: TransformedCheck[] },
): Promise<TransformedRow[]> {
  const defs = v.checks.map((t) => ({
    type: t.type, name: t.name, namespace: t.namespace, description: t.description, icon: t.icon, labels: t.labels,
    strategy: t.transformDeleteStrategy, deleted_at: t.deletedAt?.toISOString() ?? null,
  }));
  const { rows } = await c.query<TransformedRow>(
    `INSERT INTO checks AS ch (canary_id, type, name, namespace, description, icon, labels, owner, severity,
                               transformed, transformed_by, transform_delete_strategy, deleted_at)
     SELECT $1, d.type, d.name, coalesce(d.namespace, ca.namespace), coalesce(d.description, p.description),
            coalesce(d.icon, p.icon), d.labels, p.owner, p.severity, true, p.id, d.strategy, d.deleted_at
     FROM jsonb_to_recordset($3::jsonb) AS d(type text, name text, namespace text, description text, icon text,
                                             labels jsonb, strategy text, deleted_at timestamptz)
     JOIN checks p ON p.id = $2
     JOIN canaries ca ON ca.id = $1
     ON CONFLICT (canary_id, type, name, agent_id) DO UPDATE SET
       namespace = EXCLUDED.namespace, description = EXCLUDED.description, icon = EXCLUDED.icon,
       labels = EXCLUDED.labels, owner = EXCLUDED.owner, severity = EXCLUDED.severity,
       transformed_by = EXCLUDED.transformed_by, transform_delete_strategy = EXCLUDED.transform_delete_strategy,
       deleted_at = EXCLUDED.deleted_at
     WHERE ch.transformed IS TRUE
     RETURNING id, type, name, severity`,
    [v.canaryId, v.parentId, JSON.stringify(defs)],
  );
  return rows;
}

/** The live transformed checks of a check that are not among `keep`: this run did not return them. */
export async function staleTransformedChecks(
  c: Q, parentId: string, keep: string[],
): Promise<Array<{ id: string; severity: string | null; transform_delete_strategy: string | null }>> {
  const { rows } = await c.query(
    `SELECT id, severity, transform_delete_strategy FROM checks
     WHERE transformed_by = $1 AND transformed IS TRUE AND deleted_at IS NULL AND NOT (id = ANY($2::uuid[]))`,
    [parentId, keep],
  );
  return rows;
}

/** Soft-deletes transformed checks (the reference's RemoveTransformedChecks); returns the ids it deleted. */
export async function removeTransformedChecks(c: Q, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const { rows } = await c.query<{ id: string }>(
    `UPDATE checks SET deleted_at = now() WHERE id = ANY($1::uuid[]) AND transformed IS TRUE AND deleted_at IS NULL
     RETURNING id`,
    [ids],
  );
  return rows.map((r) => r.id);
}
