import type { Server } from 'node:http';
import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seedLogsComponent, startLokiPeer } from './logs-seed';
import { seriousViolations } from './pages/axe';
import { LogsPage } from './pages/logs';
import { signIn } from './pages/sign-in';

const u = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const LABELS = { app: `checkout-${u}` };
// the backend fetches, then the stream: a cold server on a busy runner gets more than the default
const LOAD = { timeout: 30_000 };

let admin: ApiSession;
let db: pg.Client;
let loki: Server;
let seeded: { componentId: string; name: string };

test.beforeAll(async () => {
  admin = await adminApi();
  db = await e2eDatabase(admin);
  const peer = await startLokiPeer(
    [
      { agoMs: 60_000, line: 'GET /healthz 200 in 3ms' },
      { agoMs: 50_000, line: '\u001b[31mERROR\u001b[0m payment declined for order 42' },
      { agoMs: 40_000, line: 'WARN disk 91% full on /var/lib/data' },
      { agoMs: 30_000, line: 'cache warmed in \u001b[1;32m12ms\u001b[0m <b>not bold</b>' },
      { agoMs: 20_000, line: `user alice-${u} signed in` },
    ],
    LABELS,
  );
  loki = peer.server;
  seeded = await seedLogsComponent(db, u, peer.url, LABELS);
});

test.afterAll(async () => {
  await db?.query(`UPDATE components SET deleted_at = now() WHERE id = $1`, [seeded?.componentId]).catch(() => undefined);
  await db?.query(`UPDATE logging_backends SET deleted_at = now() WHERE name = $1`, [`e2e-loki-${u}`]).catch(() => undefined);
  await db?.end();
  loki?.close();
  await admin?.api.dispose();
});

test('choosing a component shows its lines, ANSI colours as spans, the first selector in the URL', async ({ page }) => {
  await signIn(page, undefined, undefined, '/logs');
  const logs = new LogsPage(page);
  await expect(page.getByText('Please select a component to view the logs')).toBeVisible();
  await logs.chooseComponent(seeded.name);

  await expect(logs.rows).toHaveCount(5, LOAD);
  await expect(page).toHaveURL(new RegExp(`topologyId=${seeded.componentId}.*logsSelector=app|logsSelector=app.*topologyId=${seeded.componentId}`));
  await expect(logs.selector).toHaveText('app');
  // oldest at the top, newest at the bottom
  await expect(logs.rows.first()).toContainText('GET /healthz 200');
  await expect(logs.rows.last()).toContainText(`user alice-${u} signed in`);

  const error = logs.row('payment declined');
  await expect(error.locator('span[data-ansi="red"]')).toHaveText('ERROR');
  await expect(error).not.toContainText('\u001b');
  await expect(logs.row('cache warmed').locator('span[data-ansi="green"]')).toHaveText('12ms');
  // markup in a line stays text
  await expect(logs.row('cache warmed')).toContainText('<b>not bold</b>');
  await expect(logs.row('cache warmed').locator('b')).toHaveCount(0);
  await expect(page.getByRole('link', { name: seeded.name })).toHaveAttribute('href', `/topology/${seeded.componentId}`);

  expect(await seriousViolations(page)).toEqual([]);
});

test('typing a search sends one request after the typing stops; no match says so', async ({ page }) => {
  await signIn(page, undefined, undefined, `/logs?topologyId=${seeded.componentId}&logsSelector=app`);
  const logs = new LogsPage(page);
  await expect(logs.rows).toHaveCount(5, LOAD);

  const searches = logs.countSearches();
  await logs.search.pressSequentially('payment', { delay: 30 });
  await expect(logs.rows).toHaveCount(1, LOAD);
  await expect(logs.rows.first()).toContainText('payment declined for order 42');
  await expect(page).toHaveURL(/query=payment/);
  expect(searches.count).toBe(1);

  await logs.search.fill('no-such-line-anywhere');
  await expect(page.getByText('There are no logs matching the search query')).toBeVisible(LOAD);
  expect(searches.count).toBe(2);

  // the shared URL restores the search
  await page.reload();
  await expect(logs.search).toHaveValue('no-such-line-anywhere');
  await expect(page.getByText('There are no logs matching the search query')).toBeVisible(LOAD);
});

test('selected lines attach to a new incident as a log evidence', async ({ page }) => {
  await signIn(page, undefined, undefined, `/logs?topologyId=${seeded.componentId}`);
  const logs = new LogsPage(page);
  await expect(logs.rows).toHaveCount(5, LOAD);
  await logs.row('payment declined').getByRole('checkbox').check();
  await logs.row('disk 91%').getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Attach as evidence (2)' }).click();

  const dialog = page.getByRole('dialog', { name: 'Link to Incident' });
  await dialog.getByRole('combobox', { name: 'Incident' }).pressSequentially(`Checkout errors ${u}`);
  await page.getByRole('option', { name: `Create “Checkout errors ${u}”` }).click();
  await dialog.getByRole('button', { name: 'Link', exact: true }).click();
  await expect(dialog).toHaveCount(0, LOAD);
  expect(await seriousViolations(page)).toEqual([]);

  const { rows } = await db.query<{ evidence: { lines: { message: string }[]; selector: string } }>(
    `SELECT evidence FROM evidences WHERE type = 'log' AND component_id = $1`,
    [seeded.componentId],
  );
  expect(rows).toHaveLength(1);
  expect(rows[0].evidence.selector).toBe('app');
  expect(rows[0].evidence.lines.map((l) => l.message)).toEqual(['ERROR payment declined for order 42', 'WARN disk 91% full on /var/lib/data']);
});
