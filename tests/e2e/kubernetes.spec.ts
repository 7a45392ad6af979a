import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { adminApi, createUser } from './api';
import { BASE_URL } from './env';
import { KubernetesPage } from './pages/kubernetes-page';
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
    expect(file.clusters[0].cluster.server).toBe(`${BASE_URL}/kubeproxy`);
    expect(file.users[0].user.username).toBe('token');
    const token: string = file.users[0].user.password;

    await expect(dialog.getByRole('status').filter({ hasText: 'Saved as 127.0.0.1-kubeconfig.yaml' })).toBeVisible();
    await expect(dialog.getByText('kubectl --kubeconfig ~/Downloads/127.0.0.1-kubeconfig.yaml get canaries')).toBeVisible();
    // the e2e server's public URL is plain http: kubectl would not send the token there, and the dialog says so
    await expect(dialog.getByText(/kubectl sends credentials only over HTTPS/)).toBeVisible();

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
