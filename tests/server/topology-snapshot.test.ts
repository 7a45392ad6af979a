import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TopologyComponent } from '../../server/contracts/topology.js';
import { SnapshotManifest } from '../../server/contracts/topology-extra.js';
import { SNAPSHOT_BOUNDS, topologySnapshot } from '../../server/modules/topology/snapshot.js';
import { bearerHeaders, makePerson, type TestContext } from './helpers.js';
import { TOPO, insertComponent, topologyTestApp } from './topology-fixtures.js';

// GET /api/snapshot/topology/{id}: the zip unzipped with fflate, each file and its rows, the window, related=true.

let t: TestContext;
let viewer: Record<string, string>;
const API = '0000000d-0000-4000-8000-0000000000b1';
const CONFIG = '0000000d-0000-4000-8000-0000000000f1';
const min = 60_000;

const get = (id: string, query = '', headers = viewer) =>
  t.app.inject({ method: 'GET', url: `/api/snapshot/topology/${id}${query ? `?${query}` : ''}`, headers });

/** The zip's files by name below its one directory, and that directory. */
async function unzip(id: string, query = ''): Promise<{ dir: string; files: Record<string, string>; manifest: SnapshotManifest }> {
  const res = await get(id, query);
  expect(res.statusCode, res.payload.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  const entries = unzipSync(new Uint8Array(res.rawPayload));
  const names = Object.keys(entries);
  const dir = names[0].split('/')[0];
  expect(names.every((n) => n.startsWith(`${dir}/`))).toBe(true);
  const files = Object.fromEntries(names.map((n) => [n.slice(dir.length + 1), strFromU8(entries[n])]));
  return { dir, files, manifest: SnapshotManifest.parse(JSON.parse(files['manifest.json'])) };
}

/** A CSV's rows as objects (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks). */
function parseCsv(text: string): Record<string, string>[] {
  const records: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(field); field = ''; } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field); records.push(row); row = []; field = ''; i++;
    } else field += ch;
  }
  const [header, ...rest] = records;
  return rest.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

