import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { liveLinks } from './topology-links-fixtures.js';

// The link steps inside a real topology run (Run Now): a Topology spec with selectors, checks (selector and
// inline), configs and a bad selector; a team whose selector picks the run's components.

const TOPOLOGY = '0000000d-0000-4000-8000-00000000f0f0';
let t: TestContext;
let admin: Record<string, string>;
let server: Server;
let url = '';

const runNow = () => t.app.inject({ method: 'POST', url: `/api/canary/run/topology/${TOPOLOGY}`, headers: admin });
const componentId = async (name: string) => (await t.db.query(
  `SELECT id FROM components WHERE topology_id = $1 AND name = $2 AND deleted_at IS NULL`, [TOPOLOGY, name])).rows[0]?.id as string;

function spec(apiChecks: object[]) {
  return {
    schedule: '@never',
    components: [
      { name: 'api', type: 'Service', labels: { app: 'api' }, checks: apiChecks, configs: [{ types: ['Kubernetes::Pod'], namespace: 'prod' }] },
      { name: 'frontend', type: 'Service', selectors: [{ labelSelector: 'app=api' }, { labelSelector: 'app in (' }] },
    ],
  };
}

beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  t = await createTestApp();
  const adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adminId);
  // @never from the start: only Run Now runs it
  await t.db.query(`INSERT INTO topologies (id, name, namespace, spec) VALUES ($1, 'shop', 'shop-ns', $2)`, [TOPOLOGY, spec([])]);
  await t.db.query(`INSERT INTO config_items (name, type, config_class, tags) VALUES ('api-pod', 'Kubernetes::Pod', 'Pod', '{"namespace":"prod"}')`);
  await t.db.query(`INSERT INTO teams (name, spec, created_by) VALUES ('shop-team', '{"components":[{"types":["Service"]}]}', $1)`, [adminId]);
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

describe('a topology run links', () => {
  it('selectors, checks (selector and inline), configs and teams; a bad selector is a note in the job history', async () => {
    const core = await t.app.inject({
      method: 'POST', url: '/api/canary', headers: { ...admin, 'content-type': 'application/json' },
      payload: { name: 'core', namespace: 'default', spec: { schedule: '@never', http: [{ name: 'core-http', url, labels: { team: 'core' } }] } },
    });
    expect(core.statusCode, core.payload).toBe(201);
    await t.db.query(`UPDATE topologies SET spec = $2 WHERE id = $1`, [TOPOLOGY, spec([
      { selector: { labelSelector: 'team=core' } },
      { inline: { http: [{ name: 'api-inline', url }] } },
    ])]);
    const res = await runNow();
    expect(res.statusCode, res.payload).toBe(200);

    const [api, frontend] = [await componentId('api'), await componentId('frontend')];
    expect(await liveLinks(t.db, 'component_relationships', frontend)).toEqual([api]);
    const inline = (await t.db.query(`SELECT id, name, namespace FROM canaries WHERE source = $1 AND deleted_at IS NULL`, [`component/${api}`])).rows;
    expect(inline).toEqual([expect.objectContaining({ name: 'api', namespace: 'shop-ns' })]);
    const checks = (await t.db.query(`SELECT ch.name FROM check_component_relationships r JOIN checks ch ON ch.id = r.check_id
      WHERE r.component_id = $1 AND r.deleted_at IS NULL ORDER BY 1`, [api])).rows.map((r) => r.name);
    expect(checks).toEqual(['api-inline', 'core-http']);
    expect(await liveLinks(t.db, 'config_component_relationships', api)).toHaveLength(1);
    const team = (await t.db.query(`SELECT c.name FROM team_components tc JOIN teams t ON t.id = tc.team_id JOIN components c ON c.id = tc.component_id
      WHERE t.name = 'shop-team' ORDER BY 1`)).rows.map((r) => r.name);
    expect(team).toEqual(['api', 'frontend']);

    const job = (await t.db.query(`SELECT details FROM job_history WHERE resource_id = $1 AND name = 'TopologyRun' ORDER BY created_at DESC LIMIT 1`, [TOPOLOGY])).rows[0];
    expect(job.details.notes).toEqual([expect.stringMatching(/^selectors: spec\.components\.1\.selectors\.1: labelSelector: cannot read 'app in \('$/)]);
  });

  it('the next run without the inline entry removes its canary; a vanished component takes its links', async () => {
    const api = await componentId('api');
    await t.db.query(`UPDATE topologies SET spec = $2 WHERE id = $1`, [TOPOLOGY, spec([{ selector: { labelSelector: 'team=core' } }])]);
    expect((await runNow()).statusCode).toBe(200);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM canaries WHERE source = $1 AND deleted_at IS NULL`, [`component/${api}`])).rows[0].n).toBe(0);
    expect(await liveLinks(t.db, 'check_component_relationships', api)).toHaveLength(1);

    await t.db.query(`UPDATE topologies SET spec = '{"schedule":"@never","components":[{"name":"frontend","type":"Service"}]}' WHERE id = $1`, [TOPOLOGY]);
    expect((await runNow()).statusCode).toBe(200);
    expect(await liveLinks(t.db, 'check_component_relationships', api)).toEqual([]);
    expect(await liveLinks(t.db, 'config_component_relationships', api)).toEqual([]);
    const team = (await t.db.query(`SELECT count(*)::int AS n FROM team_components WHERE component_id = $1`, [api])).rows[0].n;
    expect(team).toBe(0);
  });
});
