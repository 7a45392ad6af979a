import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { opsConsoleTopology } from '../../server/modules/demo/topology.js';
import { createLookupRunner } from '../../server/modules/topology/runner/lookup/index.js';
import type { LookupContext } from '../../server/modules/topology/runner/types.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The "Ops Console" demo topology (issue 13 "Live, roles, demo"): loaded once, offline, its database lookups through
 * a Connection that keeps the credentials out of the spec, the incident's topology evidence, team ownership.
 */

let t: TestContext;
let password: string;
let topologyId: string;
beforeAll(async () => {
  t = await createTestApp();
  password = decodeURIComponent(new URL(t.config.DATABASE_URL!).password);
  expect(await loadDemoSets(t.db, DEMO_SETS)).toContain('topology');
  topologyId = (await t.db.query<{ id: string }>(`SELECT id FROM topologies WHERE name = 'ops-console' AND deleted_at IS NULL`)).rows[0].id;
}, 180_000); // every demo set loads first (the catalog's replays a week): minutes on a loaded machine
afterAll(() => t?.close());

const spec = opsConsoleTopology().spec;
const componentSpec = (name: string) => spec.components.find((c) => c.name === name)!;

function ctx(): LookupContext {
  return { signal: new AbortController().signal, timeoutMs: 10_000, namespace: 'default', topologyId, db: t.db, log: t.app.log };
}

describe('the Ops Console demo topology', () => {
  it('loads once, last, with its connection', async () => {
    expect(DEMO_SETS.at(-1)?.name).toBe('topology');
    expect(await loadDemoSets(t.db, DEMO_SETS)).toEqual([]);
    const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM topologies WHERE name = 'ops-console'`);
    expect(rows[0].n).toBe(1);
  });

  it('never holds or shows the database credentials: the spec names a connection', async () => {
    const { rows } = await t.db.query<{ spec: unknown; url: string; username: string; pw: string }>(
      `SELECT t.spec, c.url, c.username, c.password AS pw FROM topologies t, connections c
        WHERE t.id = $1 AND c.name = 'console-database' AND c.deleted_at IS NULL`, [topologyId]);
    expect(rows[0].url).toMatch(/^postgres:\/\/\$\(username\):\$\(password\)@/);
    expect(rows[0].pw).toBe(password);
    const stored = JSON.stringify(rows[0].spec);
    expect(stored).toContain('connection://default/console-database');
    expect(password.length).toBeGreaterThan(0);
    expect(stored).not.toContain(password);
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const res = await t.app.inject({ url: `/api/db/topologies?id=eq.${topologyId}`, headers: await sessionHeaders(t.db, admin.id) });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('ops-console');
    expect(res.body).not.toContain(password);
  });

  it('the Database lookups read the console\'s own database: version, size, connections of max', async () => {
    const run = createLookupRunner({ db: t.db });
    const props = componentSpec('Database').properties!;
    const version = (await t.db.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    expect(await run(props[0].lookup!, { ...ctx(), purpose: 'property' })).toEqual([{ name: 'version', text: version }]);
    const [size] = await run(props[1].lookup!, { ...ctx(), purpose: 'property' }) as Array<{ value: number }>;
    expect(size).toMatchObject({ name: 'size', unit: 'bytes' });
    expect(size.value).toBeGreaterThan(1_000_000);
    const [conns] = await run(props[2].lookup!, { ...ctx(), purpose: 'property' }) as Array<{ value: number; max: number }>;
    expect(conns.value).toBeGreaterThanOrEqual(1);
    expect(conns.max).toBeGreaterThanOrEqual(conns.value);
  });

  it('"Health checks" gets one child per demo canary, each selecting its canary\'s checks', async () => {
    const group = componentSpec('Health checks').components![0];
    const got = await createLookupRunner({ db: t.db })(group.lookup, ctx());
    expect(got).toEqual([
      { name: 'console-self', type: 'Canary', namespace: 'default' },
      { name: 'legacy-billing', type: 'Canary', namespace: 'payments' },
      { name: 'platform-basics', type: 'Canary', namespace: 'platform' },
    ]);
  });

  it('the live incident has the Database as topology evidence; Platform SRE owns the topology', async () => {
    const { rows } = await t.db.query(
      `SELECT c.name, p.name AS parent, e.description FROM evidences e JOIN components c ON c.id = e.component_id
         JOIN components p ON p.id = c.parent_id JOIN hypotheses h ON h.id = e.hypothesis_id JOIN incidents i ON i.id = h.incident_id
        WHERE e.type = 'topology' AND i.status <> 'closed' AND c.topology_id = $1`, [topologyId]);
    expect(rows).toEqual([{ name: 'Database', parent: 'Ops Console', description: expect.stringContaining('connections') }]);
    const team = await t.db.query(`SELECT spec->'components' AS components FROM teams WHERE name = 'Platform SRE'`);
    expect(team.rows[0].components).toEqual([{ name: 'Ops Console', types: ['Application'] }]);
  });
});
