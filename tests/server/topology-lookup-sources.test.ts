import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupRunner } from '../../server/modules/topology/runner/lookup/index.js';
import { LookupError, type LookupContext, type LookupRunner } from '../../server/modules/topology/runner/types.js';
import { closedPort } from '../fixtures/servers/tcp.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The lookups that are not check types: `kubernetes` against the API test server (the console's cluster connection),
 * `configDB` and a property's `configLookup` against seeded config_items.
 */

let t: TestContext;
let kube: KubeApi;
let dir: string;
let kc: KubeConfig;
let run: LookupRunner;

const pod = (namespace: string, name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
});

beforeAll(async () => {
  t = await createTestApp();
  kube = await startKubeApi();
  dir = mkdtempSync(join(tmpdir(), 'topology-lookup-'));
  kc = new KubeConfig();
  kc.loadFromFile(kube.writeKubeconfig(join(dir, 'kubeconfig')));
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'shop' } } });
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ops', labels: { team: 'ops' } } });
  kube.apply(pod('shop', 'cart-1', { app: 'cart' }));
  kube.apply(pod('shop', 'cart-2', { app: 'cart' }));
  kube.apply(pod('shop', 'pay-1', { app: 'pay' }));
  kube.apply(pod('ops', 'cart-9', { app: 'cart' }));
  kube.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'shop' }, data: { password: 'c2VjcmV0' } });
  run = createLookupRunner({ db: t.db, kubeConfig: () => kc });
  for (const [name, type, tags, config] of [
    ['orders-db', 'AWS::RDS::DBInstance', { env: 'prod' }, { engine: 'postgres', version: '16.2' }],
    ['users-db', 'AWS::RDS::DBInstance', { env: 'dev' }, { engine: 'mysql', version: '8.0' }],
    ['orders', 'Kubernetes::Deployment', { env: 'prod' }, { spec: { replicas: 3 } }],
  ] as const) {
    await t.db.query(
      `INSERT INTO config_items (name, type, config_class, tags, config) VALUES ($1, $2, 'Database', $3, $4)`,
      [name, type, JSON.stringify(tags), JSON.stringify(config)],
    );
  }
  await t.db.query(`INSERT INTO config_items (name, type, config_class, config, deleted_at) VALUES ('gone-db', 'AWS::RDS::DBInstance', 'Database', '{}', now())`);
});

