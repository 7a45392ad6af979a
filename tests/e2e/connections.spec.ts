import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as baseExpect, test } from '@playwright/test';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded';
import { adminApi, createUser, type ApiSession } from './api';
import { seriousViolations } from './pages/axe';
import { ConnectionsPage } from './pages/connections-page';
import { signInSession } from './pages/sign-in';
import { closedPort } from '../fixtures/servers/tcp';

// a connection test may take its full 10 s deadline; the shared machine is slow at times
const expect = baseExpect.configure({ timeout: 20_000 });
test.describe.configure({ timeout: 120_000 });

let admin: ApiSession;
// a PostgreSQL of the test's own on loopback: the target a static-password connection is tested against
let target: EmbeddedDatabase;
let targetDir: string;
const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };

test.beforeAll(async () => {
  admin = await adminApi();
  targetDir = mkdtempSync(join(tmpdir(), 'e2e-connection-target-'));
  target = await startEmbeddedPostgres(targetDir, 0, quiet);
});
test.afterAll(async () => {
  await admin.api.dispose();
  await target?.stop();
  rmSync(targetDir, { recursive: true, force: true });
});

/** The target's URL without credentials, and its password, as a user would type them in (TCP: no socket `?host=`). */
function targetParts() {
  const u = new URL(target.url);
  u.search = '';
  const password = decodeURIComponent(u.password);
  const username = u.username;
  u.username = '';
  u.password = '';
  return { url: u.toString(), username, password };
}

