import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { startKubeApi, type KubeApi, type KubeObject } from '../support/kube-api/index.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The generic settings resources of issue 11 on the server: incident rules and logging backends written through
 * /api/db as the reference UI writes them (the settings writer: validation by the kind's schema, CR-sourced rows
 * patched in the cluster, GitOps-owned ones refused), the teams rules, and the *_with_status views the lists read.
 * The app is connected to the Kubernetes API test server, so CRs of the new kinds reconcile into rows.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const RULE = kindByKind('IncidentRule')!;
const BACKEND = kindByKind('LoggingBackend')!;

let kube: KubeApi;
let t: TestContext;
let dir: string;
let editor: { id: string; headers: Record<string, string> };
let admin: { id: string; headers: Record<string, string> };
let viewer: Record<string, string>;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const db = (method: Method, url: string, headers: Record<string, string>, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...headers, ...extra }, payload: payload as never });
const made = async (table: string, body: Record<string, unknown>, who = editor.headers): Promise<string> => {
  const res = await db('POST', `${table}?select=id`, who, body, { prefer: 'return=representation' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json()[0].id as string;
};
const count = async (table: string) => Number((await t.db.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
const rowOf = async (table: string, id: string) => (await t.db.query(`SELECT * FROM ${table} WHERE id = $1`, [id])).rows[0];

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'settings-resources-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-settings-test', POD_NAMESPACE: 'default' });
  const e = await makePerson(t.db, { roles: ['editor'] });
  const a = await makePerson(t.db, { roles: ['admin'] });
  editor = { id: e.id, headers: await sessionHeaders(t.db, e.id) };
  admin = { id: a.id, headers: await sessionHeaders(t.db, a.id) };
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  // console edits act as the caller's cluster identity (the writer for an editor), bound as the chart binds it
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ops-console-writer' },
    rules: [{ apiGroups: [RULE.group, BACKEND.group], resources: ['*'], verbs: ['*'] }],
  });
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ops-console-writer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ops-console-writer' },
    subjects: [{ kind: 'Group', name: 'ops-console:writers', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each([
  {
    table: 'incident_rules',
    spec: { priority: 1, filter: { status: ['unhealthy'] }, template: { title: 'db down', severity: 'high' } },
    bad: { priority: 'high' }, badPath: 'spec.priority',
  },
  {
    table: 'logging_backends',
    spec: { backends: [{ kubernetes: { routes: [{ type: 'KubernetesPod', is_additive: true }] } }] },
    bad: { backends: [{ file: { path: 'not-a-list' } }] }, badPath: 'spec.backends.0.file.path',
  },
])('$table through /api/db', ({ table, spec, bad, badPath }) => {
  it('POST as the reference UI sends it: 201, source UI, created_by the caller, namespace defaulted', async () => {
    const res = await db('POST', `${table}?select=name,namespace,labels,spec,source,created_by`, editor.headers, {
      name: `${table}-one`, labels: { team: 'sre' }, spec, source: 'UI', created_by: editor.id,
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual([{ name: `${table}-one`, namespace: 'default', labels: { team: 'sre' }, spec, source: 'UI', created_by: editor.id }]);
  });

  it('a spec failing its schema, no name, labels not an object, a duplicate name: 4xx naming it, nothing stored', async () => {
    await made(table, { name: `${table}-dup`, spec });
    const before = await count(table);
    const wrong = await db('POST', table, editor.headers, { name: `${table}-bad`, spec: bad });
    expect(wrong.statusCode, wrong.body).toBe(400);
    expect(wrong.json().details).toHaveProperty([badPath]);
    expect(wrong.json().message).toContain(badPath);
    const noName = await db('POST', table, editor.headers, { name: '  ', spec });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().details).toHaveProperty('name');
    const noSpec = await db('POST', table, editor.headers, { name: `${table}-nospec`, spec: [1] });
    expect(noSpec.statusCode).toBe(400);
    expect(noSpec.json().details).toHaveProperty('spec');
    for (const labels of [['a'], 'a=b', { a: 1 }]) {
      const res = await db('POST', table, editor.headers, { name: `${table}-labels`, labels, spec });
      expect(res.statusCode, JSON.stringify(labels)).toBe(400);
      expect(res.json().details).toHaveProperty('labels');
    }
    const dup = await db('POST', table, editor.headers, { name: `${table}-dup`, spec });
    expect(dup.statusCode).toBe(409);
    expect(await count(table)).toBe(before);
  });

  it('PATCH ?id=eq. edits; a bad spec or labels leaves the row; PATCH {deleted_at} soft-deletes', async () => {
    const id = await made(table, { name: `${table}-edit`, spec });
    const next = { ...spec, extra: 'kept' };
    const edit = await db('PATCH', `${table}?id=eq.${id}&select=spec,labels`, editor.headers,
      { spec: next, labels: { tier: 'gold' }, created_by: editor.id, source: 'UI' }, { prefer: 'return=representation' });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json()).toEqual([{ spec: next, labels: { tier: 'gold' } }]);
    expect((await db('PATCH', `${table}?id=eq.${id}`, editor.headers, { spec: bad })).statusCode).toBe(400);
    expect((await db('PATCH', `${table}?id=eq.${id}`, editor.headers, { labels: [1] })).statusCode).toBe(400);
    expect((await rowOf(table, id)).spec).toEqual(next);
    const del = await db('PATCH', `${table}?id=eq.${id}`, editor.headers, { deleted_at: 'now()' });
    expect(del.statusCode, del.body).toBe(204);
    expect((await rowOf(table, id)).deleted_at).not.toBeNull();
    // the name is free again once the row is deleted
    await made(table, { name: `${table}-edit`, spec });
  });

  it('a viewer reads but cannot write (403), and nothing is stored', async () => {
    const before = await count(table);
    expect((await db('GET', `${table}?select=id,name`, viewer)).statusCode).toBe(200);
    const res = await db('POST', table, viewer, { name: `${table}-viewer`, spec });
    expect(res.statusCode).toBe(403);
    expect(await count(table)).toBe(before);
    const id = await made(table, { name: `${table}-viewer-edit`, spec });
    expect((await db('PATCH', `${table}?id=eq.${id}`, viewer, { deleted_at: 'now()' })).statusCode).toBe(403);
    expect((await rowOf(table, id)).deleted_at).toBeNull();
  });
});

describe('teams keep their SQL writes, with the settings rules as constraints', () => {
  it('a blank name or a spec that is not an object is a 400, a duplicate a 409; the creator is stamped', async () => {
    const res = await db('POST', 'teams?select=name,created_by', editor.headers, { name: 'platform', spec: {} }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual([{ name: 'platform', created_by: editor.id }]);
    const before = await count('teams');
    const blank = await db('POST', 'teams', editor.headers, { name: ' ', spec: {} });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toMatch(/teams_name_check/);
    const list = await db('POST', 'teams', editor.headers, { name: 'listed', spec: [1] });
    expect(list.statusCode).toBe(400);
    expect(list.json().message).toMatch(/teams_spec_check/);
    expect((await db('POST', 'teams', editor.headers, { name: 'platform', spec: {} })).statusCode).toBe(409);
    expect((await db('POST', 'teams', viewer, { name: 'viewers', spec: {} })).statusCode).toBe(403);
    expect(await count('teams')).toBe(before);
  });
});

/** A job run of a resource, `minutes` ago. */
async function job(resourceType: string, resourceId: string, status: string, minutes: number, name = `${resourceType}-sync`): Promise<string> {
  const { rows } = await t.db.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, duration_millis,
       details, time_start, time_end, created_at)
     VALUES ($1, $2, $3, $4, 1, 0, 12, '{"errors":[]}', now() - make_interval(mins => $5), now() - make_interval(mins => $5),
       now() - make_interval(mins => $5)) RETURNING time_start`,
    [name, resourceType, resourceId, status, minutes],
  );
  return new Date(rows[0].time_start).toISOString();
}
const iso = (v: unknown) => (v === null ? null : new Date(String(v)).toISOString());

describe('the *_with_status views', () => {
  it('topologies_with_status and config_scrapers_with_status: the latest job run, the last failure, agent, live rows only', async () => {
    const topo = await made('topologies', { name: 'view-topo', spec: { schedule: '@every 5m' } });
    const scraper = await made('config_scrapers', { name: 'view-scraper', spec: { schedule: '@every 1h', kubernetes: [{ clusterName: 'x' }] } });
    const failed = await job('topology', topo, 'FAILED', 30);
    await job('topology', topo, 'FAILED', 90);
    const latest = await job('topology', topo, 'SUCCESS', 5);
    // a minute ahead: saving the scraper starts a real run, whose own job row (now) must not be the latest here
    await job('config_scraper', scraper, 'RUNNING', -1, 'scraper-run');

    const t1 = await db('GET', `topologies_with_status?id=eq.${topo}&select=name,schedule,job_name,job_status,job_success_count,job_details,job_time_start,job_last_failed,last_runtime,agent,created_by(id)`, editor.headers);
    expect(t1.statusCode, t1.body).toBe(200);
    const [row] = t1.json();
    expect({ ...row, job_time_start: iso(row.job_time_start), job_last_failed: iso(row.job_last_failed), last_runtime: iso(row.last_runtime) }).toEqual({
      name: 'view-topo', schedule: '@every 5m', job_name: 'topology-sync', job_status: 'SUCCESS', job_success_count: 1,
      job_details: { errors: [] }, job_time_start: latest, job_last_failed: failed, last_runtime: latest,
      agent: { id: '00000000-0000-0000-0000-000000000000', name: expect.any(String) }, created_by: { id: editor.id },
    });
    const s1 = await db('GET', `config_scrapers_with_status?id=eq.${scraper}&select=name,schedule,job_name,job_status,job_last_failed`, editor.headers);
    expect(s1.json()).toEqual([{ name: 'view-scraper', schedule: '@every 1h', job_name: 'scraper-run', job_status: 'RUNNING', job_last_failed: null }]);

    await db('PATCH', `topologies?id=eq.${topo}`, editor.headers, { deleted_at: 'now()' });
    expect((await db('GET', `topologies_with_status?id=eq.${topo}&select=id`, editor.headers)).json()).toEqual([]);
  });

  it('teams_with_status lists live teams with job columns', async () => {
    const id = await made('teams', { name: 'view-team', spec: {} });
    const gone = await made('teams', { name: 'view-team-gone', spec: {} });
    await db('PATCH', `teams?id=eq.${gone}`, editor.headers, { deleted_at: 'now()' });
    const res = await db('GET', 'teams_with_status?name=like.view-team*&select=id,name,job_status,job_last_failed,created_by(id)', editor.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([{ id, name: 'view-team', job_status: null, job_last_failed: null, created_by: { id: editor.id } }]);
  });

  it('integrations_with_status: one row per scraper, topology and logging backend, with its creator and count', async () => {
    const topo = await made('topologies', { name: 'int-topo', spec: { schedule: '@never' } }, admin.headers);
    // @never: a scraper made here is not run at once by the app's scheduler, so no job row races the assertion below
    const scraper = await made('config_scrapers', { name: 'int-scraper', description: 'the cluster', spec: { schedule: '@never', kubernetes: [{}] } });
    const backend = await made('logging_backends', { name: 'int-logs', spec: { backends: [] } });
    const gone = await made('logging_backends', { name: 'int-gone', spec: { backends: [] } });
    await db('PATCH', `logging_backends?id=eq.${gone}`, editor.headers, { deleted_at: 'now()' });
    await job('topology', topo, 'FAILED', 2);

    const res = await db('GET', 'integrations_with_status?name=like.int-*&select=id,name,namespace,description,integration_type,source,job_status,agent,creator_name,created_by(id)&order=name.asc',
      editor.headers, undefined, { prefer: 'count=exact' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-range']).toBe('0-2/3');
    const agent = { id: '00000000-0000-0000-0000-000000000000', name: expect.any(String) };
    const editorName = (await t.db.query('SELECT name FROM people WHERE id = $1', [editor.id])).rows[0].name;
    const adminName = (await t.db.query('SELECT name FROM people WHERE id = $1', [admin.id])).rows[0].name;
    expect(res.json()).toEqual([
      { id: backend, name: 'int-logs', namespace: 'default', description: '', integration_type: 'logging_backends', source: 'UI', job_status: null, agent, creator_name: editorName, created_by: { id: editor.id } },
      { id: scraper, name: 'int-scraper', namespace: null, description: 'the cluster', integration_type: 'scrapers', source: 'UI', job_status: null, agent, creator_name: editorName, created_by: { id: editor.id } },
      { id: topo, name: 'int-topo', namespace: 'default', description: '', integration_type: 'topologies', source: 'UI', job_status: 'FAILED', agent, creator_name: adminName, created_by: { id: admin.id } },
    ]);
    // integrations read is every role's; the viewer sees the list too
    expect((await db('GET', 'integrations_with_status?select=id&limit=1', viewer)).statusCode).toBe(200);
  });

  it('job_histories.resource_name names topologies and scrapers as well as canaries', async () => {
    const topo = await made('topologies', { name: 'named-topo', spec: {} });
    const scraper = await made('config_scrapers', { name: 'named-scraper', spec: {} });
    await job('topology', topo, 'SUCCESS', 1, 'named-topo-job');
    await job('config_scraper', scraper, 'SUCCESS', 1, 'named-scraper-job');
    await job('component', 'not-a-row', 'SUCCESS', 1, 'named-other-job');
    const res = await db('GET', 'job_histories?name=like.named-*&select=name,resource_type,resource_name&order=name.asc', editor.headers);
    expect(res.json()).toEqual([
      { name: 'named-other-job', resource_type: 'component', resource_name: 'not-a-row' },
      { name: 'named-scraper-job', resource_type: 'config_scraper', resource_name: 'named-scraper' },
      { name: 'named-topo-job', resource_type: 'topology', resource_name: 'named-topo' },
    ]);
  });
});

describe('IncidentRule and LoggingBackend custom resources', () => {
  const crOf = (kind: typeof RULE, ns: string, name: string) => kube.get(kind.group, kind.version, kind.plural, ns, name);
  const fixture = (file: string) => parse(readFileSync(join(root, 'tests/fixtures/k8s', file), 'utf8')) as KubeObject;

  it.each([
    { kind: RULE, table: 'incident_rules', file: 'incident-rule.yaml', change: { priority: 7 } },
    { kind: BACKEND, table: 'logging_backends', file: 'logging-backend.yaml', change: { backends: [{ file: { path: ['/var/log/app.log'] } }] } },
  ])('a $kind.kind CR reconciles into its row; a PATCH patches the CR as the caller; PATCH {deleted_at} deletes it', async ({ kind, table, file, change }) => {
    const applied = kube.apply(fixture(file));
    const id = applied.metadata.uid!;
    await until(async () => (await rowOf(table, id))?.source === 'KubernetesCRD', `the ${kind.kind} reconciled into ${table}`);
    expect(await rowOf(table, id)).toMatchObject({ name: applied.metadata.name, namespace: 'default', spec: applied.spec });

    // the status writer stamps persistedID right after the reconcile (a new resourceVersion): edit the version after it
    const stamped = await until(async () => {
      const cr = crOf(kind, 'default', applied.metadata.name!);
      return (cr?.status as { persistedID?: string } | undefined)?.persistedID === id ? cr : undefined;
    }, `the ${kind.kind} status written`);
    const spec = { ...(applied.spec as object), ...change };
    const res = await db('PATCH', `${table}?id=eq.${id}&select=id,source`, editor.headers,
      { spec, resource_version: stamped!.metadata.resourceVersion }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([{ id, source: 'KubernetesCRD' }]);
    expect(crOf(kind, 'default', applied.metadata.name!)!.spec).toMatchObject(change);
    expect(kube.impersonations.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/${kind.plural}/${applied.metadata.name}`)))
      .toEqual([expect.objectContaining({ user: 'ops-console-writer', status: 200 })]);
    await until(async () => isDeepStrictEqual((await rowOf(table, id)).spec, crOf(kind, 'default', applied.metadata.name!)!.spec),
      'the row updated by the informer');

    const invalid = await db('PATCH', `${table}?id=eq.${id}`, editor.headers, { spec: kind === RULE ? { priority: 'x' } : { backends: 'x' } });
    expect(invalid.statusCode).toBe(400);
    const renamed = await db('PATCH', `${table}?id=eq.${id}`, editor.headers, { name: 'other' });
    expect(renamed.statusCode).toBe(400);

    const del = await db('PATCH', `${table}?id=eq.${id}`, editor.headers, { deleted_at: 'now()' });
    expect(del.statusCode, del.body).toBe(204);
    expect(crOf(kind, 'default', applied.metadata.name!)).toBeUndefined();
    await until(async () => (await rowOf(table, id))?.deleted_at, 'the row soft-deleted');
  });

  it('a GitOps-managed CR is read-only: 403 "Linked to …", and the CR is untouched', async () => {
    const flux = kube.apply({
      apiVersion: `${RULE.group}/${RULE.version}`, kind: RULE.kind,
      metadata: { name: 'gitops-rule', namespace: 'apps', labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' } },
      spec: { priority: 2 },
    });
    const id = flux.metadata.uid!;
    await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [id])).rows[0]?.managed_by, 'its GitOps owner');
    await until(async () => (await rowOf('incident_rules', id))?.source === 'KubernetesCRD', 'the rule reconciled');
    const patch = await db('PATCH', `incident_rules?id=eq.${id}`, editor.headers, { spec: { priority: 3 } });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().message).toMatch(/^Linked to Flux kustomization flux-system\/apps/);
    expect((await db('PATCH', `incident_rules?id=eq.${id}`, editor.headers, { deleted_at: 'now()' })).statusCode).toBe(403);
    // the console may write the CR's status; its spec is untouched and no console edit reached the cluster
    expect(crOf(RULE, 'apps', 'gitops-rule')!.spec).toEqual({ priority: 2 });
    expect(kube.impersonations.filter((r) => r.path.endsWith('/incidentrules/gitops-rule'))).toEqual([]);
    expect((await rowOf('incident_rules', id)).deleted_at).toBeNull();
  });
});