afterAll(async () => {
  await kube?.stop();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function ctx(extra: Partial<LookupContext> = {}): LookupContext {
  return { signal: new AbortController().signal, timeoutMs: 5_000, namespace: 'default', topologyId: '00000000-0000-0000-0000-000000000001', db: t.db, log: t.app.log, ...extra };
}

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(LookupError);
  return (err as Error).message;
}

const names = (list: unknown[]) => list.map((o) => (o as { name?: string; metadata?: { name: string } }).name ?? (o as { metadata: { name: string } }).metadata.name).sort();

describe('kubernetes lookup', () => {
  it('lists a kind by labelSelector in the namespaces namespaceSelector picks; the objects as JSON', async () => {
    const display = { expr: "results.map(p, {'name': p.metadata.name, 'type': 'Pod', 'namespace': p.metadata.namespace})" };
    const got = await run({ kubernetes: [{ kind: 'Pod', namespaceSelector: { name: 'shop' }, resource: { labelSelector: 'app=cart' }, display }] }, ctx());
    expect(got).toEqual([{ name: 'cart-1', type: 'Pod', namespace: 'shop' }, { name: 'cart-2', type: 'Pod', namespace: 'shop' }]);
    // by the namespaces' labels, and every namespace when none is selected
    expect(names(await run({ kubernetes: [{ kind: 'pod', namespaceSelector: { labelSelector: 'team=ops' }, labelSelector: 'app=cart', display: { expr: "results.map(p, {'name': p.metadata.name})" } }] }, ctx()))).toEqual(['cart-9']);
    expect(names(await run({ kubernetes: [{ kind: 'Pod', labelSelector: 'app=cart', display: { expr: "results.map(p, {'name': p.metadata.name})" } }] }, ctx()))).toEqual(['cart-1', 'cart-2', 'cart-9']);
  });

  it('name, fieldSelector, the reference\'s c.Object in CEL, and the raw objects without display', async () => {
    const byName = await run({ kubernetes: [{ kind: 'Pod', namespaceSelector: { name: 'shop' }, name: 'pay-1', display: { expr: "dyn(results).map(c, {'name': c.Object.metadata.name}).toJSON()" } }] }, ctx());
    expect(byName).toEqual([{ name: 'pay-1' }]);
    const raw = await run({ kubernetes: [{ kind: 'Pod', fieldSelector: 'metadata.namespace=ops' }] }, ctx({ purpose: 'property' }));
    expect(raw).toEqual([expect.objectContaining({ kind: 'Pod', metadata: expect.objectContaining({ name: 'cart-9', namespace: 'ops' }) })]);
  });

  it('a raw object has no top-level name: as components it fails naming the result', async () => {
    expect(await failure(run({ kubernetes: [{ kind: 'Pod', namespaceSelector: { name: 'ops' } }] }, ctx()))).toBe('lookup.kubernetes.0: lookup result 0 has no name');
  });

  it('refuses Secrets, unknown kinds without apiVersion, no cluster, and a cluster that is down', async () => {
    expect(await failure(run({ kubernetes: [{ kind: 'Secret' }] }, ctx()))).toMatch(/^lookup\.kubernetes\.0\.kind: Secrets are not looked up/);
    expect(await failure(run({ kubernetes: [{ kind: 'Widget' }] }, ctx()))).toBe('lookup.kubernetes.0.apiVersion: required for kind Widget');
    const none = createLookupRunner({ db: t.db, kubeConfig: () => null });
    expect(await failure(none({ kubernetes: [{ kind: 'Pod' }] }, ctx()))).toBe('lookup.kubernetes.0: the console has no cluster connection');
    const down = new KubeConfig();
    down.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${await closedPort()}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'tok-must-not-show' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x',
    });
    const msg = await failure(createLookupRunner({ db: t.db, kubeConfig: () => down })({ kubernetes: [{ kind: 'Pod' }] }, ctx()));
    expect(msg).toMatch(/^lookup\.kubernetes\.0: the cluster is unreachable/);
    expect(msg).not.toContain('tok-must-not-show');
  });
});

describe('configDB lookup and configLookup', () => {
  it('configDB selects live items by type and tags; display over results', async () => {
    expect(names(await run({ configDB: [{ type: 'aws::rds::dbinstance' }] }, ctx()))).toEqual(['orders-db', 'users-db']);
    const got = await run({ configDB: [{ type: 'AWS::RDS::DBInstance', tags: { env: 'prod' }, display: { expr: "results.map(c, {'name': c.name, 'properties': [{'name': 'engine', 'text': c.config.engine}]})" } }] }, ctx());
    expect(got).toEqual([{ name: 'orders-db', properties: [{ name: 'engine', text: 'postgres' }] }]);
  });

  it('configDB refuses a free-form query and a selector-less entry', async () => {
    expect(await failure(run({ configDB: [{ query: 'SELECT * FROM people' }] }, ctx()))).toMatch(/^lookup\.configDB\.0\.query: free-form queries are not run/);
    expect(await failure(run({ configDB: [{}] }, ctx()))).toBe('lookup.configDB.0: name, type or tags to select config items by');
  });

  it('configLookup: a field of the item\'s config, or its display', async () => {
    const config = { name: 'orders-db', type: 'AWS::RDS::DBInstance' };
    expect(await run({ configLookup: { config, field: 'version' } }, ctx())).toEqual(['16.2']);
    expect(await run({ configLookup: { config: { name: 'orders', tags: { env: 'prod' } }, display: { javascript: 'config.spec.replicas' } } }, ctx())).toEqual(['3']);
    expect(await run({ configLookup: { config: { name: 'orders-db' }, display: { expr: "config.engine + ' ' + config.version" } } }, ctx())).toEqual(['postgres 16.2']);
    expect(await failure(run({ configLookup: { config: { name: 'gone-db' }, field: 'version' } }, ctx()))).toBe('configLookup: no config item matches gone-db');
  });
});
