import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../server/modules/kubernetes/kinds.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { helmPath, kubectlPath } from '../support/kube-tools.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const chartDir = join(root, 'chart');

type Json = Record<string, any>;
let helm: string;

beforeAll(async () => {
  helm = await helmPath();
});

/** `helm template` with --set pairs; the rendered documents, parsed. */
async function render(sets: string[] = [], release = 'ops'): Promise<Json[]> {
  const args = ['template', release, chartDir, '--namespace', 'ops', ...sets.flatMap((s) => ['--set', s])];
  const { stdout } = await run(helm, args, { maxBuffer: 32 * 1024 * 1024 });
  return parseAllDocuments(stdout).map((d) => d.toJS()).filter(Boolean);
}

/** helm's error for values it must refuse. */
async function renderError(sets: string[]): Promise<string> {
  try {
    await render(sets);
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  throw new Error(`helm template accepted ${sets.join(' ')}`);
}

const find = (docs: Json[], kind: string, name?: string) =>
  docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
const one = (docs: Json[], kind: string, name?: string) => {
  const found = find(docs, kind, name);
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0];
};
const container = (docs: Json[]) => one(docs, 'Deployment').spec.template.spec.containers[0];
const env = (docs: Json[]) => Object.fromEntries(container(docs).env.map((e: Json) => [e.name, e.value ?? e.valueFrom]));

/** Verbs a role grants on `group/resource` (rules may list several groups and resources). */
function verbs(role: Json, group: string, resource: string): string[] {
  return role.rules
    .filter((r: Json) => r.apiGroups.includes(group) && (r.resources.includes(resource) || r.resources.includes('*')))
    .flatMap((r: Json) => r.verbs);
}

