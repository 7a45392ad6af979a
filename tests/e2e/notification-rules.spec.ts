import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { ADMIN, E2E_PORT } from './env';
import { startRecorder } from '../support/http-recorder';
import { seriousViolations } from './pages/axe';
import { NotificationRulesPage, NotificationSilencesPage } from './pages/notification-rules-page';
import { signInSession } from './pages/sign-in';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

async function ruleId(name: string): Promise<string> {
  const res = await admin.api.get(`/api/db/notifications?select=id&name=eq.${encodeURIComponent(name)}&deleted_at=is.null`);
  expect(res.status(), await res.text()).toBe(200);
  const rows = (await res.json()) as { id: string }[];
  expect(rows).toHaveLength(1);
  return rows[0].id;
}

test.describe('Notification rules and silences', () => {
  // each test walks a whole form with axe scans: a minute on a quiet machine, more on a busy CI runner
  test.describe.configure({ timeout: 120_000 });

  test('create a rule, then open it by ?id= and edit it', async ({ page }) => {
    const shell = await signInSession(page);
    const rules = new NotificationRulesPage(page);
    await rules.goto();
    const name = `e2e-rule-${Date.now()}`;

    await page.getByRole('button', { name: 'Create Notification' }).click();
    await expect(rules.dialog.getByRole('heading', { name: 'Create Notification' })).toBeVisible();
    // events and the person are required
    await rules.dialog.getByRole('button', { name: 'Save' }).click();
    await expect(rules.dialog.getByText('This field is required').first()).toBeVisible();

    await rules.field('Name').fill(name);
    // an event no other e2e test raises: this rule (with no filter) must not send for their failing checks
    await rules.pickEvent('incident.dod.regressed');
    await rules.pickPerson(ADMIN.email);
    // a wait under a minute is not offered; Team and Others clear the person
    await rules.dialog.getByRole('tab', { name: 'Team' }).click();
    await rules.dialog.getByRole('tab', { name: 'Person' }).click();
    await expect(rules.dialog.getByRole('combobox', { name: 'Person' })).toHaveValue('');
    await rules.pickPerson(ADMIN.email);
    await rules.dialog.getByRole('combobox', { name: 'Repeat Interval' }).selectOption('1h');
    expect(await seriousViolations(page)).toEqual([]);
    await rules.dialog.getByRole('button', { name: 'Save' }).click();
    await expect(shell.toast('Notification created successfully')).toBeVisible();
    await expect(rules.dialog).toHaveCount(0);
    await expect(rules.row(name)).toContainText('incident.dod.regressed');
    await expect(rules.row(name)).toContainText('Active');
    await expect(rules.row(name)).toContainText('1h');

    // a shareable link opens the edit modal
    const id = await ruleId(name);
    await rules.goto(`?id=${id}`);
    await expect(rules.dialog.getByRole('heading', { name: 'Edit Notification' })).toBeVisible();
    await expect(rules.field('Name')).toHaveValue(name);
    await rules.dialog.getByRole('combobox', { name: 'Wait For' }).selectOption('5m');
    await rules.dialog.getByRole('radio', { name: 'Custom Template' }).check();
    await rules.dialog.getByRole('textbox', { name: 'Custom Template' }).fill('Check {{ .check.name }} failed');
    await rules.dialog.getByRole('button', { name: 'Update' }).click();
    await expect(shell.toast('Notification updated successfully')).toBeVisible();
    await expect(page).not.toHaveURL(/[?&]id=/);
    await expect(rules.row(name)).toContainText('5m');

    // deleted (soft) with a confirmation
    await rules.row(name).click();
    await rules.dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete Notification' }).getByRole('button', { name: 'Delete' }).click();
    await expect(shell.toast('Notification deleted successfully')).toBeVisible();
    await expect(rules.row(name)).toHaveCount(0);
  });

  test('a test send from the rule modal reaches the webhook and lists each outcome', async ({ page }) => {
    const rec = await startRecorder();
    try {
      const u = Date.now();
      const canary = await admin.api.post('/api/canary', {
        headers: { 'x-csrf-token': admin.csrf },
        data: { name: `e2e-testsend-${u}`, spec: { schedule: '@every 1h', http: [{ name: `testsend-probe-${u}`, url: `http://127.0.0.1:${E2E_PORT}/healthz` }] } },
      });
      expect(canary.status(), await canary.text()).toBe(201);
      // a filter nothing real matches: the rule never sends by itself; the test send goes anyway and says so
      const name = `e2e-testsend-rule-${u}`;
      const res = await admin.api.post('/api/db/notifications', {
        headers: { 'x-csrf-token': admin.csrf },
        data: { name, source: 'UI', events: ['check.failed'], filter: 'check.name == "never"', custom_services: [{ url: `generic+${rec.url}/hook?token=s3cret` }] },
      });
      expect(res.status(), await res.text()).toBe(201);
      const rules = new NotificationRulesPage(page);
      await signInSession(page);
      await rules.goto(`?id=${await ruleId(name)}`);
      const panel = rules.dialog.getByRole('region', { name: 'Test send' });
      const picker = panel.getByRole('combobox', { name: 'Test resource' });
      await picker.click();
      await picker.pressSequentially(`testsend-probe-${u}`); // typing opens the list (a fill does not)
      await page.getByRole('option', { name: new RegExp(`testsend-probe-${u}`) }).first().click();
      await panel.getByRole('button', { name: 'Send test' }).click();
      const results = panel.getByRole('list', { name: 'Test send results' });
      await expect(results).toContainText('Sent');
      await expect(results).not.toContainText('s3cret');
      await expect(panel).toContainText('the filter does not match it');
      expect(rec.on('/hook')).toHaveLength(1);
      expect(rec.on('/hook')[0].query.token).toBe('s3cret');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await rec.close();
    }
  });

  test('a silence with Preview, then delete it', async ({ page }) => {
    await signInSession(page);
    const silences = new NotificationSilencesPage(page);
    await silences.goto();
    await page.getByRole('button', { name: 'Add Silence' }).click();
    await expect(silences.form).toBeVisible({ timeout: 30_000 });
    const reason = `e2e maintenance ${Date.now()}`;
    const form = silences.form;
    await form.getByRole('combobox', { name: 'Duration' }).selectOption('1h');
    await form.getByRole('textbox', { name: 'Reason' }).fill(reason);
    await form.getByRole('radio', { name: 'Filter' }).check();
    await form.getByRole('textbox', { name: 'Filter' }).fill(`check.name == "e2e-${Date.now()}"`);
    await form.getByRole('button', { name: 'Preview' }).click();
    await expect(form.getByRole('status').filter({ hasText: /would have been silenced/ })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/notifications\/silences$/);
    await expect(silences.row(reason)).toContainText('Filter');
    await expect(silences.row(reason)).toContainText('UI');

    // a row opens Edit Notification Silence
    await silences.row(reason).getByRole('cell').first().click();
    const edit = page.getByRole('dialog', { name: 'Edit Notification Silence' });
    await expect(edit.getByRole('textbox', { name: 'Reason' })).toHaveValue(reason);
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await silences.row(reason).getByRole('button', { name: /^Delete silence/ }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Silence' });
    await expect(confirm).toContainText('Are you sure you want to delete this notification silence?');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(silences.row(reason)).toHaveCount(0);
  });

  test('a viewer sees no write buttons', async ({ page }) => {
    const name = `e2e-viewer-rule-${Date.now()}`;
    const created = await admin.api.post('/api/db/notifications', {
      data: { name, events: ['check.passed'], custom_services: [{ url: 'https://hooks.example.test/x' }], source: 'UI' },
      headers: { 'x-csrf-token': admin.csrf },
    });
    expect(created.status(), await created.text()).toBeLessThan(300);
    const viewer = await createUser(admin, 'viewer');
    await signInSession(page, viewer.email, viewer.password);
    const rules = new NotificationRulesPage(page);
    await rules.goto();
    await expect(rules.row(name)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create Notification' })).toHaveCount(0);
    await rules.row(name).click();
    await expect(rules.dialog.getByRole('heading', { name: 'Edit Notification' })).toBeVisible();
    await expect(rules.dialog.getByRole('button', { name: 'Update' })).toHaveCount(0);
    await expect(rules.dialog.getByRole('button', { name: 'Delete' })).toHaveCount(0);
    await expect(rules.field('Name')).toBeDisabled();
    expect(await seriousViolations(page)).toEqual([]);
    await rules.dialog.getByRole('button', { name: 'Close' }).first().click();

    const silences = new NotificationSilencesPage(page);
    await silences.goto();
    await expect(page.getByRole('button', { name: 'Add Silence' })).toHaveCount(0);
    await expect(silences.table.getByRole('columnheader', { name: 'Delete' })).toHaveCount(0);
    await page.goto('/notifications/silences/add');
    await expect(page.getByText('Unauthorized - You do not have permission to access this page')).toBeVisible();
  });
});
