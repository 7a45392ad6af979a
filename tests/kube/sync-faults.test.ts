import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { KINDS, type KindDef } from '../../server/modules/kubernetes/kinds.js';
import { rowIdOf } from '../../server/modules/kubernetes/objects.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * Convergence under faults: 1,000 CR mutations (creates, updates, deletes, re-creates under the same name) across
 * every kind while the API server drops every watch every 2 s, compacts its history (410 Gone) twice, and goes down
 * for 30 s. Afterwards the database must equal the API server's state: every live CR has exactly one live row (id =
 * uid) with its labels and spec, the ledger is at the CR's resourceVersion, and nothing else is live.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const NAMESPACES = ['default', 'apps'];
const NAMES_PER_KIND = 15;
const MUTATIONS = 1_000;

/** A small valid spec per kind; `n` makes each version different. */
const SPECS: Record<string, (n: number) => Record<string, unknown>> = {
  Canary: (n) => ({ owner: `o${n}`, tcp: [{ name: 'port', endpoint: '127.0.0.1:1' }] }),
  Topology: (n) => ({ type: 'App', tooltip: `t${n}` }),
  ScrapeConfig: (n) => ({ schedule: '@every 1h', logLevel: `l${n}` }),
  Playbook: (n) => ({ title: `p${n}`, actions: [{ name: 'noop', exec: { script: 'true' } }] }),
  Connection: (n) => ({ type: 'http', url: { value: `http://127.0.0.1:${1000 + n}` } }),
  Notification: (n) => ({ events: ['check.failed'], title: `n${n}`, to: { email: 'oncall@example.com' } }),
  NotificationSilence: (n) => ({ description: `quiet ${n}`, filter: `check.name == "c${n}"` }),
  IncidentRule: (n) => ({ name: `rule ${n}`, priority: n }),
  LoggingBackend: (n) => ({ backends: [{ kubernetes: { routes: [{ type: `Pod${n}` }] } }] }),
};

let kube: KubeApi;
let t: TestContext;
let dir: string;
let headers: Record<string, string>;

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  dir = mkdtempSync(join(tmpdir(), 'kube-faults-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-faults', POD_NAMESPACE: 'default' });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A seeded PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Diff {
  kind: string;
  problems: string[];
}

/** Everything that differs between the API server and the database, kind by kind. */
async function differences(): Promise<Diff[]> {
  const out: Diff[] = [];
  for (const k of KINDS) {
    const problems: string[] = [];
    const crs = kube.list(k.group, k.version, k.plural);
    const { rows: ledger } = await t.db.query(
      'SELECT uid, namespace, name, resource_version, last_error FROM kubernetes_objects WHERE kind = $1 AND deleted_at IS NULL', [k.kind],
    );
    const { rows } = await t.db.query(
      `SELECT id, namespace, name, labels, spec FROM ${k.table} WHERE source = 'KubernetesCRD' AND deleted_at IS NULL`,
    );
    const ledgerByUid = new Map(ledger.map((r) => [r.uid, r]));
    const rowById = new Map(rows.map((r) => [r.id, r]));
    for (const cr of crs) {
      const m = cr.metadata;
      const l = ledgerByUid.get(m.uid);
      if (!l) problems.push(`no ledger row for ${m.namespace}/${m.name}`);
      else if (l.resource_version !== m.resourceVersion) problems.push(`${m.namespace}/${m.name} at ${l.resource_version}, CR at ${m.resourceVersion}`);
      else if (l.last_error) problems.push(`${m.namespace}/${m.name}: ${l.last_error}`);
      const r = rowById.get(rowIdOf(m.uid!));
      if (!r) problems.push(`no row for ${m.namespace}/${m.name}`);
      else if (!isDeepStrictEqual(r.spec, cr.spec) || !isDeepStrictEqual(r.labels, m.labels ?? null)) {
        problems.push(`row of ${m.namespace}/${m.name} differs`);
      }
    }
    const uids = new Set(crs.map((c) => c.metadata.uid));
    const ids = new Set(crs.map((c) => rowIdOf(c.metadata.uid!)));
    for (const l of ledger) if (!uids.has(l.uid)) problems.push(`ledger row of a deleted CR ${l.namespace}/${l.name}`);
    for (const r of rows) if (!ids.has(r.id)) problems.push(`live row of a deleted CR ${r.namespace}/${r.name}`);
    const keys = rows.map((r) => `${r.namespace}/${r.name}`);
    if (new Set(keys).size !== keys.length) problems.push('duplicated live rows');
    if (problems.length) out.push({ kind: k.kind, problems });
  }
  return out;
}

