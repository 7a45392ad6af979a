import { strFromU8, unzipSync } from 'fflate';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotManifest } from '../../server/contracts/topology-extra.js';
import { topologySnapshot } from '../../server/modules/topology/snapshot.js';
import { logsModuleFetch, SNAPSHOT_LOG_BOUNDS } from '../../server/modules/topology/snapshot-logs.js';
import { startLokiServer, type LokiServer } from '../support/loki-server.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The snapshot's logs (mission-control's dumpLogs, `logFormat=log|json`): lines from the logs module's search
// against the Loki test server on loopback, one file per component with log selectors, a failing or hanging backend
// a line of the manifest (the snapshot still served), logs.disable leaves them out.

let t: TestContext;
let loki: LokiServer;
let viewer: Record<string, string>;
const ids: Record<string, string> = {};
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function component(name: string, type: string, parent: string | null, selectors: unknown[] | null): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    'INSERT INTO components (name, external_id, type, parent_id, log_selectors) VALUES ($1, $1, $2, $3, $4) RETURNING id',
    [name, type, parent, selectors ? JSON.stringify(selectors) : null]);
  return rows[0].id;
}

async function unzip(id: string, query = '') {
  const res = await t.app.inject({ method: 'GET', url: `/api/snapshot/topology/${id}${query ? `?${query}` : ''}`, headers: viewer });
  expect(res.statusCode, res.payload.slice(0, 300)).toBe(200);
  return files(new Uint8Array(res.rawPayload));
}
function files(zip: Uint8Array) {
  const entries = unzipSync(zip);
  const names = Object.keys(entries);
  const dir = names[0].split('/')[0];
  const out = Object.fromEntries(names.map((n) => [n.slice(dir.length + 1), strFromU8(entries[n])]));
  return { files: out, manifest: SnapshotManifest.parse(JSON.parse(out['manifest.json'])) };
}

beforeAll(async () => {
  loki = await startLokiServer();
  t = await createTestApp();
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  await t.db.query('INSERT INTO logging_backends (name, namespace, spec) VALUES ($1, $2, $3), ($4, $2, $5)', [
    'loki', 'default', JSON.stringify({ backends: [{ loki: { url: loki.url, routes: [{ type: 'loki' }], labels: { source: 'loki' } } }] }),
    'unreachable', JSON.stringify({ backends: [{ loki: { url: 'http://127.0.0.1:9', routes: [{ type: 'dead' }] } }] }),
  ]);
  ids.shop = await component('Shop', 'App', null, [{ name: 'app', type: 'loki', labels: { app: 'shop' } }]);
  ids.web = await component('web', 'Service', ids.shop, [{ name: 'app', type: 'loki', labels: { app: 'web' } }]);
  ids.db = await component('db', 'Database', ids.shop, [{ name: 'dead', type: 'dead', labels: { app: 'db' } }]);
  ids.quiet = await component('quiet', 'Service', ids.shop, null);
  const now = Date.now();
  loki.corpus.add(
    { ms: now - 5 * 60_000, text: 'GET / 200', labels: { app: 'web', pod: 'web-1' } },
    { ms: now - 2 * 60_000, text: 'GET /cart 500 "boom"', labels: { app: 'web', pod: 'web-2' } },
    { ms: now - 3 * 3600_000, text: 'too old for the window', labels: { app: 'web', pod: 'web-1' } },
    { ms: now - 60_000, text: 'shop started', labels: { app: 'shop' } },
  );
});
afterAll(async () => {
  await loki?.close();
  await t?.close();
});

describe('snapshot logs', () => {
  it('the component\'s own lines in the window, as the reference\'s `log` format, oldest first', async () => {
    const { files: f, manifest } = await unzip(ids.web, 'start=15m');
    const name = `logs-Service-web-${sha(ids.web)}.log`;
    expect(Object.keys(f).filter((n) => n.startsWith('logs-'))).toEqual([name]);
    const lines = f[name].split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] GET \/ 200 \{app=web, pod=web-1, source=loki\}$/);
    expect(lines[1]).toContain('GET /cart 500 "boom" {app=web, pod=web-2, source=loki}');
    expect(manifest.files[name]).toBe(2);
    expect(manifest.logErrors).toBeUndefined();
    expect(manifest.omitted).toEqual([]);
  });

  it('without related only the component itself; related=true adds its subtree, a failing backend is a manifest line', async () => {
    const own = await unzip(ids.shop, 'start=15m');
    expect(Object.keys(own.files).filter((n) => n.startsWith('logs-'))).toEqual([`logs-App-Shop-${sha(ids.shop)}.log`]);
    const all = await unzip(ids.shop, 'start=15m&related=true&logFormat=json');
    expect(Object.keys(all.files).filter((n) => n.startsWith('logs-')).sort())
      .toEqual([`logs-App-Shop-${sha(ids.shop)}.json`, `logs-Service-web-${sha(ids.web)}.json`].sort());
    const web = JSON.parse(all.files[`logs-Service-web-${sha(ids.web)}.json`]);
    expect(web).toMatchObject({ id: ids.web, name: 'web', type: 'Service' });
    expect(web.logs.map((l: { message: string }) => l.message)).toEqual(['GET / 200', 'GET /cart 500 "boom"']);
    expect(web.logs[0]).toEqual({ timestamp: expect.any(String), message: 'GET / 200', labels: { app: 'web', pod: 'web-1', source: 'loki' } });
    expect(all.manifest.logErrors).toEqual([expect.stringMatching(/^db: log selector "dead": /)]);
    // the rest of the snapshot is there
    expect(all.files['components.json']).toBeDefined();
  });

  it('a hanging backend times out: the snapshot is built without those logs, the manifest says why', async () => {
    const release = loki.hold();
    try {
      const bounds = { ...SNAPSHOT_LOG_BOUNDS, timeoutMs: 700, budgetMs: 5_000 };
      const snap = await topologySnapshot(t.db, ids.web, { start: '15m' }, { checks: true, incidents: true, configs: true }, new Date(), undefined, {
        format: 'log', bounds, fetch: logsModuleFetch({ db: t.db, valueFrom: null, kube: () => null }, bounds),
      });
      const { files: f, manifest } = files(snap.zip);
      expect(Object.keys(f).filter((n) => n.startsWith('logs-'))).toEqual([]);
      expect(manifest.logErrors).toEqual([expect.stringMatching(/^web: .*timed out/)]);
      expect(f['components.csv']).toBeDefined();
    } finally {
      release();
    }
  });

  it('logs.disable leaves them out (manifest omitted); a bad logFormat is 400 naming it', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('logs.disable', 'true')`);
    try {
      const { files: f, manifest } = await unzip(ids.web, 'start=15m');
      expect(Object.keys(f).filter((n) => n.startsWith('logs-'))).toEqual([]);
      expect(manifest.omitted).toEqual(['logs']);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'logs.disable'`);
    }
    const bad = await t.app.inject({ method: 'GET', url: `/api/snapshot/topology/${ids.web}?logFormat=xml`, headers: viewer });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/^logFormat: /);
  });
});
