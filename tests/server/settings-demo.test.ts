import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { inTransaction } from '../../server/lib/tx.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { settingsDemo } from '../../server/modules/demo/settings.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The offline demo's settings set: connections whose tests pass, fail and are not covered, and one of each settings
 * resource, shown by the lists the settings pages read.
 */
let t: TestContext;
let admin: Record<string, string>;
const savedPort = process.env.PORT;

beforeAll(async () => {
  t = await createTestApp();
  // the demo's http connection points at the console itself (PORT, as in its pod): listen, and load the demo for it
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  process.env.PORT = String((t.app.server.address() as AddressInfo).port);
  expect(await loadDemoSets(t.db, DEMO_SETS)).toContain('settings');
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(async () => {
  if (savedPort === undefined) delete process.env.PORT;
  else process.env.PORT = savedPort;
  await t?.close();
});

const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/db/${url}`, headers: admin });
const names = async (url: string) => ((await get(url)).json() as Array<{ name: string }>).map((r) => r.name);

describe('settings demo set', () => {
  it('adds connections whose tests pass (http /healthz), fail (redis on a closed port) and are not covered (Slack, 501)', async () => {
    const rows = (await get('connections?select=id,name,type&deleted_at=is.null&order=name.asc')).json() as Array<{ id: string; name: string; type: string }>;
    expect(rows.map((r) => [r.name, r.type])).toEqual([['cache-offline', 'redis'], ['console-database', 'postgres'], ['console-self', 'http'], ['team-chat', 'slack']]);
    const test = (name: string) => t.app.inject({ method: 'POST', url: `/api/connection/test/${rows.find((r) => r.name === name)!.id}`, headers: admin });
    const ok = await test('console-self');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().message).toBe('ok');
    const refused = await test('cache-offline');
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().error).toMatch(/refused|ECONNREFUSED/i);
    expect((await test('team-chat')).statusCode).toBe(501);
  });

  it('adds a topology, a scraper, a logging backend and an incident rule, listed as the settings pages list them', async () => {
    expect(await names('topologies_with_status?select=name&name=eq.console-stack')).toEqual(['console-stack']);
    expect(await names('config_scrapers_with_status?select=name&name=eq.cluster-config')).toEqual(['cluster-config']);
    // console-logs: the agents demo's, for the ops-console component's own log lines
    expect(await names('logging_backends?select=name&deleted_at=is.null')).toEqual(['cluster-logs', 'console-logs']);
    expect(await names('incident_rules?select=name&deleted_at=is.null')).toEqual(['unhealthy-databases']);
    // this set's rows (the catalog demo adds a scraper of its own)
    const integrations = (await get('integrations_with_status?select=name,integration_type,job_status,creator_name&name=in.(cluster-config,cluster-logs,console-stack)&order=name.asc')).json();
    expect(integrations).toEqual([
      { name: 'cluster-config', integration_type: 'scrapers', job_status: 'FAILED', creator_name: 'Alice Nguyen' },
      { name: 'cluster-logs', integration_type: 'logging_backends', job_status: null, creator_name: 'Alice Nguyen' },
      { name: 'console-stack', integration_type: 'topologies', job_status: 'SUCCESS', creator_name: 'Alice Nguyen' },
    ]);
  });

  it('is idempotent: loading it again adds nothing', async () => {
    // the demo's own job runs (hostname demo): the schedulers may add real runs of the demo resources meanwhile
    const count = async () => (await t.db.query(`SELECT (SELECT count(*) FROM connections) + (SELECT count(*) FROM topologies)
      + (SELECT count(*) FROM config_scrapers) + (SELECT count(*) FROM logging_backends) + (SELECT count(*) FROM incident_rules)
      + (SELECT count(*) FROM job_history WHERE hostname = 'demo') AS n`)).rows[0].n;
    const before = await count();
    expect(await loadDemoSets(t.db, DEMO_SETS)).toEqual([]);
    await inTransaction(t.db, (c) => settingsDemo.load(c));
    expect(await count()).toBe(before);
  });
});
