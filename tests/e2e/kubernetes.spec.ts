import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { parse, parseAllDocuments } from 'yaml';
import { startKubeApi, type KubeApi, type KubeObject } from '../support/kube-api/index';
import { helm } from '../support/kube-tools';
import { adminApi, createUser } from './api';
import { ADMIN, BASE_URL, E2E_PORT } from './env';
import { CanariesPage } from './pages/canaries-page';
import { KubernetesPage } from './pages/kubernetes-page';
import { Shell } from './pages/shell';
import { seriousViolations } from './pages/axe';
import { signIn } from './pages/sign-in';

// The e2e server runs without KUBECONFIG and outside a cluster: the page must say so, honestly, and keep working.
test.describe('Settings → Kubernetes', () => {
  test('an admin finds the page in the settings menu; it shows the console is not connected', async ({ page }) => {
    const shell = await signIn(page);
    await shell.settingsToggle.click();
    await shell.navLink('Kubernetes').click();
    await expect(page).toHaveURL(/\/settings\/kubernetes$/);
    await shell.expectLoaded('Kubernetes');

    const k8s = new KubernetesPage(page);
    await expect(k8s.connection.getByText('Not connected', { exact: true })).toBeVisible();
    await expect(k8s.connection.getByText(/runs without Kubernetes: no KUBECONFIG is set/)).toBeVisible();
    await expect(k8s.fact('Source')).toHaveText('None');
    await expect(k8s.fact('API server')).toHaveText('—');
    await expect(k8s.invalid.getByText('Every custom resource is valid')).toBeVisible();
    await expect(k8s.connection.getByRole('alert')).toHaveCount(0); // no error without a connection to fail
  });

  test('a viewer has no settings menu and is refused the page', async ({ page }) => {
    const viewer = await createUser(await adminApi(), 'viewer');
    const shell = await signIn(page, viewer.email, viewer.password);
    await expect(shell.settingsToggle).toHaveCount(0);
    await page.goto('/settings/kubernetes');
    await expect(page.getByText(/You do not have permission to access this page/)).toBeVisible();
  });
});

