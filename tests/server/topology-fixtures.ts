import type pg from 'pg';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

/**
 * A small topology seeded with SQL (the runner that builds components from Topology specs comes next):
 *
 *   Ops (root, team platform)
 *   ├── web (labels app=web)      ── web-1 (check web-1 http, healthy), web-2 (check web-2 http, healthy)
 *   ├── db  (own health healthy, property connections 40 of 100)
 *   └── legacy (hidden, own health info)
 *   Billing (second root, own health healthy, owner finance)
 *
 * Ids are fixed so tests can name them.
 */
export const TOPO = {
  topology: '0000000d-0000-4000-8000-000000000001',
  canary: '0000000d-0000-4000-8000-0000000000c0',
  check1: '0000000d-0000-4000-8000-0000000000c1',
  check2: '0000000d-0000-4000-8000-0000000000c2',
  team: '0000000d-0000-4000-8000-0000000000e1',
  ops: '0000000d-0000-4000-8000-0000000000a0',
  web: '0000000d-0000-4000-8000-0000000000a1',
  web1: '0000000d-0000-4000-8000-0000000000a2',
  web2: '0000000d-0000-4000-8000-0000000000a3',
  db: '0000000d-0000-4000-8000-0000000000a4',
  legacy: '0000000d-0000-4000-8000-0000000000a5',
  billing: '0000000d-0000-4000-8000-0000000000b0',
} as const;

export async function insertComponent(db: pg.Pool, c: {
  id: string; name: string; parent?: string; type?: string; health?: string; labels?: Record<string, string>;
  hidden?: boolean; owner?: string; properties?: unknown[];
}): Promise<void> {
  await db.query(
    `INSERT INTO components (id, topology_id, external_id, parent_id, name, type, health, labels, hidden, owner, properties)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [c.id, TOPO.topology, c.name, c.parent ?? null, c.name, c.type ?? 'Service', c.health ?? null, c.labels ?? null,
      c.hidden ?? false, c.owner ?? null, c.properties ? JSON.stringify(c.properties) : null],
  );
}

export async function seedTopology(db: pg.Pool, personId: string): Promise<void> {
  await db.query(`INSERT INTO topologies (id, name, namespace, spec) VALUES ($1, 'ops', 'default', '{}')`, [TOPO.topology]);
  await db.query(`INSERT INTO canaries (id, name, spec) VALUES ($1, 'web', '{}')`, [TOPO.canary]);
  await db.query(`INSERT INTO checks (id, canary_id, type, name, status) VALUES ($1, $3, 'http', 'web-1 http', 'healthy'),
    ($2, $3, 'http', 'web-2 http', 'healthy')`, [TOPO.check1, TOPO.check2, TOPO.canary]);
  await db.query(`INSERT INTO teams (id, name, created_by) VALUES ($1, 'platform', $2)`, [TOPO.team, personId]);
  await insertComponent(db, { id: TOPO.ops, name: 'Ops', type: 'Topology' });
  await insertComponent(db, { id: TOPO.web, name: 'web', parent: TOPO.ops, labels: { app: 'web' } });
  await insertComponent(db, { id: TOPO.web1, name: 'web-1', parent: TOPO.web, type: 'Pod' });
  await insertComponent(db, { id: TOPO.web2, name: 'web-2', parent: TOPO.web, type: 'Pod' });
  await insertComponent(db, {
    id: TOPO.db, name: 'db', parent: TOPO.ops, type: 'Database', health: 'healthy',
    properties: [{ name: 'connections', value: 40, max: 100, headline: true }],
  });
  await insertComponent(db, { id: TOPO.legacy, name: 'legacy', parent: TOPO.ops, health: 'info', hidden: true });
  await insertComponent(db, { id: TOPO.billing, name: 'Billing', type: 'Topology', health: 'healthy', owner: 'finance' });
  await db.query(`INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id)
    VALUES ($1, $3, $4, 's1'), ($2, $5, $4, 's1')`, [TOPO.web1, TOPO.web2, TOPO.check1, TOPO.canary, TOPO.check2]);
  await db.query(`INSERT INTO team_components (team_id, component_id) VALUES ($1, $2)`, [TOPO.team, TOPO.ops]);
}

/** status and summary of a component as stored. */
export async function stored(db: pg.Pool, id: string): Promise<{ status: string; summary: Record<string, unknown> }> {
  const { rows } = await db.query('SELECT status, summary FROM components WHERE id = $1', [id]);
  return rows[0];
}

/**
 * seedTopology in one transaction that also makes the topology `@never`: the app's scheduler (it polls every few
 * seconds and runs a new topology at once) never sees the seeded row as runnable, so no run rebuilds the components.
 */
export async function seedTopologyNeverRun(db: pg.Pool, personId: string): Promise<void> {
  const c = await db.connect();
  try {
    await c.query('BEGIN');
    await seedTopology(c as unknown as pg.Pool, personId);
    await c.query(`UPDATE topologies SET schedule = '@never', spec = '{"schedule":"@never"}' WHERE id = $1`, [TOPO.topology]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  } finally {
    c.release();
  }
}

/** A test app with the fixture seeded (never run by the scheduler), and a viewer (no role) with headers for it. */
export async function topologyTestApp(): Promise<{ t: TestContext; viewerId: string; viewer: Record<string, string> }> {
  const t = await createTestApp();
  const viewerId = (await makePerson(t.db)).id;
  const viewer = await bearerHeaders(t.db, viewerId);
  await seedTopologyNeverRun(t.db, viewerId);
  return { t, viewerId, viewer };
}
