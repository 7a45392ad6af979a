import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksStep } from '../../server/modules/topology/runner/links/checks.js';
import { teamsStep } from '../../server/modules/topology/teams.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { TOPO, insertComponent, seedTopologyNeverRun, stored } from './topology-fixtures.js';
import { liveLinks, savedComponent } from './topology-links-fixtures.js';

// checks (selector and inline) and teams, against checks written through the health module's own door (/api/canary),
// a loopback HTTP server the inline canary's check calls, and teams saved through /api/db.

let t: TestContext;
let admin: Record<string, string>;
let server: Server;
let status = 200;
let url = '';

const run = (saved: ReturnType<typeof savedComponent>[]) => checksStep.run(t.db, TOPO.topology, saved, t.app.log);

/** Waits for what the app does on its own (the health scheduler, the team listener); fails after 20 s. */
async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function canary(name: string, checks: object[]) {
  const res = await t.app.inject({
    method: 'POST', url: '/api/canary', headers: { ...admin, 'content-type': 'application/json' },
    payload: { name, namespace: 'default', spec: { schedule: '@never', http: checks } },
  });
  expect(res.statusCode, res.payload).toBe(201);
  return res.json() as { id: string; checks: Array<{ id: string; name: string }> };
}

beforeAll(async () => {
  server = createServer((_req, res) => { res.statusCode = status; res.end('ok'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  t = await createTestApp();
  const adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adminId);
  await seedTopologyNeverRun(t.db, adminId);
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

describe('checks: {selector}', () => {
  it('links the checks a selector matches; a failing one turns the component and its parents', async () => {
    const c = await canary('api', [
      { name: 'api-health', url, labels: { app: 'api' } },
      { name: 'api-other', url, labels: { app: 'other' } },
    ]);
    const apiHealth = c.checks.find((k) => k.name === 'api-health')!.id;
    const db = savedComponent(TOPO.db, 'db', { checks: [{ selector: { labelSelector: 'app=api', types: ['http'] } }] });
    expect(await run([db])).toEqual({ linked: 1, notes: [] });
    expect(await liveLinks(t.db, 'check_component_relationships', TOPO.db)).toEqual([apiHealth]);

    await t.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [apiHealth]);
    expect(await stored(t.db, TOPO.db)).toMatchObject({ status: 'warning', summary: { healthy: 1, unhealthy: 1, checks: { unhealthy: 1 } } });
    expect((await stored(t.db, TOPO.ops)).status).toBe('warning');
  });

  it('a check created later links at the next run; a deleted canary\'s checks are unlinked', async () => {
    const db = savedComponent(TOPO.db, 'db', { checks: [{ selector: { name: 'late-*' } }] });
    await run([db]);
    expect(await liveLinks(t.db, 'check_component_relationships', TOPO.db)).toEqual([]);
    const late = await canary('late', [{ name: 'late-one', url }]);
    await run([db]);
    expect(await liveLinks(t.db, 'check_component_relationships', TOPO.db)).toEqual([late.checks[0].id]);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/canary/${late.id}`, headers: admin });
    expect(del.statusCode, del.payload).toBeLessThan(300);
    await run([db]);
    expect(await liveLinks(t.db, 'check_component_relationships', TOPO.db)).toEqual([]);
  });

  it('entries that are neither selector nor inline, and bad selectors, are notes', async () => {
    const out = await run([savedComponent(TOPO.db, 'db', { checks: ['x', { selector: { fieldSelector: 'color=red' } }] })]);
    expect(out.notes).toEqual([
      'spec.components.db.checks.0: expected {selector: {...}} or {inline: {...}}',
      'spec.components.db.checks.1.selector: fieldSelector: unknown field \'color\' (known: owner, severity, type, name, namespace, status, canary_id, id, category)',
    ]);
  });
});

describe('checks: {inline}', () => {
  const inlineCanary = async (id: string) => (await t.db.query(
    `SELECT id, name, namespace, source, deleted_at, spec FROM canaries WHERE source = $1 ORDER BY created_at`, [`component/${id}`])).rows;

  it('becomes a canary component/<id> the health scheduler runs; its checks link and roll up', async () => {
    status = 500;
    const web2 = savedComponent(TOPO.web2, 'web-2', { checks: [{ inline: { http: [{ name: 'web-2 inline', url }] } }] });
    const out = await run([web2]);
    expect(out).toEqual({ linked: 1, notes: [] });
    const rows = await inlineCanary(TOPO.web2);
    expect(rows).toEqual([expect.objectContaining({ name: 'web-2', namespace: 'default', source: `component/${TOPO.web2}`, deleted_at: null })]);
    // the topology runs only by hand, so the canary runs on the default schedule
    expect(rows[0].spec.schedule).toBe('@every 10m');
    const [checkId] = await liveLinks(t.db, 'check_component_relationships', TOPO.web2);
    // the scheduler picks the new canary up (it polls the canaries' signature) and runs it at once
    await until('the inline check to run', () => t.db.query(`SELECT status FROM checks WHERE id = $1`, [checkId]).then((r) => r.rows[0].status), (s) => s === 'unhealthy');
    // (the fixture's own links went at the first run: a run owns every check link of its topology's components)
    expect(await stored(t.db, TOPO.web2)).toMatchObject({ status: 'unhealthy', summary: { healthy: 0, unhealthy: 1, checks: { unhealthy: 1 } } });

    // an unchanged spec writes nothing: the same canary, not updated
    const before = (await t.db.query(`SELECT updated_at FROM canaries WHERE id = $1`, [rows[0].id])).rows[0].updated_at;
    await run([web2]);
    expect((await t.db.query(`SELECT updated_at FROM canaries WHERE id = $1`, [rows[0].id])).rows[0].updated_at).toEqual(before);
  });

  it('an invalid inline spec is a note and the last good canary stays', async () => {
    const out = await run([savedComponent(TOPO.web2, 'web-2', { checks: [{ inline: { http: [{ name: 'no url' }] } }] })]);
    expect(out.linked).toBe(1);
    expect(out.notes).toHaveLength(1);
    expect(out.notes![0]).toMatch(/^spec\.components\.web-2\.checks\.0\.inline\.http\.0/);
    expect((await inlineCanary(TOPO.web2)).filter((r) => !r.deleted_at)).toHaveLength(1);
  });

  it('goes (with its checks) when the inline entry goes, and when its component is deleted', async () => {
    await run([savedComponent(TOPO.web2, 'web-2', { checks: [] })]);
    const gone = await inlineCanary(TOPO.web2);
    expect(gone.every((r) => r.deleted_at !== null)).toBe(true);
    expect(await liveLinks(t.db, 'check_component_relationships', TOPO.web2)).toEqual([]);
    const live = await t.db.query(`SELECT count(*)::int AS n FROM checks WHERE canary_id = $1 AND deleted_at IS NULL`, [gone[0].id]);
    expect(live.rows[0].n).toBe(0);

    await run([savedComponent(TOPO.web1, 'web-1', { checks: [{ inline: { http: [{ name: 'web-1 inline', url }] } }] })]);
    expect((await inlineCanary(TOPO.web1)).filter((r) => !r.deleted_at)).toHaveLength(1);
    await t.db.query(`UPDATE components SET deleted_at = now() WHERE id = $1`, [TOPO.web1]);
    const after = await inlineCanary(TOPO.web1);
    expect(after.every((r) => r.deleted_at !== null)).toBe(true);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM checks WHERE canary_id = $1 AND deleted_at IS NULL`, [after[0].id])).rows[0].n).toBe(0);
  });
});

