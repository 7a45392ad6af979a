import type pg from 'pg';

/**
 * The setting that names the person acting in a transaction. Triggers read it through current_actor()
 * (0030_incidents.sql) to stamp created_by and the incident history with who did it, whatever the body says.
 */
export const ACTOR_SETTING = 'app.actor_id';

/** Sets the actor for the rest of the current transaction (is_local = true: it ends with the transaction). */
export async function setActor(client: pg.PoolClient, actor: string): Promise<void> {
  await client.query('SELECT set_config($1, $2, true)', [ACTOR_SETTING, actor]);
}