describe('chart', () => {
  it('passes helm lint --strict', async () => {
    const { stdout } = await run(helm, ['lint', '--strict', chartDir]);
    expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('carries the console version as appVersion and the CRDs of crds/ unchanged', () => {
    const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(chart.appVersion).toBe(pkg.version);
    const files = readdirSync(join(root, 'crds'));
    expect(readdirSync(join(chartDir, 'crds')).sort()).toEqual(files.sort());
    for (const f of files) expect(readFileSync(join(chartDir, 'crds', f), 'utf8'), f).toBe(readFileSync(join(root, 'crds', f), 'utf8'));
  });

  it('default values: one replica on the embedded database, its volume, hardened pod, probes and env', async () => {
    const docs = await render();
    const deploy = one(docs, 'Deployment');
    expect(deploy.metadata.namespace).toBe('ops');
    expect(deploy.spec.replicas).toBe(1);
    expect(deploy.spec.strategy).toEqual({ type: 'Recreate' });
    const pod = deploy.spec.template.spec;
    expect(pod.serviceAccountName).toBe('ops-ops-console');
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
    const c = container(docs);
    expect(c.image).toBe('ghcr.io/ops-console/ops-console:0.1.0');
    expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
    expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);

    const e = env(docs);
    expect(e).toMatchObject({ PORT: '8080', MODE: 'console', DATA_DIR: '/data', PUBLIC_URL: 'http://localhost:8080', CHART_VERSION: '0.1.0' });
    expect(e).not.toHaveProperty('DATABASE_URL');
    expect(e).not.toHaveProperty('TRUST_PROXY');
    expect(e.POD_NAMESPACE).toEqual({ fieldRef: { fieldPath: 'metadata.namespace' } });
    expect(e.POD_NAME).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(e.ADMIN_PASSWORD).toEqual({ secretKeyRef: { name: 'ops-ops-console-admin', key: 'password' } });

    // the generated admin password is in the chart's Secret, 24 characters
    const admin = one(docs, 'Secret', 'ops-ops-console-admin');
    expect(Buffer.from(admin.data.password, 'base64').toString()).toMatch(/^[A-Za-z0-9]{24}$/);

    // the data volume is a PVC kept on uninstall; /tmp is an emptyDir for the read-only root
    const pvc = one(docs, 'PersistentVolumeClaim');
    expect(pvc.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    expect(pvc.spec.resources.requests.storage).toBe('5Gi');
    const volumes = Object.fromEntries(pod.volumes.map((v: Json) => [v.name, v]));
    expect(volumes.data.persistentVolumeClaim.claimName).toBe(pvc.metadata.name);
    expect(volumes.tmp.emptyDir).toEqual({});
    expect(c.volumeMounts).toEqual(expect.arrayContaining([{ name: 'tmp', mountPath: '/tmp' }, { name: 'data', mountPath: '/data' }]));

    expect(one(docs, 'Service').spec.ports[0]).toMatchObject({ port: 8080, targetPort: 'http' });
    expect(find(docs, 'Ingress')).toHaveLength(0);
  });

  it('RBAC: the console watches and writes its kinds and their status, leases in its namespace, impersonates only the two identities', async () => {
    const docs = await render();
    const role = one(docs, 'ClusterRole', 'ops-ops-console');
    for (const k of KINDS) {
      expect(verbs(role, k.group, k.plural).sort(), k.plural).toEqual(['get', 'list', 'patch', 'update', 'watch']);
      expect(verbs(role, k.group, `${k.plural}/status`).sort(), `${k.plural}/status`).toEqual(['get', 'patch', 'update']);
    }
    // valueFrom in checks: one Secret or ConfigMap by name, never a list or a watch; rbac.valueFrom=false takes it away
    expect(verbs(role, '', 'secrets')).toEqual(['get']);
    expect(verbs(role, '', 'configmaps').sort()).toEqual(['get', 'list', 'watch']); // list/watch: the catalog
    const without = one(await render(['rbac.valueFrom=false']), 'ClusterRole', 'ops-ops-console');
    expect(verbs(without, '', 'secrets')).toEqual([]);
    expect(verbs(without, '', 'configmaps').sort()).toEqual(['list', 'watch']);
    // the catalog's kubernetes scraper lists and watches the kinds it scrapes, but no Secret unless asked
    for (const [group, resource] of [['', 'pods'], ['', 'nodes'], ['', 'events'], ['apps', 'deployments'], ['batch', 'cronjobs'], ['networking.k8s.io', 'ingresses']]) {
      expect(verbs(role, group, resource).sort(), `${group}/${resource}`).toEqual(expect.arrayContaining(['list', 'watch']));
    }
    expect(verbs(role, '', 'secrets')).not.toContain('list');
    expect(role.rules.some((r: Json) => r.apiGroups.includes('*'))).toBe(false);
    const withSecrets = one(await render(['rbac.catalogSecrets=true']), 'ClusterRole', 'ops-ops-console');
    expect(verbs(withSecrets, '', 'secrets').sort()).toEqual(['get', 'list', 'watch']);
    const impersonate = role.rules.filter((r: Json) => r.verbs.includes('impersonate'));
    expect(impersonate.flatMap((r: Json) => r.resources).sort()).toEqual(['groups', 'users']);
    expect(impersonate.flatMap((r: Json) => r.resourceNames).sort())
      .toEqual(['ops-console-reader', 'ops-console-writer', 'ops-console:readers', 'ops-console:writers']);
    const binding = one(docs, 'ClusterRoleBinding', 'ops-ops-console');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'ops-ops-console', namespace: 'ops' }]);

    const leases = one(docs, 'Role', 'ops-ops-console-leader');
    expect(leases.metadata.namespace).toBe('ops');
    expect(verbs(leases, 'coordination.k8s.io', 'leases')).toEqual(expect.arrayContaining(['create', 'get', 'update']));
    expect(one(docs, 'RoleBinding', 'ops-ops-console-leader').subjects[0].name).toBe('ops-ops-console');
    expect(env(docs).LEADER_LEASE_NAME).toBe('ops-ops-console-leader');
  });

  it('RBAC: the writer identity may do everything on the kinds, the reader only read; neither reads secrets', async () => {
    const docs = await render();
    const writer = one(docs, 'ClusterRole', 'ops-ops-console-writer');
    const reader = one(docs, 'ClusterRole', 'ops-ops-console-reader');
    for (const k of KINDS) {
      expect(verbs(writer, k.group, k.plural)).toEqual(expect.arrayContaining(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']));
      expect(verbs(reader, k.group, k.plural).sort()).toEqual(['get', 'list', 'watch']);
    }
    for (const r of reader.rules) expect(r.verbs.every((v: string) => ['get', 'list', 'watch'].includes(v)), JSON.stringify(r)).toBe(true);
    expect(verbs(writer, '', 'pods')).toEqual(['get', 'list', 'watch']);
    expect(verbs(writer, 'apps', 'deployments')).toEqual(['get', 'list', 'watch']);
    expect(verbs(writer, '', 'secrets')).toEqual([]);
    expect(verbs(reader, '', 'secrets')).toEqual([]);
    // exec, attach and port-forward only when the operator says so, and only for the writer
    for (const sub of ['pods/exec', 'pods/attach', 'pods/portforward']) expect(verbs(writer, '', sub), sub).toEqual([]);
    const exec = await render(['rbac.writerExec=true']);
    for (const sub of ['pods/exec', 'pods/attach', 'pods/portforward']) {
      expect(verbs(one(exec, 'ClusterRole', 'ops-ops-console-writer'), '', sub), sub).toEqual(['create']);
      expect(verbs(one(exec, 'ClusterRole', 'ops-ops-console-reader'), '', sub), sub).toEqual([]);
    }
    expect(one(docs, 'ClusterRoleBinding', 'ops-ops-console-writer').subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'ops-console-writer' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops-console:writers' },
    ]);
    expect(one(docs, 'ClusterRoleBinding', 'ops-ops-console-reader').subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'ops-console-reader' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops-console:readers' },
    ]);
  });

  it('external database: several replicas rolling, DATABASE_URL from a Secret, no volume', async () => {
    const url = 'postgres://console:s3cret@db.example.com:5432/console?sslmode=require';
    const docs = await render(['database.external.enabled=true', `database.external.url=${url}`, 'replicas=3']);
    const deploy = one(docs, 'Deployment');
    expect(deploy.spec.replicas).toBe(3);
    expect(deploy.spec.strategy.type).toBe('RollingUpdate');
    const e = env(docs);
    expect(e.DATABASE_URL).toEqual({ secretKeyRef: { name: 'ops-ops-console-database', key: 'DATABASE_URL' } });
    expect(e).not.toHaveProperty('DATA_DIR');
    expect(JSON.stringify(deploy)).not.toContain('s3cret');
    const secret = one(docs, 'Secret', 'ops-ops-console-database');
    expect(Buffer.from(secret.data.DATABASE_URL, 'base64').toString()).toBe(url);
    expect(find(docs, 'PersistentVolumeClaim')).toHaveLength(0);
    expect(deploy.spec.template.spec.volumes.map((v: Json) => v.name)).toEqual(['tmp']);

    // an existing Secret is used as is, and the chart creates none
    const existing = await render(['database.external.enabled=true', 'database.external.existingSecret=pg', 'database.external.urlKey=url']);
    expect(env(existing).DATABASE_URL).toEqual({ secretKeyRef: { name: 'pg', key: 'url' } });
    expect(find(existing, 'Secret', 'ops-ops-console-database')).toHaveLength(0);
  });

  it('keys: an external database gets one generated keys Secret shared by every replica; the embedded one keeps its own', async () => {
    const docs = await render(['database.external.enabled=true', 'database.external.url=postgres://db/console', 'replicas=2']);
    const e = env(docs);
    expect(e.SECRETS_KEY).toEqual({ secretKeyRef: { name: 'ops-ops-console-keys', key: 'SECRETS_KEY' } });
    expect(e.AUTH_ENCRYPTION_KEY).toEqual({ secretKeyRef: { name: 'ops-ops-console-keys', key: 'AUTH_ENCRYPTION_KEY' } });
    const keys = one(docs, 'Secret', 'ops-ops-console-keys');
    expect(keys.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    for (const k of ['SECRETS_KEY', 'AUTH_ENCRYPTION_KEY']) {
      expect(Buffer.from(Buffer.from(keys.data[k], 'base64').toString(), 'base64')).toHaveLength(32);
    }
    // the embedded database keeps its keys in its volume (DATA_DIR), unless an existing Secret is named
    expect(env(await render())).not.toHaveProperty('AUTH_ENCRYPTION_KEY');
    const named = await render(['keys.existingSecret=my-keys']);
    expect(env(named).SECRETS_KEY).toEqual({ secretKeyRef: { name: 'my-keys', key: 'SECRETS_KEY' } });
    expect(find(named, 'Secret', 'ops-ops-console-keys')).toHaveLength(0);
  });

  it('auth: local by default; oidc sets the provider, its secret from a Secret, the role mapping as JSON', async () => {
    expect(env(await render())).toMatchObject({ AUTH_MODE: 'local', SESSION_IDLE_MINUTES: '720' });
    const docs = await render([
      'auth.mode=oidc', 'auth.oidc.issuer=https://id.example.com/realms/ops', 'auth.oidc.clientId=console',
      'auth.oidc.clientSecret=t0ps3cret', 'auth.oidc.displayName=Keycloak', 'auth.oidc.localLogin=none',
      'auth.oidc.roleMapping[0].claim=realm_access.roles', 'auth.oidc.roleMapping[0].value=ops-*',
      'auth.oidc.roleMapping[0].role=editor',
    ]);
    const e = env(docs);
    expect(e).toMatchObject({
      AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://id.example.com/realms/ops', OIDC_CLIENT_ID: 'console',
      OIDC_DISPLAY_NAME: 'Keycloak', OIDC_LOCAL_LOGIN: 'none', OIDC_ORG_CLAIM: 'organization', OIDC_SCOPES: 'openid email profile',
    });
    expect(JSON.parse(e.OIDC_ROLE_MAPPING)).toEqual([{ claim: 'realm_access.roles', value: 'ops-*', role: 'editor' }]);
    expect(e.OIDC_CLIENT_SECRET).toEqual({ secretKeyRef: { name: 'ops-ops-console-oidc', key: 'clientSecret' } });
    expect(JSON.stringify(one(docs, 'Deployment'))).not.toContain('t0ps3cret');
    expect(Buffer.from(one(docs, 'Secret', 'ops-ops-console-oidc').data.clientSecret, 'base64').toString()).toBe('t0ps3cret');
    expect(await renderError(['auth.mode=oidc'])).toMatch(/auth.mode oidc needs auth.oidc.issuer/);
    expect(await renderError(['auth.mode=oidc', 'auth.oidc.issuer=https://x', 'auth.oidc.clientId=c', 'auth.oidc.localLogin=some'])).toMatch(/localLogin/);
  });

  it('the embedded database forces a single replica, whatever replicas says', async () => {
    const docs = await render(['replicas=3']);
    expect(one(docs, 'Deployment').spec.replicas).toBe(1);
    expect(one(docs, 'Deployment').spec.strategy.type).toBe('Recreate');
  });

  it('ingress: host and TLS, the public URL follows it and forwarded headers are trusted', async () => {
    const docs = await render(['ingress.enabled=true', 'ingress.host=console.example.com', 'ingress.className=nginx', 'ingress.tls.enabled=true']);
    const ing = one(docs, 'Ingress');
    expect(ing.spec.ingressClassName).toBe('nginx');
    expect(ing.spec.rules[0].host).toBe('console.example.com');
    expect(ing.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'ops-ops-console', port: { name: 'http' } });
    expect(ing.spec.tls).toEqual([{ hosts: ['console.example.com'], secretName: 'ops-ops-console-tls' }]);
    expect(env(docs)).toMatchObject({ PUBLIC_URL: 'https://console.example.com', TRUST_PROXY: 'true' });
  });

  it('mode check-runner and watched namespaces reach the environment', async () => {
    const docs = await render(['mode=check-runner', 'kubernetes.watchNamespaces={apps,monitoring}', 'admin.existingSecret=admin-pw']);
    expect(env(docs)).toMatchObject({ MODE: 'check-runner', WATCH_NAMESPACES: 'apps,monitoring' });
    expect(env(docs).ADMIN_PASSWORD).toEqual({ secretKeyRef: { name: 'admin-pw', key: 'password' } });
    expect(find(docs, 'Secret')).toHaveLength(0);
  });

  it('install notes tell how to reach the console, sign in and use kubectl', async () => {
    const notes = async (sets: string[]) => {
      const { stdout } = await run(helm, ['install', 'ops', chartDir, '-n', 'ops', '--dry-run=client', ...sets.flatMap((s) => ['--set', s])],
        { maxBuffer: 32 * 1024 * 1024 });
      return stdout.slice(stdout.indexOf('NOTES:'));
    };
    const plain = await notes([]);
    expect(plain).toContain('kubectl -n ops port-forward service/ops-ops-console 8080:8080');
    expect(plain).toContain('get secret ops-ops-console-admin');
    expect(plain).toContain('./localhost-kubeconfig.yaml get canaries -A');
    const ingress = await notes(['ingress.enabled=true', 'ingress.host=console.example.com', 'ingress.tls.enabled=true']);
    expect(ingress).toContain('Open https://console.example.com');
    expect(ingress).not.toContain('port-forward');
    expect(await notes(['replicas=2'])).toContain('replicas=2 was reduced to 1');
  });

  it('refuses values that cannot work, with a message', async () => {
    expect(await renderError(['replicas=two'])).toMatch(/replicas/);
    expect(await renderError(['mode=everything'])).toMatch(/mode/);
    expect(await renderError(['admin.password=short'])).toMatch(/password/);
    expect(await renderError(['database.external.enabled=true'])).toMatch(/needs database.external.url or database.external.existingSecret/);
    expect(await renderError(['database.external.enabled=true', 'database.external.url=mysql://x'])).toMatch(/url/);
    expect(await renderError(['ingress.enabled=true'])).toMatch(/ingress.enabled needs ingress.host/);
    expect(await renderError(['mode=agent'])).toMatch(/agent.upstreamUrl/);
    expect(await renderError(['servce.port=80'])).toMatch(/servce/);
  });
});

