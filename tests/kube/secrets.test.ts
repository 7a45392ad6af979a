import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { KeyRefReadError, kubeKeyRefReader, ValueFromResolver, type KeyRefReader } from '../../server/lib/value-from.js';
import { InvalidSpecError } from '../../server/lib/checks/lib/result.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { makePerson, sessionHeaders } from '../server/helpers.js';
import { startLoggedConsole, type LoggedConsole } from '../support/logged-console.js';
import { until } from '../support/poll.js';

/**
 * valueFrom in check specs against the Kubernetes API test server and the run's real PostgreSQL: a Canary CR's
 * postgres check logs in with a password from a Secret, a rotated Secret is picked up once the cache expires, a
 * missing Secret or key makes the check invalid with a message naming it, ConfigMap values reach an exec check, a
 * console canary without Kubernetes gets a clear error, and no Secret value reaches the logs, the stored results, the
 * API or the CR status.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const adminUrl = new URL(inject('adminUrl'));
const ROLE = `vf_${process.pid}_${randomBytes(3).toString('hex')}`;
// distinctive values, so finding one anywhere is never a coincidence
const PASSWORD_1 = `vf-one-${randomBytes(9).toString('hex')}`;
const PASSWORD_2 = `vf-two-${randomBytes(9).toString('hex')}`;
const TOKEN = `vf-token-${randomBytes(9).toString('hex')}`;
const NS = 'monitoring';

async function asAdmin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

let kube: KubeApi;
let dir: string;
let t: LoggedConsole;
let headers: Record<string, string>;
const CANARY = kindByKind('Canary')!;

const secret = (name: string, data: Record<string, string>) => kube.apply({
  apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, type: 'Opaque', stringData: data,
});
const canary = (name: string, schedule: string, spec: Record<string, unknown>) => kube.apply({
  apiVersion: `${CANARY.group}/v1`, kind: 'Canary', metadata: { name, namespace: NS }, spec: { schedule, ...spec },
});

const checkId = (canaryName: string, checkName: string) => t.checkId(NS, canaryName, checkName);

async function runNow(c: LoggedConsole, id: string, h = headers) {
  const res = await c.app.inject({ method: 'POST', url: `/api/canary/run/check/${id}`, headers: h });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { pass: boolean; invalid: boolean; error?: string; message?: string };
}

/** The newest stored result of a check. */
async function latest(id: string) {
  const { rows } = await t.db.query<{ status: boolean; invalid: boolean; error: string | null; time: Date }>(
    'SELECT status, invalid, error, time FROM check_statuses WHERE check_id = $1 ORDER BY time DESC LIMIT 1', [id],
  );
  return rows[0];
}

