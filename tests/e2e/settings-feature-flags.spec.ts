import { expect, test } from '@playwright/test';
import { adminApi, deleteProperty, type ApiSession } from './api';
import { FeatureFlagsPage } from './pages/feature-flags-page';
import { seriousViolations } from './pages/axe';
import { signInSession } from './pages/sign-in';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Settings → Feature Flags', () => {
  test('add, edit and delete a flag', async ({ page }) => {
    const shell = await signInSession(page);
    const flags = new FeatureFlagsPage(page);
    await flags.goto();
    const name = `e2e.flag-${Date.now()}`;

    await page.getByRole('button', { name: 'Add Feature Flag' }).click();
    await flags.dialog.getByRole('button', { name: 'Save' }).click();
    await expect(flags.dialog.getByText('please provide all details')).toHaveCount(2);
    await flags.dialog.getByRole('button', { name: 'Cancel' }).click();

    await flags.add(name, 'on');
    await expect(shell.toast('Feature flag added successfully')).toBeVisible();
    await expect(flags.row(name)).toContainText('on');
    await expect(flags.row(name)).toContainText('UI');

    await flags
      .row(name)
      .getByRole('button', { name: `Edit ${name}` })
      .click();
    await expect(flags.name).toBeDisabled();
    await flags.dialog.getByRole('button', { name: 'Cancel' }).click();
    await flags.edit(name, 'off');
    await expect(shell.toast('Feature flag updated successfully')).toBeVisible();
    await expect(flags.row(name).getByRole('cell').nth(1)).toHaveText('off');

    await flags.delete(name);
    await expect(shell.toast('Feature flag removed successfully')).toBeVisible();
    await expect(flags.row(name)).toHaveCount(0);
  });

  test('health.disable=true hides Health from the sidebar at once', async ({ page }) => {
    const shell = await signInSession(page);
    const flags = new FeatureFlagsPage(page);
    await flags.goto();
    await expect(shell.navLink('Health')).toBeVisible();
    try {
      await flags.add('health.disable', 'true');
      await expect(shell.toast('Feature flag added successfully')).toBeVisible();
      await expect(shell.navLink('Health')).toHaveCount(0);

      await flags.delete('health.disable');
      await expect(shell.navLink('Health')).toBeVisible();
    } finally {
      // leave the server as the other tests expect it, whatever happened above
      await deleteProperty(admin, 'health.disable');
    }
  });

  test('the page has no serious accessibility violations', async ({ page }) => {
    await signInSession(page);
    const flags = new FeatureFlagsPage(page);
    await flags.goto();
    await page.getByRole('button', { name: 'Add Feature Flag' }).focus();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