describe('chart and examples on the Kubernetes API test server, with the real kubectl', () => {
  let api: KubeApi;
  let kubectlBin: string;
  let dir: string;
  let admin: string;
  const SA = 'system:serviceaccount:ops:ops-ops-console';

  /** Runs kubectl with a kubeconfig; resolves with the exit code instead of throwing, so refusals can be asserted. */
  async function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(kubectlBin, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], {
        env: { ...process.env, HOME: dir, KUBECONFIG: '' },
        maxBuffer: 32 * 1024 * 1024,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
    }
  }
  const ok = async (kubeconfig: string, args: string[]) => {
    const r = await kubectl(kubeconfig, args);
    expect(r.stderr, `kubectl ${args.join(' ')}`).not.toMatch(/error/i);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    kubectlBin = await kubectlPath();
    dir = mkdtempSync(join(tmpdir(), 'chart-test-'));
    api = await startKubeApi();
    admin = api.writeKubeconfig(join(dir, 'admin.kubeconfig'));
    const namespaces = ['ops', 'apps', 'monitoring'].map((ns) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`);
    writeFileSync(join(dir, 'namespaces.yaml'), namespaces.join('---\n'));
    await ok(admin, ['apply', '-f', join(dir, 'namespaces.yaml')]);
    // the CRDs the way an operator installs them by hand (helm would take them from chart/crds/)
    await ok(admin, ['apply', '-f', join(root, 'crds')]);
  });

  afterAll(async () => {
    await api?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl applies the rendered chart (default, then external database with ingress) and the API server holds it', async () => {
    const { stdout: plain } = await run(helm, ['template', 'ops', chartDir, '--namespace', 'ops'], { maxBuffer: 32 * 1024 * 1024 });
    writeFileSync(join(dir, 'default.yaml'), plain);
    const out = await ok(admin, ['apply', '-f', join(dir, 'default.yaml')]);
    expect(out).toMatch(/deployment.apps\/ops-ops-console created/);
    expect(out).toMatch(/clusterrole.rbac.authorization.k8s.io\/ops-ops-console-writer created/);
    const deploy = JSON.parse(await ok(admin, ['get', 'deployment', 'ops-ops-console', '-n', 'ops', '-o', 'json']));
    expect(deploy.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem).toBe(true);
    expect(await ok(admin, ['get', 'pvc', '-n', 'ops', '-o', 'name'])).toContain('persistentvolumeclaim/ops-ops-console-data');

    const { stdout: ext } = await run(helm, ['template', 'ops', chartDir, '--namespace', 'ops',
      '--set', 'database.external.enabled=true', '--set', 'database.external.url=postgres://u:p@db:5432/c', '--set', 'replicas=2',
      '--set', 'ingress.enabled=true', '--set', 'ingress.host=console.example.com'], { maxBuffer: 32 * 1024 * 1024 });
    writeFileSync(join(dir, 'external.yaml'), ext);
    const out2 = await ok(admin, ['apply', '-f', join(dir, 'external.yaml')]);
    expect(out2).toMatch(/deployment.apps\/ops-ops-console configured/);
    expect(out2).toMatch(/ingress.networking.k8s.io\/ops-ops-console created/);
    const after = JSON.parse(await ok(admin, ['get', 'deployment', 'ops-ops-console', '-n', 'ops', '-o', 'json']));
    expect(after.spec.replicas).toBe(2);
  });

  it('plain kubectl apply (validation on) takes every example in tests/fixtures/k8s, and lists canaries with the printer columns', async () => {
    const out = await ok(admin, ['apply', '-f', join(root, 'tests', 'fixtures', 'k8s')]);
    expect(out.trim().split('\n')).toHaveLength(14); // 13 files, one with two canaries
    for (const k of KINDS) expect(out, k.kind).toContain(`${k.singular}.${k.group}/`);
    const canaries = JSON.parse(await ok(admin, ['get', 'canaries', '-A', '-o', 'json']));
    expect(canaries.items.map((c: Json) => `${c.metadata.namespace}/${c.metadata.name}`).sort()).toEqual([
      'apps/gitops-argo', 'apps/gitops-flux', 'default/exec-disk', 'default/http-local', 'default/network-local', 'monitoring/postgres-port',
    ]);
    const flux = canaries.items.find((c: Json) => c.metadata.name === 'gitops-flux');
    expect(flux.metadata.labels['kustomize.toolkit.fluxcd.io/name']).toBe('apps');
    const table = await ok(admin, ['get', 'canaries', '-n', 'default']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+SCHEDULE\s+STATUS\s+LAST CHECK\s+UPTIME 1H\s+LATENCY 1H\s+LAST TRANSITIONED\s+MESSAGE/);
    expect(table).toMatch(/http-local\s+@every 1m/);
    // applying the same files again changes nothing
    expect(await ok(admin, ['apply', '-f', join(root, 'tests', 'fixtures', 'k8s')])).not.toMatch(/created|configured/);
  });

  it('a manifest with a wrongly typed known field is refused, one with fields the console does not read is kept', async () => {
    const bad = join(dir, 'bad-canary.yaml');
    writeFileSync(bad, 'apiVersion: canaries.flanksource.com/v1\nkind: Canary\nmetadata: {name: bad, namespace: default}\n'
      + 'spec:\n  interval: often\n  http:\n    - name: x\n      url: http://127.0.0.1/\n      responseCodes: ["ok"]\n');
    const r = await kubectl(admin, ['apply', '-f', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/interval|responseCodes/);
    expect((await kubectl(admin, ['get', 'canary', 'bad', '-n', 'default'])).code).not.toBe(0);

    // a reference manifest with a check type and check fields this console does not run still applies
    const reference = join(dir, 'reference-canary.yaml');
    writeFileSync(reference, 'apiVersion: canaries.flanksource.com/v1\nkind: Canary\nmetadata: {name: reference, namespace: default}\n'
      + 'spec:\n  schedule: "@every 5m"\n  kubernetes:\n    - name: pods\n      kind: Pod\n      ready: true\n'
      + '  http:\n    - name: x\n      url: http://127.0.0.1/\n      metrics:\n        - name: up\n          type: gauge\n          value: "1"\n');
    await ok(admin, ['apply', '-f', reference]);
    const stored = JSON.parse(await ok(admin, ['get', 'canary', 'reference', '-n', 'default', '-o', 'json']));
    expect(stored.spec.kubernetes[0].kind).toBe('Pod');
    expect(stored.spec.http[0].metrics[0].name).toBe('up');
  });

  it('RBAC from the chart: the console account reads and writes status, impersonates the writer and the reader, and nothing more', async () => {
    // the chart's RBAC is in the server from the first test; the console's service account gets a token
    api.addToken('console-sa-token', { user: SA, groups: ['system:serviceaccounts', 'system:serviceaccounts:ops', 'system:authenticated'] });
    const sa = api.writeKubeconfig(join(dir, 'sa.kubeconfig'), { token: 'console-sa-token' });

    expect(await ok(sa, ['get', 'canaries', '-A', '-o', 'name'])).toContain('canary.canaries.flanksource.com/http-local');
    await ok(sa, ['patch', 'canary', 'http-local', '-n', 'default', '--subresource=status', '--type=merge', '-p', '{"status":{"status":"Passed","uptime1h":"1/1 (100.0%)"}}']);
    expect(JSON.parse(await ok(admin, ['get', 'canary', 'http-local', '-n', 'default', '-o', 'json'])).status.status).toBe('Passed');
    const denied = await kubectl(sa, ['delete', 'canary', 'http-local', '-n', 'default']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/forbidden/i);
    // it reads a Secret by name (valueFrom in checks) but may not list them
    expect((await kubectl(sa, ['get', 'secrets', '-n', 'ops'])).stderr).toMatch(/forbidden/i);
    expect(await ok(sa, ['get', 'secret', 'ops-ops-console-admin', '-n', 'ops', '-o', 'name'])).toContain('secret/ops-ops-console-admin');

    // as the writer (console admins and editors): create and delete the console's kinds, read pods, not secrets
    const asWriter = ['--as', 'ops-console-writer', '--as-group', 'ops-console:writers'];
    await ok(sa, [...asWriter, 'delete', 'canary', 'exec-disk', '-n', 'default']);
    await ok(sa, [...asWriter, 'apply', '-f', join(root, 'tests', 'fixtures', 'k8s', 'canary-exec.yaml')]);
    await ok(sa, [...asWriter, 'get', 'deployments', '-n', 'ops']);
    expect((await kubectl(sa, [...asWriter, 'get', 'secrets', '-n', 'ops'])).stderr).toMatch(/forbidden/i);

    // as the reader: read only
    const asReader = ['--as', 'ops-console-reader', '--as-group', 'ops-console:readers'];
    expect(await ok(sa, [...asReader, 'get', 'playbooks', '-A', '-o', 'name'])).toContain('playbook.mission-control.flanksource.com/restart-console');
    const readerDelete = await kubectl(sa, [...asReader, 'delete', 'canary', 'exec-disk', '-n', 'default']);
    expect(readerDelete.stderr).toMatch(/forbidden/i);

    // anyone else is out of reach of the console's impersonation right
    const other = await kubectl(sa, ['--as', 'cluster-admin-wannabe', 'get', 'canaries', '-A']);
    expect(other.stderr).toMatch(/cannot impersonate/i);
    const recorded = api.impersonations.filter((r) => r.authenticatedAs === SA);
    expect(recorded.some((r) => r.user === 'ops-console-writer' && r.groups.includes('ops-console:writers'))).toBe(true);
    expect(recorded.some((r) => r.user === 'ops-console-reader' && r.status === 403)).toBe(true);
  });
});

describe('Dockerfile', () => {
  // The image cannot be built on these machines (no Docker engine); these checks keep it in step with the code.
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

  it('builds on node 20 slim in stages, production dependencies only at runtime, non-root, port 8080', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-slim$/m);
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\} AS \w+$/gm)).toHaveLength(3);
    expect(dockerfile).toMatch(/RUN npm ci\b[^\n]*\nCOPY \. \.\nRUN npm run build && npm run build:native && npm run build:server\n/);
    // the native argon2 verifier needs a C compiler in the build stage only
    expect(dockerfile.slice(0, dockerfile.indexOf('AS deps'))).toMatch(/apt-get install[^\n]* gcc libc6-dev/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/^USER 10001:10001$/m);
    expect(runtime).toMatch(/^EXPOSE 8080$/m);
    expect(runtime).toMatch(/^CMD \["node", "dist\/node\/server\/main.js"\]$/m);
    expect(runtime).not.toMatch(/^(CMD|ENTRYPOINT)[^\n]*npm/m);
  });

  it('the runtime gets what the compiled server reads, and tsx (npm start) is a production dependency', () => {
    for (const path of ['./node_modules', './dist/web', './dist/native', './dist/node', 'package.json', './crds']) expect(runtime).toContain(path);
    expect(runtime).toContain('COPY chart ./chart'); // served to agents at /api/agent/charts
    expect(pkg.dependencies).toHaveProperty('tsx');
    expect(pkg.devDependencies ?? {}).not.toHaveProperty('tsx');
    // the build context keeps what `npm ci` and `npm run build` need
    for (const needed of ['server', 'web', 'native', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'crds']) expect(ignored).not.toContain(needed);
    expect(ignored).not.toContain('chart');
    for (const heavy of ['node_modules', '.git', 'data', 'dist']) expect(ignored).toContain(heavy);
  });
});
