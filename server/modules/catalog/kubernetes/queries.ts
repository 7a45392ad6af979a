import type pg from 'pg';

/** The console's own agent: scrapers of other agents run there, not here. */
const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

export interface KubernetesScraperRow {
  id: string;
  namespace: string | null;
  /** `spec.kubernetes`: the blocks to watch. */
  blocks: unknown;
}

/** Live scrapers of this console with kubernetes blocks (console-made and CRs alike). */
export async function kubernetesScrapers(db: pg.Pool): Promise<KubernetesScraperRow[]> {
  const { rows } = await db.query<KubernetesScraperRow>(
    `SELECT id, namespace, spec->'kubernetes' AS blocks FROM config_scrapers
     WHERE deleted_at IS NULL AND agent_id = $1 AND jsonb_typeof(spec->'kubernetes') = 'array' ORDER BY id`, [LOCAL_AGENT]);
  return rows;
}
