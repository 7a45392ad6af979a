import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesStatus, SourceLink } from '../../server/contracts/kubernetes.js';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { rowIdOf } from '../../server/modules/kubernetes/objects.js';
import { startKubeApi, type KubeApi, type KubeObject } from '../support/kube-api/index.js';
import { kubectlPath } from '../support/kube-tools.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';
import { until } from '../support/poll.js';

/**
 * Custom resources into the database and back, with the real kubectl against the Kubernetes API test server and the
 * console built on a real PostgreSQL: every example manifest reconciles into its table, kubectl changes and deletes
 * follow, an invalid CR is reported on its status, console edits patch the CR (and a stale one gets 409), GitOps CRs
 * are read-only, and Canary status is written back.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = join(root, 'tests/fixtures/k8s');

let kube: KubeApi;
let t: TestContext;
let kubectl: string;
let dir: string;
let kubeconfig: string;
let headers: Record<string, string>;

function kc(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir };
  return new Promise((resolve) => {
    const child = execFile(kubectl, ['--kubeconfig', kubeconfig, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input ?? '');
  });
}


const CANARY = kindByKind('Canary')!;
const getCr = (plural: string, group: string, ns: string, name: string) => kube.get(group, 'v1', plural, ns, name);
const canaryCr = (ns: string, name: string) => getCr(CANARY.plural, CANARY.group, ns, name);

async function row(table: string, id: string) {
  const { rows } = await t.db.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  return rows[0];
}

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-sync-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  kubectl = await kubectlPath();
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-sync-test', POD_NAMESPACE: 'default' });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
  // console edits act as the caller's cluster identity (the writer for an admin), which the chart binds to a
  // ClusterRole over the console's kinds; the same here
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ops-console-writer' },
    rules: [{ apiGroups: ['canaries.flanksource.com', 'configs.flanksource.com', 'mission-control.flanksource.com'], resources: ['*'], verbs: ['*'] }],
  });
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ops-console-writer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ops-console-writer' },
    subjects: [{ kind: 'Group', name: 'ops-console:writers', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  // the examples' namespaces (created on the test server directly: kubectl sends built-in kinds as protobuf)
  for (const ns of ['apps', 'monitoring']) kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('custom resources reconcile into the database', () => {
  it('kubectl apply of every example: each CR becomes its row (source KubernetesCRD, id = uid)', async () => {
    const out = await kc(['apply', '-f', FIXTURES]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const docs = readdirSync(FIXTURES).filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parseAllDocuments(readFileSync(join(FIXTURES, f), 'utf8')).map((d) => d.toJS() as KubeObject));
    expect(docs.length).toBeGreaterThanOrEqual(10);
    for (const doc of docs) {
      const kind = kindByKind(doc.kind)!;
      const ns = doc.metadata.namespace ?? 'default';
      const cr = getCr(kind.plural, kind.group, ns, doc.metadata.name)!;
      expect(cr, `${doc.kind} ${doc.metadata.name}`).toBeTruthy();
      const r = await until(() => row(kind.table, rowIdOf(cr.metadata.uid!)), `${doc.kind} ${ns}/${doc.metadata.name}`);
      expect(r).toMatchObject({ name: doc.metadata.name, namespace: ns, source: 'KubernetesCRD', deleted_at: null });
      expect(r.spec).toEqual(cr.spec); // as the API server stored it (after its schema's pruning)
    }
    // a Canary CR's checks are the health module's rows, so the health runner runs them
    const http = canaryCr('default', 'http-local')!;
    const { rows: checks } = await t.db.query(
      'SELECT type, name FROM checks WHERE canary_id = $1 AND deleted_at IS NULL ORDER BY name', [http.metadata.uid],
    );
    expect(checks).toEqual([{ type: 'http', name: 'console-healthz' }, { type: 'http', name: 'console-readyz' }]);
    // a Connection's secret reference is kept as a reference; /api/db shows a reference as written (only static
    // secrets are masked) and never the CR's spec
    const conn = getCr('connections', 'mission-control.flanksource.com', 'default', 'ops-webhook')!;
    expect((await row('connections', conn.metadata.uid!)).password).toBe('secret://ops-webhook/password');
    // kinds other than Canary get their validation outcome on their status too
    await until(async () => (getCr('connections', 'mission-control.flanksource.com', 'default', 'ops-webhook')?.status as { status?: string })?.status === 'Ready', 'the Ready status');
    expect(getCr('connections', 'mission-control.flanksource.com', 'default', 'ops-webhook')!.status).toMatchObject({ persistedID: conn.metadata.uid, observedGeneration: 1 });
    const api = await t.app.inject({ method: 'GET', url: `/api/db/connections?id=eq.${conn.metadata.uid}`, headers });
    expect(api.statusCode).toBe(200);
    expect(api.json()[0].password).toBe('secret://ops-webhook/password');
    expect(api.json()[0]).not.toHaveProperty('spec');
  });

  it('GET /api/kubernetes/status reports the connection, the leader and every kind', async () => {
    const s = await until(async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/kubernetes/status', headers });
      const body = res.json();
      return body.kinds?.every((k: { watching: boolean }) => k.watching) ? body : undefined;
    }, 'all kinds watching');
    expect(KubernetesStatus.safeParse(s).success).toBe(true);
    expect(s).toMatchObject({
      connected: true, source: 'kubeconfig', server: kube.url.replace(/\/$/, ''), lastError: null,
      leader: { identity: 'console-sync-test', isLeader: true, holder: 'console-sync-test' },
    });
    expect(s.kinds.map((k: { kind: string }) => k.kind).sort()).toEqual(
      ['Canary', 'Connection', 'IncidentRule', 'LoggingBackend', 'Notification', 'NotificationSilence', 'Playbook', 'ScrapeConfig', 'Topology'],
    );
    expect(s.kinds.find((k: { kind: string }) => k.kind === 'Canary').objects).toBe(6);
    const anon = await t.app.inject({ method: 'GET', url: '/api/kubernetes/status' });
    expect(anon.statusCode).toBe(401);
  });

  it('kubectl apply of a change updates the row; kubectl delete soft-deletes it and its checks', async () => {
    const manifest = parse(readFileSync(join(FIXTURES, 'canary-http.yaml'), 'utf8'));
    manifest.spec.schedule = '@every 5m';
    manifest.metadata.labels.tier = 'gold';
    expect((await kc(['apply', '-f', '-'], JSON.stringify(manifest))).code).toBe(0);
    const applied = Date.now();
    const uid = canaryCr('default', 'http-local')!.metadata.uid!;
    await until(async () => (await row('canaries', uid))?.spec.schedule === '@every 5m', 'the schedule change');
    console.log(`kubectl apply to row updated: ${Date.now() - applied} ms`);
    expect((await row('canaries', uid)).labels).toEqual({ team: 'platform', tier: 'gold' });

    const other = canaryCr('monitoring', 'postgres-port')!;
    expect((await kc(['delete', 'canary', 'postgres-port', '-n', 'monitoring'])).code).toBe(0);
    await until(async () => (await row('canaries', other.metadata.uid!))?.deleted_at, 'the soft delete');
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM checks WHERE canary_id = $1 AND deleted_at IS NULL', [other.metadata.uid]);
    expect(rows[0].n).toBe(0);
  });

  it('an invalid CR gets its error on its status and in the console, and nothing else breaks', async () => {
    const bad = {
      apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name: 'broken', namespace: 'default' },
      spec: { schedule: 'every now and then', tcp: [{ name: 'x', endpoint: '127.0.0.1:1' }] },
    };
    expect((await kc(['apply', '-f', '-'], JSON.stringify(bad))).code).toBe(0);
    const cr = await until(async () => {
      const o = canaryCr('default', 'broken');
      return (o?.status as { status?: string } | undefined)?.status === 'Invalid' ? o : undefined;
    }, 'the Invalid status');
    expect((cr.status as { errorMessage: string }).errorMessage).toMatch(/schedule/);
    const status = (await t.app.inject({ method: 'GET', url: '/api/kubernetes/status', headers })).json();
    expect(status.invalid).toEqual([expect.objectContaining({ kind: 'Canary', namespace: 'default', name: 'broken', error: expect.stringMatching(/schedule/) })]);
    expect(await row('canaries', cr.metadata.uid!)).toBeUndefined();

    // fixing it reconciles it and clears the error
    bad.spec.schedule = '@every 10m';
    expect((await kc(['apply', '-f', '-'], JSON.stringify(bad))).code).toBe(0);
    await until(async () => (await row('canaries', cr.metadata.uid!))?.spec.schedule === '@every 10m', 'the fixed canary');
    const { rows } = await t.db.query('SELECT last_error FROM kubernetes_objects WHERE uid = $1', [cr.metadata.uid]);
    expect(rows[0].last_error).toBeNull();
    // the validation error is gone; the canary now runs at once (its first run on load), so the status may carry
    // that run's own error (nothing listens on 127.0.0.1:1), never the spec's
    await until(async () => {
      const s = canaryCr('default', 'broken')?.status as { status?: string; errorMessage?: string } | undefined;
      return !!s && s.status !== 'Invalid' && !/schedule/.test(s.errorMessage ?? '');
    }, 'the error cleared');
  });
});

describe('conflicts with console-made rows', () => {
  it('a CR whose name a console-made row already holds is reported, and reconciles once that row is gone', async () => {
    const { rows } = await t.db.query(
      `INSERT INTO topologies (name, namespace, source, spec) VALUES ('taken', 'default', 'UI', '{}') RETURNING id`,
    );
    const cr = kube.apply({
      apiVersion: 'canaries.flanksource.com/v1', kind: 'Topology', metadata: { name: 'taken', namespace: 'default' }, spec: { type: 'App' },
    });
    const cur = await until(async () => {
      const s = cr && getCr('topologies', 'canaries.flanksource.com', 'default', 'taken')?.status as { status?: string; errorMessage?: string } | undefined;
      return s?.status === 'Invalid' ? s : undefined;
    }, 'the conflict on the status');
    expect(cur.errorMessage).toMatch(/already exists in the console/);
    // the console's row is removed: the next change of the CR reconciles it
    await t.db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [rows[0].id]);
    kube.apply({ ...cr, metadata: { ...cr.metadata, labels: { retry: '1' } } });
    await until(async () => (await row('topologies', cr.metadata.uid!))?.source === 'KubernetesCRD', 'the CR row');
  });
});

describe('console edits of CR-sourced canaries', () => {
  it('an edit patches the CR (kubectl get -o yaml shows it); a stale resourceVersion gets 409', async () => {
    const cr = canaryCr('default', 'http-local')!;
    const id = cr.metadata.uid!;
    await until(async () => (await row('canaries', id))?.labels?.tier === 'gold', 'the row at the latest version');
    const detail = await until(async () => {
      const d = (await t.app.inject({ method: 'GET', url: `/api/canary/${id}`, headers })).json();
      return d.kubernetes?.resource_version === canaryCr('default', 'http-local')!.metadata.resourceVersion ? d : undefined;
    }, 'the detail at the latest version');
    expect(SourceLink.safeParse(detail).success).toBe(true);
    expect(detail).toMatchObject({ source: 'KubernetesCRD', managed_by: null, read_only: false, source_link: 'Kubernetes Canary default/http-local' });
    const seen = detail.kubernetes.resource_version as string;

    const spec = { ...detail.spec, owner: 'sre' };
    delete spec.severity;
    const res = await t.app.inject({
      method: 'PUT', url: `/api/canary/${id}`, headers,
      payload: { name: 'http-local', namespace: 'default', labels: detail.labels, spec, resource_version: seen },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().spec.owner).toBe('sre');
    // the patch was made as the admin's cluster identity, so cluster RBAC applied to it
    expect(kube.impersonations.filter((r) => r.method === 'PATCH' && r.path.endsWith('/canaries/http-local')))
      .toEqual([expect.objectContaining({ user: 'ops-console-writer', groups: ['ops-console:writers'], status: 200 })]);
    const yaml = await kc(['get', 'canary', 'http-local', '-n', 'default', '-o', 'yaml']);
    const live = parse(yaml.stdout);
    expect(live.spec.owner).toBe('sre');
    expect(live.spec).not.toHaveProperty('severity'); // a removed field is removed from the CR too
    await until(async () => (await row('canaries', id))?.spec.owner === 'sre', 'the row updated by the informer');

    // the same edit with the resourceVersion seen before: the CR moved on, so 409 and nothing is overwritten
    const stale = await t.app.inject({
      method: 'PATCH', url: `/api/canary/${id}`, headers, payload: { spec: { ...spec, owner: 'someone-else' }, resource_version: seen },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/changed in the cluster after you loaded it/);
    expect(canaryCr('default', 'http-local')!.spec).toMatchObject({ owner: 'sre' });

    // an invalid spec is refused before reaching the cluster
    const invalid = await t.app.inject({ method: 'PATCH', url: `/api/canary/${id}`, headers, payload: { spec: { schedule: 'nope', tcp: [] } } });
    expect(invalid.statusCode).toBe(400);
  });

  it('a GitOps-managed CR is read-only and says where it is linked to', async () => {
    const flux = canaryCr('apps', 'gitops-flux')!;
    const argo = canaryCr('apps', 'gitops-argo')!;
    const d = await until(async () => {
      const r = await t.app.inject({ method: 'GET', url: `/api/canary/${flux.metadata.uid}`, headers });
      return r.statusCode === 200 ? (r.json() as { spec: Record<string, unknown> }) : undefined;
    }, 'the flux canary');
    expect(d).toMatchObject({ managed_by: 'flux', read_only: true, source_link: 'Flux kustomization flux-system/apps' });
    const a = (await t.app.inject({ method: 'GET', url: `/api/canary/${argo.metadata.uid}`, headers })).json();
    expect(a).toMatchObject({ managed_by: 'argo', read_only: true, source_link: 'Argo CD application guestbook' });

    const put = await t.app.inject({ method: 'PATCH', url: `/api/canary/${flux.metadata.uid}`, headers, payload: { spec: { ...d.spec, owner: 'me' } } });
    expect(put.statusCode).toBe(403);
    expect(put.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/canary/${flux.metadata.uid}`, headers });
    expect(del.statusCode).toBe(403);
    expect(canaryCr('apps', 'gitops-flux')!.metadata.resourceVersion).toBe(flux.metadata.resourceVersion);
  });

  it('Canary status is written back through the status subresource', async () => {
    const cr = canaryCr('default', 'network-local')!;
    const id = cr.metadata.uid!;
    const { rows } = await t.db.query('SELECT id FROM checks WHERE canary_id = $1 AND type = $2', [id, 'tcp']);
    const run = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${rows[0].id}`, headers });
    expect(run.statusCode).toBe(200);
    const status = await until(async () => {
      const s = canaryCr('default', 'network-local')?.status as Record<string, unknown> | undefined;
      return s?.lastCheck ? s : undefined;
    }, 'the written-back status');
    expect(status).toMatchObject({
      persistedID: id, observedGeneration: cr.metadata.generation,
      status: expect.stringMatching(/^(Passed|Failed)$/), uptime1h: expect.stringMatching(/^\d+\/\d+ \(\d+\.\d%\)$/),
      checks: { 'console-port': rows[0].id },
    });
    const printed = await kc(['get', 'canaries', '-n', 'default']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/network-local/);
  });

  it('deleting a CR-sourced canary in the console deletes the CR', async () => {
    const cr = canaryCr('default', 'http-local')!;
    const res = await t.app.inject({ method: 'DELETE', url: `/api/canary/${cr.metadata.uid}`, headers });
    expect(res.statusCode).toBe(200);
    expect(canaryCr('default', 'http-local')).toBeUndefined();
    expect(kube.impersonations.filter((r) => r.method === 'DELETE'))
      .toEqual([expect.objectContaining({ user: 'ops-console-writer', path: expect.stringMatching(/\/canaries\/http-local$/), status: 200 })]);
    await until(async () => (await row('canaries', cr.metadata.uid!))?.deleted_at, 'the row soft-deleted');
  });
});
