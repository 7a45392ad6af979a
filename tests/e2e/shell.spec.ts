import { expect, test } from '@playwright/test';
import { adminApi, createUser, deleteProperty, setProperty, type ApiSession } from './api';
import { seriousViolations } from './pages/axe';
import { LoginPage } from './pages/login-page';
import { signIn } from './pages/sign-in';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('the shell', () => {
  test('an admin sees every main entry and the settings menu', async ({ page }) => {
    const shell = await signIn(page);
    for (const name of ['Dashboard', 'Health', 'Incidents', 'Catalog', 'Logs', 'Playbooks']) {
      await expect(shell.navLink(name)).toBeVisible();
    }
    await shell.settingsToggle.click();
    await expect(shell.navLink('Users')).toBeVisible();
    await shell.navLink('Connections').click();
    await expect(page).toHaveURL(/\/settings\/connections$/);
    await expect(shell.title).toHaveText('Connections');
  });

  test('a viewer has no settings menu and is refused admin-only pages', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    const shell = await signIn(page, viewer.email, viewer.password);
    await expect(shell.navLink('Health')).toBeVisible();
    await expect(shell.settingsToggle).toHaveCount(0);

    await page.goto('/settings/connections');
    await expect(page.getByText('Unauthorized - You do not have permission to access this page')).toBeVisible();

    const menu = await shell.openUserMenu();
    await expect(menu.getByText('Hi, Vera Viewer')).toBeVisible();
  });

  test('the health.disable feature flag hides Health', async ({ page }) => {
    await setProperty(admin, 'health.disable', 'true');
    try {
      const shell = await signIn(page);
      await expect(shell.navLink('Incidents')).toBeVisible();
      await expect(shell.navLink('Health')).toHaveCount(0);
      await page.goto('/health');
      await expect(page.getByText('Health is turned off')).toBeVisible();
    } finally {
      await deleteProperty(admin, 'health.disable');
    }
  });

  test('the sidebar collapses, and stays collapsed after a reload', async ({ page }) => {
    const shell = await signIn(page);
    await shell.sidebar.getByRole('button', { name: 'Collapse sidebar' }).click();
    await expect(shell.sidebar).toHaveAttribute('data-collapsed', 'true');
    await page.reload();
    await expect(shell.sidebar).toHaveAttribute('data-collapsed', 'true');
    await shell.sidebar.getByRole('button', { name: 'Expand sidebar' }).click();
    await expect(shell.sidebar).toHaveAttribute('data-collapsed', 'false');
  });

  test('on a narrow window the sidebar collapses when the user clicks outside it', async ({ page }) => {
    await page.setViewportSize({ width: 900, height: 700 });
    const shell = await signIn(page);
    await expect(shell.sidebar).toHaveAttribute('data-collapsed', 'false');
    await shell.title.click();
    await expect(shell.sidebar).toHaveAttribute('data-collapsed', 'true');
  });

  test('the kubeconfig dialog explains the steps', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const shell = await signIn(page);
    const menu = await shell.openUserMenu();
    await expect(menu.getByText(/^Frontend v\d+\.\d+\.\d+/)).toBeVisible();
    await expect(menu.getByText(/^Backend v\d+\.\d+\.\d+/)).toBeVisible();
    await menu.getByRole('menuitem', { name: 'Download kubeconfig' }).click();
    const dialog = page.getByRole('dialog', { name: 'Download and install kubeconfig' });
    await expect(dialog.getByText(/kubectl --kubeconfig .* get canaries/)).toBeVisible();
    await expect(dialog.getByRole('link', { name: 'Learn more' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Copy command' }).click();
    await expect(shell.toast('Copied to clipboard')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^kubectl --kubeconfig .* get canaries$/);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
  });

  test('error pages show the spec texts', async ({ page }) => {
    await page.goto('/error?error_code=BAD_SESSION');
    await expect(page.getByText(/^Bad Session\. Please try logging out/)).toBeVisible();
    await page.goto('/error');
    await expect(page.getByText('Unknown error')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Go back' })).toHaveAttribute('href', '/');
  });
});

test.describe('accessibility', () => {
  test('the sign-in page has no serious or critical axe violations', async ({ page }) => {
    await new LoginPage(page).goto();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('the shell has no serious or critical axe violations', async ({ page }) => {
    // every route has its page since issue 16: the shell around a plain one (Logs before a component is chosen)
    const shell = await signIn(page, undefined, undefined, '/logs');
    await shell.settingsToggle.click();
    await expect(page.getByText('Please select a component to view the logs')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