beforeAll(async () => {
  await asAdmin(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD_1}'`);
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-secrets-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  secret('pg-auth', { password: PASSWORD_1, token: TOKEN });
  kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'greetings', namespace: NS }, data: { greeting: 'hello from a configmap' } });
  // a 1 s cache, so a rotation is seen within the test
  t = await startLoggedConsole({ KUBECONFIG: kubeconfig, POD_NAME: 'console-secrets-test', POD_NAMESPACE: 'default', VALUE_FROM_CACHE_SECONDS: '1' });
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await sessionHeaders(t.db, admin.id);
});

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  await asAdmin(`DROP ROLE IF EXISTS ${ROLE}`).catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('valueFrom from Kubernetes Secrets and ConfigMaps', () => {
  const pgUrl = () => `postgres://${ROLE}@${adminUrl.host}/postgres?sslmode=disable`;

  it('a Canary CR postgres check with its password in a Secret runs on its schedule and passes', async () => {
    canary('pg-secret', '@every 1s', {
      postgres: [{
        name: 'login', url: pgUrl(), query: 'SELECT current_user AS who',
        password: { valueFrom: { secretKeyRef: { name: 'pg-auth', key: 'password' } } },
        test: { expr: `rows[0].who == '${ROLE}'` },
      }],
    });
    const id = await checkId('pg-secret', 'login');
    const first = await until(async () => latest(id), 'a scheduled result');
    expect(first.error).toBeNull();
    expect(first).toMatchObject({ status: true, invalid: false });
    // Run Now resolves it too
    expect(await runNow(t, id)).toMatchObject({ pass: true, invalid: false });
  });

  it('a rotated Secret is used once the cache has expired', async () => {
    const id = await checkId('pg-secret', 'login');
    // the database's password changes first: runs fail (the old value), with an error that does not carry it
    await asAdmin(`ALTER ROLE ${ROLE} PASSWORD '${PASSWORD_2}'`);
    const failed = await until(async () => {
      const r = await runNow(t, id);
      return r.pass ? undefined : r;
    }, 'a failing run with the old password');
    expect(failed.invalid).toBe(false);
    expect(failed.error).toMatch(/password authentication failed/);
    // then the Secret: the scheduled runs pass again without the canary being touched
    const rotated = new Date();
    secret('pg-auth', { password: PASSWORD_2, token: TOKEN });
    await until(async () => {
      const r = await latest(id);
      return r && r.time > rotated && r.status;
    }, 'a passing scheduled run with the new password');
    expect(await runNow(t, id)).toMatchObject({ pass: true });
  });

  it('a missing Secret or key makes the check invalid, naming namespace/name/key and never a value', async () => {
    canary('pg-missing', '@every 1h', {
      postgres: [
        { name: 'no-secret', url: pgUrl(), password: { valueFrom: { secretKeyRef: { name: 'nope', key: 'password' } } } },
        { name: 'no-key', url: pgUrl(), password: { valueFrom: { secretKeyRef: { name: 'pg-auth', key: 'passwd' } } } },
        { name: 'helm', url: pgUrl(), password: { valueFrom: { helmRef: { name: 'db', key: 'auth.password' } } } },
      ],
    });
    const noSecret = await runNow(t, await checkId('pg-missing', 'no-secret'));
    expect(noSecret).toMatchObject({ pass: false, invalid: true, error: `password: secret ${NS}/nope not found` });
    const noKey = await runNow(t, await checkId('pg-missing', 'no-key'));
    expect(noKey).toMatchObject({ pass: false, invalid: true, error: `password: key "passwd" not found in secret ${NS}/pg-auth` });
    const helm = await runNow(t, await checkId('pg-missing', 'helm'));
    expect(helm).toMatchObject({ pass: false, invalid: true, error: 'password: valueFrom helmRef is not supported' });
    for (const r of [noSecret, noKey, helm]) expect(JSON.stringify(r)).not.toMatch(/vf-(one|two|token)-/);
    // the runner carries on: the Secret-backed check still passes
    expect(await runNow(t, await checkId('pg-secret', 'login'))).toMatchObject({ pass: true });
  });

  it('ConfigMap values reach an exec check env; a Secret value the script prints is masked', async () => {
    canary('exec-env', '@every 1h', {
      exec: [
        {
          name: 'greeting', script: 'test "$GREETING" = "hello from a configmap" && echo "$GREETING"',
          env: [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'greetings', key: 'greeting' } } }],
        },
        {
          name: 'leaky', script: 'echo "token is $TOKEN"; test -n "$TOKEN"',
          env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'pg-auth', key: 'token' } } }],
          display: { expr: "'said: ' + stdout" },
        },
      ],
    });
    expect(await runNow(t, await checkId('exec-env', 'greeting'))).toMatchObject({ pass: true, message: 'hello from a configmap' });
    const leaky = await runNow(t, await checkId('exec-env', 'leaky'));
    expect(leaky.pass).toBe(true);
    expect(leaky.message).toBe('said: token is ***');
  });

  it('an identity without get on secrets gets a clear 403 message (RBAC evaluated by the API server)', async () => {
    kube.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'configmaps-only' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    kube.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'configmaps-only' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmaps-only' },
      subjects: [{ kind: 'User', name: 'limited', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    kube.addToken('limited-token', { user: 'limited', groups: ['system:authenticated'] });
    const kc = new KubeConfig();
    kc.loadFromFile(kube.writeKubeconfig(join(dir, 'limited.kubeconfig'), { token: 'limited-token' }));
    const resolver = new ValueFromResolver({ reader: kubeKeyRefReader(kc) });
    const spec = {
      password: { valueFrom: { secretKeyRef: { name: 'pg-auth', key: 'password' } } },
      headers: [{ name: 'X-Greeting', valueFrom: { configMapKeyRef: { name: 'greetings', key: 'greeting' } } }],
    };
    const err = await resolver.resolve(spec, NS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidSpecError);
    expect((err as Error).message).toMatch(new RegExp(`^password: not allowed to read secret ${NS}/pg-auth \\(.*forbidden`));
    // the ConfigMap it may read resolves, keeping the header's name
    const ok = await resolver.resolve({ headers: spec.headers }, NS);
    expect(ok).toEqual({ spec: { headers: [{ name: 'X-Greeting', value: 'hello from a configmap' }] }, secrets: [] });
  });

  it('a console canary with valueFrom and KUBERNETES=off gets a clear invalid result', async () => {
    const off = await startLoggedConsole({ KUBERNETES: 'off' });
    try {
      const person = await makePerson(off.db, { roles: ['admin'] });
      const h = await sessionHeaders(off.db, person.id);
      const created = await off.app.inject({
        method: 'POST', url: '/api/canary', headers: h,
        payload: {
          name: 'ui-made', namespace: 'default',
          spec: { schedule: '@every 1h', postgres: [{ name: 'db', url: pgUrl(), password: { valueFrom: { secretKeyRef: { name: 'pg-auth', key: 'password' } } } }] },
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { rows } = await off.db.query<{ id: string }>("SELECT id FROM checks WHERE name = 'db' AND deleted_at IS NULL");
      const r = await runNow(off, rows[0].id, h);
      expect(r).toMatchObject({
        pass: false, invalid: true, error: 'password: valueFrom needs a Kubernetes cluster connection (KUBERNETES=off)',
      });
      expect(off.logs.join('')).not.toMatch(/vf-(one|two|token)-/);
    } finally {
      await off.close();
    }
  });

  it('no Secret value is in the logs, the stored results, the API answers or the CR status', async () => {
    const pattern = /vf-(one|two|token)-/;
    // the capture works: the app's own lines are there (debug level, as the logger of a real start is configured)
    expect(t.logs.join('')).toContain('kubernetes: watching custom resources');
    expect(t.logs.join('')).not.toMatch(pattern);
    for (const table of ['check_statuses', 'checks', 'canaries', 'job_history']) {
      const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text ~ 'vf-(one|two|token)-'`);
      expect(rows[0].n, table).toBe(0);
    }
    const id = await checkId('pg-secret', 'login');
    for (const url of [`/api/canary/api/check/${id}`, '/api/canary/api/summary', `/api/db/check_statuses?check_id=eq.${id}`]) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toMatch(pattern);
    }
    // the status written back to the CRs (the writer runs on its own tick)
    await until(async () => kube.get(CANARY.group, 'v1', CANARY.plural, NS, 'pg-secret')?.status, 'a CR status');
    for (const cr of kube.list(CANARY.group, 'v1', CANARY.plural, NS)) expect(JSON.stringify(cr.status ?? {})).not.toMatch(pattern);
  });
});

describe('the valueFrom cache', () => {
  function counting(data: Record<string, Record<string, string>>) {
    const reads: string[] = [];
    const reader: KeyRefReader = async (kind, ns, name) => {
      reads.push(`${kind}/${ns}/${name}`);
      const d = data[`${kind}/${name}`];
      if (!d) throw new KeyRefReadError('not found', 404);
      return d;
    };
    return { reads, reader };
  }
  const ref = (name: string, key = 'k') => ({ value: '', valueFrom: { secretKeyRef: { name, key } } });

  it('reads each object once per TTL, shares a read in flight, and remembers a failure briefly', async () => {
    let now = 1_000;
    const src = counting({ 'secret/a': { k: 'A' } });
    const r = new ValueFromResolver({ reader: src.reader, ttlMs: 60_000, errorTtlMs: 5_000, now: () => now });
    const spec = { password: ref('a'), list: [{ name: 'x', ...ref('a') }], nested: { deep: { username: ref('a') } } };
    const out = await Promise.all(Array.from({ length: 50 }, () => r.resolve(spec, 'ns')));
    expect(out[0].spec).toEqual({ password: { value: 'A' }, list: [{ name: 'x', value: 'A' }], nested: { deep: { username: { value: 'A' } } } });
    expect(out[0].secrets).toEqual(['A', 'A', 'A']);
    expect(src.reads).toEqual(['secret/ns/a']);
    // another namespace is another object
    await r.resolve(spec, 'other').catch(() => undefined);
    expect(src.reads).toEqual(['secret/ns/a', 'secret/other/a']);
    now += 59_000;
    await r.resolve(spec, 'ns');
    expect(src.reads).toHaveLength(2);
    now += 2_000;
    await r.resolve(spec, 'ns');
    expect(src.reads).toHaveLength(3);
    // a failure is read again only after errorTtlMs
    const before = src.reads.length;
    await expect(r.resolve({ password: ref('missing') }, 'ns')).rejects.toThrow('password: secret ns/missing not found');
    await expect(r.resolve({ password: ref('missing') }, 'ns')).rejects.toThrow(InvalidSpecError);
    expect(src.reads.length).toBe(before + 1);
    now += 5_001;
    await expect(r.resolve({ password: ref('missing') }, 'ns')).rejects.toThrow(InvalidSpecError);
    expect(src.reads.length).toBe(before + 2);
  });

  it('leaves specs without valueFrom untouched; a literal value wins; bad refs are invalid; no cluster is a clear error', async () => {
    const src = counting({ 'secret/a': { k: 'A' } });
    const r = new ValueFromResolver({ reader: src.reader });
    const plain = { url: 'http://x', headers: [{ name: 'a', value: 'b' }] };
    expect((await r.resolve(plain, 'ns')).spec).toBe(plain);
    expect((await r.resolve({ password: { value: 'lit', valueFrom: { secretKeyRef: { name: 'a', key: 'k' } } } }, 'ns')).spec)
      .toEqual({ password: { value: 'lit' } });
    expect(src.reads).toEqual([]);
    await expect(r.resolve({ password: { valueFrom: { secretKeyRef: { name: 'a' } } } }, 'ns'))
      .rejects.toThrow('password: valueFrom.secretKeyRef needs a name and a key');
    await expect(r.resolve({ password: { valueFrom: { serviceAccount: 'x' } } }, 'ns'))
      .rejects.toThrow('password: valueFrom serviceAccount is not supported');
    await expect(r.resolve({ password: { valueFrom: {} } }, 'ns')).rejects.toThrow('password: valueFrom needs secretKeyRef or configMapKeyRef');
    const none = new ValueFromResolver({ reader: null, unavailable: 'valueFrom needs a Kubernetes cluster connection (KUBERNETES=off)' });
    await expect(none.resolve({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }] }, 'ns'))
      .rejects.toThrow('env[0]: valueFrom needs a Kubernetes cluster connection (KUBERNETES=off)');
  });
});