it('1,000 mutations under dropped watches, 410 Gone and 30 s of downtime converge: the database equals the API server', async () => {
  const random = prng(20261121);
  const slots: Array<{ kind: KindDef; namespace: string; name: string }> = [];
  for (const kind of KINDS) {
    for (const namespace of NAMESPACES) {
      for (let i = 0; i < NAMES_PER_KIND; i++) slots.push({ kind, namespace, name: `${kind.singular}-${i}` });
    }
  }
  const counts = { create: 0, update: 0, delete: 0 };
  kube.dropWatchesEvery(2_000);
  let down: Promise<void> | null = null;
  for (let i = 0; i < MUTATIONS; i++) {
    if (i === 150 || i === 600) kube.expireHistory();
    if (i === 300) down = kube.goDown(30); // mutations keep coming while the console cannot see them
    if (i === 700) {
      // about 18 s into the outage: the settings page says the cluster is unreachable, and why
      const s = (await t.app.inject({ method: 'GET', url: '/api/kubernetes/status', headers })).json();
      expect(s.connected).toBe(false);
      expect(s.lastError).toBeTruthy();
      expect(s.kinds.every((k: { watching: boolean; lastError: string | null }) => !k.watching && k.lastError)).toBe(true);
    }
    const s = slots[Math.floor(random() * slots.length)];
    const exists = kube.get(s.kind.group, s.kind.version, s.kind.plural, s.namespace, s.name);
    if (!exists) {
      counts.create++;
      kube.apply({
        apiVersion: `${s.kind.group}/${s.kind.version}`, kind: s.kind.kind,
        metadata: { name: s.name, namespace: s.namespace, labels: { gen: String(i) } }, spec: SPECS[s.kind.kind](i),
      });
    } else if (random() < 0.7) {
      counts.update++;
      kube.apply({ ...exists, metadata: { ...exists.metadata, labels: { gen: String(i) } }, spec: SPECS[s.kind.kind](i) });
    } else {
      counts.delete++;
      kube.remove(s.kind.group, s.kind.version, s.kind.plural, s.namespace, s.name);
    }
    await sleep(45);
  }
  await down;
  kube.dropWatchesEvery(null);
  console.log(`mutations: ${JSON.stringify(counts)}`);
  expect(counts.create + counts.update + counts.delete).toBe(MUTATIONS);
  expect(counts.delete).toBeGreaterThan(50);

  const t0 = Date.now();
  let diff = await differences();
  while (diff.length && Date.now() - t0 < 90_000) {
    await sleep(500);
    diff = await differences();
  }
  console.log(`converged ${((Date.now() - t0) / 1000).toFixed(1)} s after the last mutation and the server's return`);
  expect(diff).toEqual([]);
  const status = (await t.app.inject({ method: 'GET', url: '/api/kubernetes/status', headers })).json();
  expect(status).toMatchObject({ connected: true, lastError: null, invalid: [] });
  expect(status.kinds.every((k: { watching: boolean }) => k.watching)).toBe(true);

  // a Canary CR's checks follow it: one live check per live canary, none for deleted ones
  const canary = KINDS.find((k) => k.kind === 'Canary')!;
  const live = kube.list(canary.group, canary.version, canary.plural).map((c) => rowIdOf(c.metadata.uid!)).sort();
  const { rows } = await t.db.query(
    `SELECT canary_id FROM checks WHERE deleted_at IS NULL AND canary_id IN (SELECT id FROM canaries WHERE source = 'KubernetesCRD')
     ORDER BY canary_id`,
  );
  expect(rows.map((r) => r.canary_id)).toEqual(live);
}, 240_000);

it('app.close() stops every informer: no watch is left open on the API server', async () => {
  expect(kube.openWatches()).toBeGreaterThan(0);
  await t.app.close();
  const end = Date.now() + 5_000;
  while (kube.openWatches() > 0 && Date.now() < end) await sleep(50);
  expect(kube.openWatches()).toBe(0);
});

it('CRs deleted, changed and created while no console ran are reconciled when one starts again', async () => {
  // the app of the first test is closed: change the cluster behind its back
  const canary = KINDS.find((k) => k.kind === 'Canary')!;
  const [gone, changed] = kube.list(canary.group, canary.version, canary.plural);
  kube.remove(canary.group, canary.version, canary.plural, gone.metadata.namespace, gone.metadata.name);
  kube.apply({ ...changed, metadata: { ...changed.metadata, labels: { gen: 'offline' } } });
  kube.apply({
    apiVersion: `${canary.group}/${canary.version}`, kind: 'Canary', metadata: { name: 'born-offline', namespace: 'default' },
    spec: SPECS.Canary(0),
  });
  expect((await differences()).length).toBeGreaterThan(0);

  const app = await buildApp(t.config, { logger: false });
  await app.ready();
  try {
    const t0 = Date.now();
    let diff = await differences();
    while (diff.length && Date.now() - t0 < 30_000) {
      await sleep(200);
      diff = await differences();
    }
    expect(diff).toEqual([]);
    const { rows } = await t.db.query('SELECT deleted_at FROM canaries WHERE id = $1', [rowIdOf(gone.metadata.uid!)]);
    expect(rows[0].deleted_at).not.toBeNull();
  } finally {
    await app.close();
  }
});