test.describe('Download kubeconfig', () => {
  test('an admin downloads a kubeconfig named after the backend host, for <public url>/kubeproxy', async ({ page }) => {
    const shell = await signIn(page);
    const menu = await shell.openUserMenu();
    await menu.getByRole('menuitem', { name: 'Download kubeconfig' }).click();
    const dialog = page.getByRole('dialog', { name: 'Download and install kubeconfig' });

    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('127.0.0.1-kubeconfig.yaml');
    const file = parse(readFileSync((await download.path())!, 'utf8'));
    expect(file.users[0].user.username).toBe('token');
    const token: string = file.users[0].user.password;
    // plain http: kubectl would not send the credentials, so the token is in the server URL too
    expect(file.clusters[0].cluster.server).toBe(`${BASE_URL}/kubeproxy/t/${encodeURIComponent(token)}`);

    await expect(dialog.getByRole('status').filter({ hasText: 'Saved as 127.0.0.1-kubeconfig.yaml' })).toBeVisible();
    await expect(dialog.getByText('kubectl --kubeconfig ~/Downloads/127.0.0.1-kubeconfig.yaml get canaries')).toBeVisible();
    // the e2e server's public URL is plain http: the dialog warns that the token travels unencrypted
    await expect(dialog.getByText(/public address is plain HTTP/)).toBeVisible();

    // the token in the file works for API clients (Basic token:<t>), and reaches /kubeproxy: 503, no cluster
    const res = await page.request.get('/kubeproxy/api', {
      headers: { authorization: `Basic ${Buffer.from(`token:${token}`).toString('base64')}` },
    });
    expect(res.status()).toBe(503);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable' });
  });

  test('a viewer is told the role it needs instead of getting a file', async ({ page }) => {
    const viewer = await createUser(await adminApi(), 'viewer');
    const shell = await signIn(page, viewer.email, viewer.password);
    const menu = await shell.openUserMenu();
    await menu.getByRole('menuitem', { name: 'Download kubeconfig' }).click();
    const dialog = page.getByRole('dialog', { name: 'Download and install kubeconfig' });
    await expect(dialog.getByText('Downloading a kubeconfig needs the admin or editor role.')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Download' })).toHaveCount(0);
    // and the server agrees
    expect((await page.request.get('/api/kubeconfig')).status()).toBe(403);
  });
});

/**
 * A second console of this spec's own, with KUBECONFIG pointing at the Kubernetes API test server (started here, in the
 * test process): the page when connected, a GitOps-managed Canary read-only, a Canary CR edited through the console,
 * and the conflict when the CR changed in the cluster meanwhile. It listens on E2E_PORT + 100 and serves the same
 * bundle (E2E_DIST) as the suite's server.
 */
const CONNECTED_PORT = E2E_PORT + 100;
const root = fileURLToPath(new URL('../..', import.meta.url));
const readFixture = (name: string) => parse(readFileSync(join(root, 'tests/fixtures/k8s', name), 'utf8')) as KubeObject;

test.describe('with a cluster (KUBECONFIG → the Kubernetes API test server)', () => {
  test.describe.configure({ mode: 'serial' });
  test.use({ baseURL: `http://127.0.0.1:${CONNECTED_PORT}` });

  let kube: KubeApi;
  let server: ChildProcess | undefined;
  let dir: string;
  let dataDir: string;
  let stderr = '';

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    dir = mkdtempSync(join(tmpdir(), 'console-e2e-kube-'));
    // its own temp dir, as tests/e2e/web-server.mjs does: run as root, the embedded PostgreSQL (user postgres) gets
    // that directory handed over, and could not reach a subdirectory of a root-only one
    dataDir = mkdtempSync(join(tmpdir(), 'console-e2e-kube-data-'));
    kube = await startKubeApi({ crdsDir: join(root, 'crds') });
    // the chart's ClusterRoles and bindings: console edits of a CR act as the caller's impersonated cluster identity
    // (the writer for an admin), which the API server authorises with them
    const rendered = await helm(['template', 'ops', join(root, 'chart'), '--namespace', 'ops']);
    if (rendered.code !== 0) throw new Error(`helm template failed: ${rendered.stderr}`);
    for (const d of parseAllDocuments(rendered.stdout).map((x) => x.toJS() as KubeObject)) {
      if (d && (d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding')) kube.apply(d);
    }
    kube.apply(readFixture('canary-http.yaml'));
    kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    kube.apply(readFixture('canary-flux.yaml'));
    const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig.yaml'));
    const webDir = process.env.E2E_DIST ? resolve(root, process.env.E2E_DIST) : join(root, 'dist/web');
    server = spawn(join(root, 'node_modules/.bin/tsx'), ['server/main.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, PORT: String(CONNECTED_PORT), HOST: '127.0.0.1', DATA_DIR: dataDir, WEB_DIR: webDir,
        KUBECONFIG: kubeconfig, POD_NAME: 'e2e-console', PUBLIC_URL: `http://127.0.0.1:${CONNECTED_PORT}`,
        ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, DEMO_DATA: 'false', LOG_LEVEL: 'warn', LOGIN_RATE_LIMIT: '1000',
      },
    });
    server.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    server.stdout!.on('data', (c: Buffer) => (stderr += c.toString()));
    await expect
      .poll(async () => {
        if (server!.exitCode !== null) throw new Error(`the console exited with ${server!.exitCode}: ${stderr}`);
        return (await fetch(`http://127.0.0.1:${CONNECTED_PORT}/readyz`).catch(() => null))?.status;
      }, { timeout: 120_000 })
      .toBe(200);
  });

  test.afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await kube?.stop();
    for (const d of [dir, dataDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  test('the settings page shows the connection, the leader and the watched kinds', async ({ page }) => {
    await signIn(page, ADMIN.email, ADMIN.password, '/settings/kubernetes');
    const k8s = new KubernetesPage(page);
    await expect(k8s.connection.getByText('Connected', { exact: true })).toBeVisible();
    await expect(k8s.fact('Source')).toHaveText('KUBECONFIG file');
    await expect(k8s.fact('API server')).toHaveText(kube.url);
    // the page refetches every 10 s: the Lease is won and both canaries reconciled without a reload
    await expect(k8s.fact('Leader')).toHaveText('This replica (e2e-console) is the leader', { timeout: 30_000 });
    const canaries = k8s.kindRow('Canary');
    await expect(canaries.getByText('Watching')).toBeVisible({ timeout: 30_000 });
    await expect(canaries.getByRole('cell').nth(2)).toHaveText('2', { timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('a GitOps-managed canary is read-only and linked to its source', async ({ page }) => {
    const uid = kube.get('canaries.flanksource.com', 'v1', 'canaries', 'apps', 'gitops-flux')!.metadata.uid!;
    await signIn(page, ADMIN.email, ADMIN.password, `/settings/canaries/${uid}`);
    const canaries = new CanariesPage(page);
    await expect(page.getByText('Linked to Flux kustomization flux-system/apps')).toBeVisible();
    await expect(canaries.field('URL', canaries.httpCheck(1))).toBeDisabled();
    await expect(canaries.saveButton('Update')).toHaveCount(0);
  });

  test('a canary CR is edited through the console; a change made meanwhile in the cluster is a conflict', async ({ page }) => {
    const get = () => kube.get('canaries.flanksource.com', 'v1', 'canaries', 'default', 'http-local')!;
    await signIn(page, ADMIN.email, ADMIN.password, `/settings/canaries/${get().metadata.uid}`);
    const canaries = new CanariesPage(page);
    await expect(page.getByText('Kubernetes Canary default/http-local')).toBeVisible();
    const url = canaries.field('URL', canaries.httpCheck(1));
    await url.fill('http://127.0.0.1:8080/healthz?from=console');

    // someone changes the CR with kubectl while the user edits
    const cr = get();
    kube.apply({ ...cr, spec: { ...(cr.spec as object), schedule: '@every 3m' } });
    await canaries.saveButton('Update').click();
    const conflict = page.getByRole('alert').filter({ hasText: 'Changed in the cluster: not saved' });
    await expect(conflict).toBeVisible();
    await expect(conflict).toContainText('was changed in the cluster after you loaded it');
    expect((get().spec as { http: { url: string }[] }).http[0].url).toBe('http://127.0.0.1:8080/healthz');

    // Reload starts again from the CR as it is now; the edit then goes through to the cluster
    await conflict.getByRole('button', { name: 'Reload' }).click();
    await expect(conflict).toHaveCount(0);
    await expect(url).toHaveValue('http://127.0.0.1:8080/healthz');
    await url.fill('http://127.0.0.1:8080/healthz?from=console');
    await canaries.saveButton('Update').click();
    await expect(new Shell(page).toast('http-local updated successfully')).toBeVisible();
    await expect.poll(() => (get().spec as { http: { url: string }[]; schedule: string })).toMatchObject({
      schedule: '@every 3m',
      http: [expect.objectContaining({ url: 'http://127.0.0.1:8080/healthz?from=console' }), expect.anything()],
    });
  });
});