async function storedRow(name: string) {
  const res = await admin.api.get('/api/db/connections', { params: { select: '*', name: `eq.${name}`, deleted_at: 'is.null' } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as Record<string, unknown>[];
}

test.describe('Settings → Connections', () => {
  test('a postgres connection with a Secret password: added, edited, tested, deleted', async ({ page }) => {
    const shell = await signInSession(page);
    const connections = new ConnectionsPage(page);
    await connections.goto();
    const name = `e2e-pg-${Date.now()}`;

    // tiles → form → Back → tiles again
    await connections.addButton.click();
    await connections.tiles.getByRole('textbox', { name: 'Search connection types' }).fill('zzz');
    await expect(connections.tiles.getByRole('status')).toHaveText(/No connection type matches/);
    await connections.tiles.getByRole('textbox', { name: 'Search connection types' }).fill('');
    await expect(connections.tiles.getByRole('button', { name: 'JMeter' })).toHaveCount(0);
    await connections.tiles.getByRole('button', { name: 'Slack', exact: true }).click();
    await expect(connections.form('Slack Connection Details')).toBeVisible();
    await connections.form().getByRole('button', { name: 'Back' }).click();
    await expect(connections.tiles).toBeVisible();
    await connections.tiles.getByRole('button', { name: 'Close' }).last().click();

    const form = await connections.startNew('Postgres');
    // empty required fields are named
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByText('This field is required')).toHaveCount(4);

    await connections.fillPostgres(form, { name, url: 'postgres://db.example.internal:5432/app', username: 'app', password: { secret: 'db-creds', key: 'password' } });
    // switching source clears what was typed
    const password = connections.secret(form, 'Password');
    await password.source('Static').check();
    await expect(password.value).toHaveValue('');
    await password.source('Secret').check();
    await expect(password.refName()).toHaveValue('');
    await password.refName().fill('db-creds');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByText('Secret key is required')).toBeVisible();
    await password.refKey().fill('password');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(shell.toast('Connection added successfully')).toBeVisible();
    await expect(connections.row(name)).toContainText('Postgres');
    await expect(connections.row(name)).toContainText('default');

    // stored as a reference, shown as written
    const [row] = await storedRow(name);
    expect(row.password).toBe('secret://db-creds/password');

    // edit: the reference comes back into the form; name and namespace are locked
    let edit = await connections.open(name);
    await expect(connections.text(edit, 'Name')).toBeDisabled();
    await expect(connections.secret(edit, 'Password').source('Secret')).toBeChecked();
    await expect(connections.secret(edit, 'Password').refName()).toHaveValue('db-creds');
    await connections.text(edit, 'URL').fill('postgres://db2.example.internal:5432/app');
    await edit.getByRole('button', { name: 'Update' }).click();
    await expect(shell.toast('Connection updated successfully')).toBeVisible();
    expect((await storedRow(name))[0]).toMatchObject({ url: 'postgres://db2.example.internal:5432/app', password: 'secret://db-creds/password' });

    // the test cannot reach db2.example.internal nor read the Secret here: it fails and says so
    edit = await connections.open(name);
    const results = await connections.test(edit);
    await expect(results.getByRole('alert')).toBeVisible();
    await expect(results).not.toContainText('Connection successful');
    await connections.closeResults();

    // delete, confirmed
    await edit.getByRole('button', { name: 'Delete' }).click();
    const confirm = connections.dialog('Delete Connection');
    await expect(confirm).toContainText(name);
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(shell.toast('Connection deleted successfully')).toBeVisible();
    await expect(connections.row(name)).toHaveCount(0);
    expect(await storedRow(name)).toEqual([]);
  });

  test('a static-password postgres connection passes its test before and after saving; its password reads ***', async ({ page }) => {
    const shell = await signInSession(page);
    const connections = new ConnectionsPage(page);
    await connections.goto();
    const name = `e2e-pg-ok-${Date.now()}`;
    const t = targetParts();

    const form = await connections.startNew('Postgres');
    await connections.fillPostgres(form, { name, url: t.url, username: t.username, password: t.password });
    let results = await connections.test(form);
    await expect(results.getByText('Connection successful')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await connections.closeResults();
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(shell.toast('Connection added successfully')).toBeVisible();

    // the stored static secret shows as ***, and Update sends *** back, which keeps it
    const edit = await connections.open(name);
    await expect(connections.secret(edit, 'Password').value).toHaveValue('***');
    await edit.getByRole('button', { name: 'Update' }).click();
    await expect(shell.toast('Connection updated successfully')).toBeVisible();
    const reopened = await connections.open(name);
    results = await connections.test(reopened);
    await expect(results.getByText('Connection successful')).toBeVisible();
    await connections.closeResults();

    // an edited, unsaved form is tested as shown: the *** left in place stands for the stored password
    await connections.text(reopened, 'URL').fill(`${t.url}?application_name=e2e-edited`);
    results = await connections.test(reopened);
    await expect(results.getByText('Connection successful')).toBeVisible();
    await connections.closeResults();
    await connections.text(reopened, 'URL').fill(`postgres://127.0.0.1:${await closedPort()}/x`);
    results = await connections.test(reopened);
    await expect(results.getByRole('alert')).toContainText(/refused/i);
  });

  test('a test against a closed port fails with what failed', async ({ page }) => {
    await signInSession(page);
    const connections = new ConnectionsPage(page);
    await connections.goto();
    const form = await connections.startNew('Postgres');
    const port = await closedPort();
    await connections.fillPostgres(form, { name: `e2e-closed-${Date.now()}`, url: `postgres://127.0.0.1:${port}/x`, username: 'u', password: 'p' });
    const results = await connections.test(form);
    await expect(results.getByRole('alert')).toContainText(/refused/i);
    await expect(results).not.toContainText('Connection successful');
  });

  test('a viewer sees no connections page', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    const shell = await signInSession(page, viewer.email, viewer.password);
    await page.goto('/settings/connections');
    await expect(page.getByText('Unauthorized - You do not have permission to access this page')).toBeVisible();
    await expect(shell.navLink('Connections')).toHaveCount(0);
  });

  test('the page, the tiles and the form have no serious accessibility violations', async ({ page }) => {
    await signInSession(page);
    const connections = new ConnectionsPage(page);
    await connections.goto();
    expect(await seriousViolations(page)).toEqual([]);

    await connections.addButton.click();
    await expect(connections.tiles).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);

    await connections.tiles.getByRole('button', { name: 'Postgres', exact: true }).click();
    const form = connections.form('Postgres Connection Details');
    await connections.secret(form, 'Password').source('Secret').check();
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByText('This field is required').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