beforeAll(async () => {
  let viewerId: string;
  ({ t, viewer, viewerId } = await topologyTestApp());
  // api (another topology root's child) selected db: related to the Ops subtree
  await insertComponent(t.db, { id: API, name: 'api', parent: TOPO.billing });
  await t.db.query(`INSERT INTO component_relationships (component_id, relationship_id, selector_id) VALUES ($1, $2, 's')`, [TOPO.db, API]);
  const now = Date.now();
  await t.db.query(`INSERT INTO check_statuses (check_id, time, status, message) VALUES
    ($1, $2, true, 'recent'), ($1, $3, false, 'two hours ago'), ($4, $5, true, 'ten minutes ago')`,
  [TOPO.check1, new Date(now - 5 * min), new Date(now - 120 * min), TOPO.check2, new Date(now - 10 * min)]);
  // one open incident with web-1 as evidence, one closed two days ago
  const inc = async (title: string, closedMinutesAgo: number | null) => {
    const { rows: [i] } = await t.db.query(
      `INSERT INTO incidents (title, created_by, created_at, closed, status) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [title, viewerId, new Date(now - 3 * 24 * 60 * min), closedMinutesAgo === null ? null : new Date(now - closedMinutesAgo * min),
        closedMinutesAgo === null ? 'open' : 'closed']);
    // the status trigger stamps `closed` with now(): backdate it after
    if (closedMinutesAgo !== null) await t.db.query('UPDATE incidents SET closed = $2 WHERE id = $1', [i.id, new Date(now - closedMinutesAgo * min)]);
    const { rows: [h] } = await t.db.query(`INSERT INTO hypotheses (incident_id, title, created_by) VALUES ($1, 'bad deploy', $2) RETURNING id`, [i.id, viewerId]);
    await t.db.query(`INSERT INTO evidences (hypothesis_id, component_id, type, created_by, description) VALUES ($1, $2, 'topology', $3, 'web-1 down')`,
      [h.id, TOPO.web1, viewerId]);
  };
  await inc('Disk, "full"\nagain', null);
  await inc('Old outage', 2 * 24 * 60);
  await t.db.query(`INSERT INTO config_items (id, config_class, type, name, config) VALUES ($1, 'Database', 'Postgres::Database', 'orders', '{"size": 3}')`, [CONFIG]);
  await t.db.query(`INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2)`, [TOPO.db, CONFIG]);
  await t.db.query(`INSERT INTO config_changes (config_id, change_type, summary, created_at) VALUES
    ($1, 'diff', 'recent change', $2), ($1, 'diff', 'old change', $3)`, [CONFIG, new Date(now - 3 * min), new Date(now - 300 * min)]);
});
afterAll(() => t.close());

describe('the snapshot zip', () => {
  it('holds components.json and a CSV per table, rows in the default 15-minute window', async () => {
    const res = await get(TOPO.ops);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="snapshot-Ops-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.zip"$/);
    const { dir, files, manifest } = await unzip(TOPO.ops);
    expect(dir).toMatch(/^snapshot-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(files).sort()).toEqual(['check_statuses.csv', 'checks.csv', 'components.csv', 'components.json',
      'config_analysis.csv', 'config_changes.csv', 'config_items.csv', 'evidences.csv', 'hypotheses.csv', 'incidents.csv', 'manifest.json']);

    const tree = TopologyComponent.array().parse(JSON.parse(files['components.json']));
    expect(tree.map((c) => c.name)).toEqual(['Ops']);
    expect(tree[0].components!.map((c) => c.name).sort()).toEqual(['db', 'legacy', 'web']);
    expect(parseCsv(files['components.csv']).map((r) => r.name).sort()).toEqual(['Ops', 'db', 'legacy', 'web', 'web-1', 'web-2']);

    const checks = parseCsv(files['checks.csv']);
    expect(checks.map((r) => r.name)).toEqual(['web-1 http', 'web-2 http']);
    expect(files['checks.csv'].split('\r\n')[0].split(',')).not.toContain('spec');
    expect(files['components.csv'].split('\r\n')[0].split(',')).toEqual(expect.arrayContaining(['id', 'name', 'status', 'summary', 'path']));
    expect(files['components.csv'].split('\r\n')[0].split(',')).not.toContain('component_checks');
    expect(parseCsv(files['check_statuses.csv']).map((r) => r.message).sort()).toEqual(['recent', 'ten minutes ago']);

    const incidents = parseCsv(files['incidents.csv']);
    expect(incidents.map((r) => r.title)).toEqual(['Disk, "full"\nagain']);
    expect(parseCsv(files['hypotheses.csv']).map((r) => r.title)).toEqual(['bad deploy']);
    expect(parseCsv(files['evidences.csv'])).toMatchObject([{ component_id: TOPO.web1, description: 'web-1 down' }]);

    expect(parseCsv(files['config_items.csv'])).toMatchObject([{ id: CONFIG, name: 'orders', config: '{"size":3}' }]);
    expect(parseCsv(files['config_changes.csv']).map((r) => r.summary)).toEqual(['recent change']);
    expect(files['config_analysis.csv'].split('\r\n')[0]).toMatch(/^id,config_id,/);

    expect(manifest).toMatchObject({ component: { id: TOPO.ops, name: 'Ops' }, related: false, truncated: [], omitted: [] });
    expect(manifest.files).toMatchObject({ 'components.csv': 6, 'check_statuses.csv': 2, 'incidents.csv': 1, 'config_changes.csv': 1 });
  });

  it('respects start and end, as durations or RFC 3339', async () => {
    const wide = (await unzip(TOPO.ops, 'start=3d')).files;
    expect(parseCsv(wide['check_statuses.csv'])).toHaveLength(3);
    expect(parseCsv(wide['incidents.csv']).map((r) => r.title).sort()).toEqual(['Disk, "full"\nagain', 'Old outage']);
    expect(parseCsv(wide['config_changes.csv'])).toHaveLength(2);
    const from = new Date(Date.now() - 180 * min).toISOString();
    const to = new Date(Date.now() - 60 * min).toISOString();
    const middle = (await unzip(TOPO.ops, `start=${from}&end=${to}`)).files;
    expect(parseCsv(middle['check_statuses.csv']).map((r) => r.message)).toEqual(['two hours ago']);
    expect(parseCsv(middle['config_changes.csv'])).toHaveLength(0);
    expect(parseCsv((await unzip(TOPO.ops, 'start=3h&end=1h')).files['check_statuses.csv'])).toHaveLength(1);
    // the reference UI's Time Range values beyond weeks: months (30 days) and years (365 days)
    expect(parseCsv((await unzip(TOPO.ops, 'start=1mo')).files['incidents.csv'])).toHaveLength(2);
    const years = (await unzip(TOPO.ops, 'start=5y')).manifest;
    expect(Date.parse(years.end) - Date.parse(years.start)).toBe(5 * 365 * 86_400_000);
  });

  it('with related=true adds the components linked by component_relationships', async () => {
    const plain = await unzip(TOPO.ops);
    expect(parseCsv(plain.files['components.csv']).map((r) => r.id)).not.toContain(API);
    const { files, manifest } = await unzip(TOPO.ops, 'related=true');
    expect(parseCsv(files['components.csv']).map((r) => r.id)).toContain(API);
    expect(JSON.parse(files['components.json']).map((c: { name: string }) => c.name)).toEqual(['Ops', 'api']);
    expect(manifest.related).toBe(true);
  });

  it('a subtree holds its own components only', async () => {
    const { files } = await unzip(TOPO.web);
    expect(parseCsv(files['components.csv']).map((r) => r.name).sort()).toEqual(['web', 'web-1', 'web-2']);
    expect(parseCsv(files['config_items.csv'])).toHaveLength(0);
  });

  it('leaves out incidents while incidents are off, and says so', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('incidents.disable', 'true')`);
    try {
      const { files, manifest } = await unzip(TOPO.ops);
      expect(files['incidents.csv']).toBeUndefined();
      expect(manifest.omitted).toEqual(['incidents.csv', 'hypotheses.csv', 'evidences.csv']);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'incidents.disable'`);
    }
  });

  it('cuts a file at its row bound (the newest rows kept, the manifest says so) and refuses one over the byte bound', async () => {
    const all = { checks: true, incidents: true, configs: true };
    const snap = await topologySnapshot(t.db, TOPO.ops, { start: '3h' }, all, new Date(), { ...SNAPSHOT_BOUNDS, check_statuses: 1 });
    const entries = unzipSync(snap.zip);
    const at = (n: string) => strFromU8(entries[Object.keys(entries).find((k) => k.endsWith(`/${n}`))!]);
    expect(parseCsv(at('check_statuses.csv')).map((r) => r.message)).toEqual(['recent']);
    expect(SnapshotManifest.parse(JSON.parse(at('manifest.json'))).truncated).toEqual(['check_statuses.csv']);
    await expect(topologySnapshot(t.db, TOPO.ops, {}, all, new Date(), { ...SNAPSHOT_BOUNDS, bytes: 1000 }))
      .rejects.toThrow(/^snapshot over 1 MB/);
  });

  it('refuses bad parameters naming them, an unknown id, the signed out; 404 while topology.disable', async () => {
    expect((await get(TOPO.ops, 'start=soon')).json().error).toMatch(/^start: /);
    expect((await get(TOPO.ops, 'end=2026-02-30')).json().error).toMatch(/^end: /);
    expect((await get(TOPO.ops, 'related=maybe')).json().error).toMatch(/^related: /);
    expect((await get(TOPO.ops, 'start=1h&end=2h')).json().error).toMatch(/^start: after end/);
    expect((await get('0000000d-0000-4000-8000-00000000ffff')).statusCode).toBe(404);
    expect((await get('not-an-id')).statusCode).toBe(400);
    expect((await get(TOPO.ops, '', {})).statusCode).toBe(401);
    for (const role of ['commander', 'responder'] as const) {
      const headers = await bearerHeaders(t.db, (await makePerson(t.db, { roles: [role] })).id);
      expect((await get(TOPO.web, '', headers)).statusCode).toBe(200);
    }
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('topology.disable', 'true')`);
    try {
      expect((await get(TOPO.ops)).statusCode).toBe(404);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'topology.disable'`);
    }
  });
});
