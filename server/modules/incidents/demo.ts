import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';
import { ACTOR_SETTING } from '../db/actor.js';

/** Acts as this person for the rest of the demo transaction, so the timeline names who did what. */
async function actAs(client: pg.PoolClient, personId: string): Promise<void> {
  await client.query('SELECT set_config($1, $2, true)', [ACTOR_SETTING, personId]);
}

async function personId(client: pg.PoolClient, email: string): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM people WHERE email = $1 AND deleted_at IS NULL', [email]);
  return rows[0]?.id ?? null;
}

async function insert(client: pg.PoolClient, sql: string, params: unknown[]): Promise<string> {
  const { rows } = await client.query<{ id: string }>(`${sql} RETURNING id`, params);
  return rows[0].id;
}

/**
 * Two incidents: a live one with a hypothesis tree (root → factor → solution), evidence of several types (the demo
 * health check among them, one in the definition of done), comments with a mention, a person and a team responder;
 * and a closed one. The demo teams get responder clients (email, jira) so the responder wizard has types to offer.
 * Needs the foundation set (people, teams); uses the health set's check when present.
 */
export const incidentsDemo: DemoSet = {
  name: 'incidents',
  async load(client) {
    const bob = await personId(client, 'bob.okafor@example.com');
    const carla = await personId(client, 'carla.mendes@example.com');
    const dmitri = await personId(client, 'dmitri.volkov@example.com');
    if (!bob || !carla || !dmitri) return; // the foundation set was not loaded here: nothing to attach the incident to

    await client.query(
      `UPDATE teams SET spec = coalesce(spec, '{}'::jsonb) || jsonb_build_object('responder_clients', $2::jsonb)
       WHERE name = $1 AND deleted_at IS NULL`,
      ['Platform SRE', JSON.stringify({
        email: { values: { to: 'sre-oncall@example.com' }, defaults: { subject: 'Incident needs attention' } },
        jira: { values: { project: 'OPS' }, defaults: { issueType: 'Incident', priority: 'High' }, linkUrl: 'https://jira.example.com' },
      })],
    );
    await client.query(
      `UPDATE teams SET spec = coalesce(spec, '{}'::jsonb) || jsonb_build_object('responder_clients', $2::jsonb)
       WHERE name = $1 AND deleted_at IS NULL`,
      ['Payments', JSON.stringify({ jira: { values: { project: 'PAY' }, defaults: { issueType: 'Bug', priority: 'Medium' } } })],
    );

    await actAs(client, bob);
    const incident = await insert(client,
      `INSERT INTO incidents (title, description, severity, type, status, commander_id, created_by, created_at)
       VALUES ($1, $2, 'high', 'availability', 'open', $3, $3, now() - interval '3 hours')`,
      ['Checkout API returns 502 for a share of requests',
        'Since the 09:10 deploy about 4% of checkout calls fail with 502 from the ingress.', bob]);
    const root = await insert(client,
      `INSERT INTO hypotheses (incident_id, title, type, status, created_by) VALUES ($1, $2, 'root', 'likely', $3)`,
      [incident, 'Checkout API returns 502 for a share of requests', bob]);

    const { rows: checks } = await client.query<{ id: string; name: string }>(
      `SELECT id, name FROM checks WHERE name = 'console-healthz' AND deleted_at IS NULL LIMIT 1`,
    );
    if (checks[0]) {
      await client.query(
        `INSERT INTO evidences (hypothesis_id, type, description, check_id, evidence, created_by) VALUES ($1, 'check', $2, $3, $4, $5)`,
        [root, `Health check ${checks[0].name} flapping`, checks[0].id, { id: checks[0].id }, bob]);
    }

    await actAs(client, carla);
    const factor = await insert(client,
      `INSERT INTO hypotheses (incident_id, parent_id, title, type, status, created_by) VALUES ($1, $2, $3, 'factor', 'possible', $4)`,
      [incident, root, 'Connection pool exhausted on the new release', carla]);
    await client.query(
      `INSERT INTO evidences (hypothesis_id, type, description, evidence, created_by) VALUES ($1, 'log', $2, $3, $4)`,
      [factor, 'pool timeouts in checkout logs', {
        lines: [
          { timestamp: '2026-11-21T09:12:03Z', message: 'pq: sorry, too many clients already' },
          { timestamp: '2026-11-21T09:12:04Z', message: 'timeout acquiring connection from pool after 5000ms' },
        ],
      }, carla]);
    await client.query(
      `INSERT INTO comments (incident_id, hypothesis_id, comment, created_by) VALUES ($1, $2, $3, $4)`,
      [incident, factor, `Pool size went from 50 to 10 in the release config. @[Dmitri Volkov](user:${dmitri}) can you confirm?`, carla]);

    await actAs(client, dmitri);
    await client.query(
      `INSERT INTO comments (incident_id, hypothesis_id, comment, created_by) VALUES ($1, $2, $3, $4)`,
      [incident, factor, 'Confirmed: the Helm values dropped maxConnections. Rolling back.', dmitri]);
    const solution = await insert(client,
      `INSERT INTO hypotheses (incident_id, parent_id, title, type, status, created_by) VALUES ($1, $2, $3, 'solution', 'possible', $4)`,
      [incident, factor, 'Restore maxConnections to 50 and add an alert on pool saturation', dmitri]);
    await client.query(
      `INSERT INTO evidences (hypothesis_id, type, description, definition_of_done, done, script, created_by)
       VALUES ($1, 'comment', $2, true, false, NULL, $3)`,
      [solution, 'Error rate of checkout back under 0.1% for one hour', dmitri]);

    await actAs(client, bob);
    await client.query(`UPDATE incidents SET status = 'investigating' WHERE id = $1`, [incident]);
    await client.query(
      `INSERT INTO responders (incident_id, type, person_id, properties, created_by) VALUES ($1, 'person', $2, $3, $4)`,
      [incident, carla, { responderType: 'person', person: carla }, bob]);
    const { rows: team } = await client.query<{ id: string }>(`SELECT id FROM teams WHERE name = 'Platform SRE' AND deleted_at IS NULL`);
    if (team[0]) {
      await client.query(
        `INSERT INTO responders (incident_id, type, team_id, properties, external_id, created_by) VALUES ($1, 'system', $2, $3, 'OPS-1024', $4)`,
        [incident, team[0].id, {
          responderType: 'jira', project: 'OPS', issueType: 'Incident', priority: 'High',
          summary: 'Checkout API 502s', description: 'Track the rollback of the checkout release',
        }, bob]);
    }

    const closed = await insert(client,
      `INSERT INTO incidents (title, description, severity, type, status, commander_id, created_by, created_at)
       VALUES ($1, $2, 'medium', 'performance', 'open', $3, $3, now() - interval '2 days')`,
      ['Slow catalog search', 'Search took over 3 s at p95 during the reindex.', bob]);
    await client.query(
      `INSERT INTO hypotheses (incident_id, title, type, status, created_by) VALUES ($1, $2, 'root', 'proven', $3)`,
      [closed, 'Reindex ran during business hours', bob]);
    await client.query(`UPDATE incidents SET status = 'closed' WHERE id = $1`, [closed]);
    await client.query('SELECT set_config($1, $2, true)', [ACTOR_SETTING, '']);
  },
};
