import type pg from 'pg';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { scraperSchedule } from '../catalog/engine/scheduler.js';

/** The source of the scraper an agent keeps for its own cluster (AGENT_KUBERNETES_SCRAPE); one live row at most. */
export const AGENT_SCRAPER_SOURCE = 'AgentKubernetes';

export interface AgentScraperSettings {
  enabled: boolean;
  /** A Go duration (AGENT_KUBERNETES_SCRAPE_INTERVAL), e.g. 30m. */
  interval: string;
  /** The cluster's name in the catalog: AGENT_NAME, else "agent". */
  clusterName: string;
}

/** The scraper's spec: the catalog's kubernetes scraper over the agent's own cluster, on the interval. */
export function agentScraperSpec(s: AgentScraperSettings): Record<string, unknown> {
  return { schedule: `@every ${s.interval}`, kubernetes: [{ clusterName: s.clusterName }] };
}

/**
 * AGENT_KUBERNETES_SCRAPE (chart `agent.kubernetes.*`): keeps one `config_scrapers` row of the agent's own, which the
 * catalog scheduler (running in agent mode) runs on the interval; its items reach the upstream through the outbox
 * (0104) like every other row. Turned off, the row is soft-deleted (the upstream gets that too). A changed interval
 * or name updates it. Announced on `config_scrapers` so the scheduler reloads at once. Returns what it did.
 */
export async function ensureAgentScraper(db: pg.Pool, s: AgentScraperSettings): Promise<'created' | 'updated' | 'deleted' | 'unchanged'> {
  const spec = agentScraperSpec(s);
  scraperSchedule(spec); // a bad interval throws here, naming it, rather than in the scheduler
  return inTransaction(db, async (c) => {
    // one at a time (two replicas starting together)
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('agent-kubernetes-scraper'))`);
    const { rows } = await c.query<{ id: string }>(
      `SELECT id FROM config_scrapers WHERE source = $1 AND deleted_at IS NULL ORDER BY created_at`, [AGENT_SCRAPER_SOURCE]);
    let outcome: 'created' | 'updated' | 'deleted' | 'unchanged' = 'unchanged';
    if (!s.enabled) {
      if (rows.length) {
        await c.query(`UPDATE config_scrapers SET deleted_at = now() WHERE source = $1 AND deleted_at IS NULL`, [AGENT_SCRAPER_SOURCE]);
        outcome = 'deleted';
      }
    } else if (!rows.length) {
      await c.query(
        `INSERT INTO config_scrapers (name, namespace, description, spec, source) VALUES ($1, 'default', $2, $3, $4)`,
        [`${s.clusterName}-kubernetes`, 'This agent\'s cluster (AGENT_KUBERNETES_SCRAPE)', spec, AGENT_SCRAPER_SOURCE]);
      outcome = 'created';
    } else {
      const [keep, ...extra] = rows;
      const res = await c.query(
        `UPDATE config_scrapers SET spec = $2, name = $3 WHERE id = $1 AND (spec IS DISTINCT FROM $2::jsonb OR name IS DISTINCT FROM $3)`,
        [keep.id, spec, `${s.clusterName}-kubernetes`]);
      if (res.rowCount) outcome = 'updated';
      if (extra.length) {
        await c.query('UPDATE config_scrapers SET deleted_at = now() WHERE id = ANY($1::uuid[])', [extra.map((r) => r.id)]);
      }
    }
    if (outcome !== 'unchanged') await notifyChange(c, { relation: 'config_scrapers' });
    return outcome;
  });
}
