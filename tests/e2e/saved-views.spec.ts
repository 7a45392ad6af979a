import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { seriousViolations } from './pages/axe';
import { CatalogChangesPage } from './pages/catalog-changes-page';
import { signIn } from './pages/sign-in';
import { ViewsMenu } from './pages/views-menu';

const u = Date.now().toString(36);
let admin: ApiSession;
let viewer: { email: string; password: string };

test.beforeAll(async () => {
  admin = await adminApi();
  // a view left by an earlier attempt would hide the empty state (an admin deletes anyone's)
  const res = await admin.api.delete('/api/db/saved_query?query=like./catalog*', { headers: { 'x-csrf-token': admin.csrf } });
  expect(res.status(), await res.text()).toBe(204);
  viewer = await createUser(admin, 'viewer');
});

test.afterAll(async () => {
  await admin?.api.dispose();
});

// one test walks three pages with two axe scans; on the shared 2-core machine (load 16) it took over 3 minutes
test.describe.configure({ timeout: 360_000 });

test.describe('Saved views', () => {
  test('a viewer saves the filtered Changes page as a view, opens it from a bare URL and deletes it', async ({ page }) => {
    await signIn(page, viewer.email, viewer.password);
    const c = new CatalogChangesPage(page);
    const views = new ViewsMenu(page, c.changeFilters);
    await c.gotoChanges();
    await views.open();
    await expect(views.item('No saved views')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');

    // two filters: severity high and above, summary "replicas" (a removable chip)
    await c.chooseIn(c.changeFilters, 'Severity', 'High');
    await c.changeFilters.getByRole('textbox', { name: 'Summary value' }).fill('replicas');
    await page.keyboard.press('Enter');
    await expect.poll(() => c.url().searchParams.get('summary')).toBe('replicas');
    const filtered = c.url().search;
    expect(new URLSearchParams(filtered).get('severity')).toBe('high');

    // the name is required; the dialog says so and keeps nothing
    await views.open();
    await views.item('Save view…').click();
    await views.dialog.getByRole('button', { name: 'Save' }).click();
    await expect(views.dialog).toContainText('Name is required');
    expect(await seriousViolations(page)).toEqual([]);
    await views.dialog.getByRole('button', { name: 'Cancel' }).click();
    await views.save(`High replicas ${u}`, 'high and critical replica changes');
    await expect(page.getByText(`View "High replicas ${u}" saved`)).toBeVisible();

    // another URL, after a reload: no filters; the view brings both back
    await c.gotoChanges();
    await page.reload();
    await expect(c.changeFilters).toBeVisible({ timeout: 30_000 });
    expect(c.url().searchParams.get('severity')).toBeNull();
    // by keyboard: Enter opens the menu on its first item, the view; Enter applies it
    await views.button.focus();
    await page.keyboard.press('Enter');
    await expect(views.item(`High replicas ${u}`)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect.poll(() => c.url().searchParams.get('severity')).toBe('high');
    expect(c.url().searchParams.get('summary')).toBe('replicas');
    await expect(c.changeFilters.getByRole('combobox', { name: 'Severity' })).toHaveText('High');
    await expect(page.getByRole('button', { name: 'Remove Summary filter' })).toBeVisible();

    // the view belongs to the Changes page: Insights has none
    const insights = new ViewsMenu(page, c.insightFilters);
    await c.gotoInsights();
    await insights.open();
    await expect(insights.item('No saved views')).toBeVisible();
    await page.keyboard.press('Escape');

    // deleting asks first
    await c.gotoChanges();
    await views.open();
    await views.item('Delete view').click();
    await page.getByRole('menuitem', { name: `High replicas ${u}` }).last().click();
    await expect(views.dialog).toContainText(`Delete the saved view "High replicas ${u}"?`);
    await views.dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText(`High replicas ${u} deleted successfully`)).toBeVisible();
    await views.open();
    await expect(views.item('No saved views')).toBeVisible();
  });
});