describe('teams', () => {
  const members = async (team: string) => (await t.db.query(
    `SELECT component_id::text AS id FROM team_components WHERE team_id = $1 ORDER BY 1`, [team])).rows.map((r) => r.id);

  it('a team saved through /api/db gets its components; a change of its selectors moves them', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/db/teams', headers: { ...admin, 'content-type': 'application/json', prefer: 'return=representation' },
      payload: { name: 'databases', spec: { components: [{ types: ['Database'] }] } },
    });
    expect(res.statusCode, res.payload).toBe(201);
    const team = res.json()[0].id;
    await until('the team\'s components', () => members(team), (m) => m.length === 1);
    expect(await members(team)).toEqual([TOPO.db]);

    const patch = await t.app.inject({
      method: 'PATCH', url: `/api/db/teams?id=eq.${team}`, headers: { ...admin, 'content-type': 'application/json' },
      payload: { spec: { components: [{ name: 'Billing' }] } },
    });
    expect(patch.statusCode, patch.payload).toBeLessThan(300);
    await until('the new selector\'s components', () => members(team), (m) => m.length === 1 && m[0] === TOPO.billing);
  });

  it('after a run, the teams step links components that appeared; rows made by hand stay', async () => {
    const team = (await t.db.query(`SELECT id FROM teams WHERE name = 'databases'`)).rows[0].id;
    const fresh = '0000000d-0000-4000-8000-0000000000f1';
    await insertComponent(t.db, { id: fresh, name: 'Billing', parent: TOPO.ops });
    const out = await teamsStep.run(t.db, TOPO.topology, [], t.app.log);
    expect(out.notes).toEqual([]);
    expect(await members(team)).toEqual([TOPO.billing, fresh].sort());
    // the fixture's platform → Ops row has no selector: made by hand, kept
    expect(await members(TOPO.team)).toEqual([TOPO.ops]);
  });
});

describe('checks that come and go between runs', () => {
  it('a check created after the run links at once (the checks listener), and unlinks when its canary goes', async () => {
    // what the last run saved for Billing: a check selector
    await t.db.query(`UPDATE components SET component_checks = '[{"selector":{"name":"between-*"}}]' WHERE id = $1`, [TOPO.billing]);
    const made = await canary('between', [{ name: 'between-runs', url }]);
    await until('the new check to link', () => liveLinks(t.db, 'check_component_relationships', TOPO.billing), (l) => l.length === 1);
    expect(await liveLinks(t.db, 'check_component_relationships', TOPO.billing)).toEqual([made.checks[0].id]);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/canary/${made.id}`, headers: admin });
    expect(del.statusCode, del.payload).toBeLessThan(300);
    await until('the deleted check to unlink', () => liveLinks(t.db, 'check_component_relationships', TOPO.billing), (l) => l.length === 0);
  });
});
