import type pg from 'pg';

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** A live playbook as the triggers read it. */
export interface TriggerPlaybook {
  id: string;
  name: string;
  namespace: string;
  title: string;
  spec: Record<string, unknown>;
  [column: string]: unknown;
}

/** Live playbooks with an `on.<key>` trigger (canary, schedule…). */
export async function playbooksWithTrigger(c: Q, key: string): Promise<TriggerPlaybook[]> {
  const { rows } = await c.query<TriggerPlaybook>(
    `SELECT * FROM playbooks
      WHERE deleted_at IS NULL AND jsonb_typeof(spec -> 'on' -> $1) IS NOT NULL
        AND spec -> 'on' -> $1 NOT IN ('null'::jsonb, '[]'::jsonb, '{}'::jsonb)
      ORDER BY id`,
    [key],
  );
  return rows;
}

/** The live playbook whose `on.webhook.path` is `path`. */
export async function playbookByWebhookPath(c: Q, path: string): Promise<TriggerPlaybook | null> {
  const { rows } = await c.query<TriggerPlaybook>(
    `SELECT * FROM playbooks WHERE deleted_at IS NULL AND spec -> 'on' -> 'webhook' ->> 'path' = $1
      ORDER BY created_at LIMIT 1`,
    [path],
  );
  return rows[0] ?? null;
}
