import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { BASE_URL } from './env';
import { CanariesPage } from './pages/canaries-page';
import { HealthPage } from './pages/health-page';
import { seriousViolations } from './pages/axe';
import { signInSession } from './pages/sign-in';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;
const shots = '.tmp/screenshots';

test.describe('Settings → Health Checks', () => {
  test('create through the form, see it listed and on /health, edit in Code, delete', async ({ page }) => {
    test.setTimeout(90_000);
    await signInSession(page);
    const canaries = new CanariesPage(page);
    await canaries.goto();
    expect(await seriousViolations(page)).toEqual([]);

    await canaries.addButton.click();
    await expect(page).toHaveURL(/\/settings\/canaries\/new$/);
    const name = `e2e-canary-${unique()}`;
    await canaries.field('Name').fill(name);
    await expect(canaries.field('Namespace')).toHaveValue('default');
    await page.getByRole('combobox', { name: 'Schedule' }).selectOption('@every 30s');
    await page.getByRole('button', { name: 'Add label' }).click();
    await canaries.field('Key').fill('team');
    await canaries.field('Value').fill('e2e');
    const http = canaries.httpCheck(1);
    await canaries.field('Name', http).fill('console-healthz');
    await canaries.field('URL', http).fill(`${BASE_URL}/healthz`);
    await canaries.field('Threshold', http).fill('2000');
    await canaries.field('Response codes', http).fill('200');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${shots}/canary-form.png`, fullPage: true });
    await canaries.saveButton('Save').click();

    // the saved canary opens on its own page: name and namespace are fixed now, the button reads Update
    await expect(page).toHaveURL(/\/settings\/canaries\/[0-9a-f-]{36}$/);
    const url = page.url();
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText(name);
    await expect(canaries.field('Name')).toBeDisabled();
    await expect(canaries.saveButton('Update')).toBeVisible();

    await canaries.goto();
    await expect(canaries.row(name)).toContainText('@every 30s');
    await expect(canaries.row(name)).toContainText('UI');
    await page.screenshot({ path: `${shots}/canary-list.png`, fullPage: true });
    await canaries.row(name).click();
    await expect(page).toHaveURL(url);

    const health = new HealthPage(page);
    // a check made a moment ago is listed at once (canary changes invalidate the ready whole-fleet summary); Hide
    // Passing off, since the check may already have run and passed by the time the page loads
    await health.goto('?timeRange=15m&hidePassing=false');
    await expect(health.row('console-healthz')).toBeVisible();
    await health.row('console-healthz').click();
    await health.drawer.getByRole('link', { name: 'Edit' }).click();
    await expect(page).toHaveURL(url);

    // Code tab: the form's check is there; a valid YAML edit saves and flows back into the form.
    await canaries.tab('Code').click();
    await expect(canaries.editor).toContainText('console-healthz');
    // a key the schema does not allow shows a marker and blocks Update
    await canaries.setYaml(`{schedule: "@every 30s", bogusField: 1, http: [{name: console-healthz, url: "${BASE_URL}/healthz"}]}`);
    await expect(canaries.errorMarkers().first()).toBeVisible();
    await expect(canaries.saveButton('Update')).toBeDisabled();
    await canaries.setYaml(`{schedule: "@every 1m", http: [{name: console-healthz, url: "${BASE_URL}/healthz", thresholdMillis: 1500, responseCodes: [200]}]}`);
    await expect(canaries.errorMarkers()).toHaveCount(0);
    await expect(canaries.saveButton('Update')).toBeEnabled();
    await page.screenshot({ path: `${shots}/canary-code.png`, fullPage: true });
    await canaries.saveButton('Update').click();
    await expect(page.getByText(`${name} updated successfully`).first()).toBeVisible();

    // back on the Form tab, the YAML edit shows in the fields
    await canaries.tab('Form').click();
    await expect(page.getByRole('combobox', { name: 'Schedule' })).toHaveValue('@every 1m');
    await expect(canaries.field('Threshold', canaries.httpCheck(1))).toHaveValue('1500');
    // Fluent's Toaster keeps focus sentinels that axe flags while a toast is up: scan once the toast has gone,
    // with focus inside the page (as the other settings scans do).
    await expect(page.getByText(`${name} updated successfully`)).toHaveCount(0, { timeout: 15_000 });
    await page.getByRole('combobox', { name: 'Schedule' }).focus();
    expect(await seriousViolations(page)).toEqual([]);

    await canaries.tab('Job History').click();
    await expect(page.getByRole('table', { name: 'Job history' })).toBeVisible();
    await canaries.tab('Spec').click();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page).toHaveURL(/\/settings\/canaries$/);
    await expect(canaries.row(name)).toHaveCount(0);
  });

  test('a server refusal is shown; Cancel goes back to the list', async ({ page }) => {
    await signInSession(page);
    const canaries = new CanariesPage(page);
    await page.goto('/settings/canaries/new');
    await canaries.field('Name').fill(`e2e-bad-${unique()}`);
    // two HTTP checks of one name: the form allows it, the server refuses it by path (spec.http.1.name)
    await canaries.field('Name', canaries.httpCheck(1)).fill('twice');
    await canaries.field('URL', canaries.httpCheck(1)).fill(`${BASE_URL}/healthz`);
    await page.getByRole('button', { name: 'Add HTTP check' }).click();
    await canaries.field('Name', canaries.httpCheck(2)).fill('twice');
    await canaries.field('URL', canaries.httpCheck(2)).fill(`${BASE_URL}/readyz`);
    await canaries.saveButton('Save').click();
    await expect(canaries.httpCheck(2)).toContainText('duplicate http check name "twice"');
    await expect(page).toHaveURL(/\/settings\/canaries\/new$/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(/\/settings\/canaries$/);
  });

  test('a viewer sees the list without Add', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    await signInSession(page, viewer.email, viewer.password);
    const canaries = new CanariesPage(page);
    await canaries.goto();
    await expect(canaries.addButton).toHaveCount(0);
  });
});
