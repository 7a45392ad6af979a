import type { Server } from 'node:http';
import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seedLogsComponent, startLokiPeer } from './logs-seed';
import { LogsPage } from './pages/logs';
import { signIn } from './pages/sign-in';

// /logs Live (issue 16, Beyond the reference 2): the tail runs over /api/ws, a line written to the backend appears
// at the bottom, scrolling up pauses the follow; and the table keeps its DOM small with 100,000 lines loaded.

const u = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const LOAD = { timeout: 30_000 };

let admin: ApiSession;
let db: pg.Client;
const servers: Server[] = [];
const seededNames: string[] = [];

test.beforeAll(async () => {
  admin = await adminApi();
  db = await e2eDatabase(admin);
});

test.afterAll(async () => {
  for (const name of seededNames) {
    await db?.query(`UPDATE components SET deleted_at = now() WHERE name = $1`, [name]).catch(() => undefined);
    await db?.query(`UPDATE logging_backends SET deleted_at = now() WHERE name = $1`, [`e2e-loki-${name.replace(/^checkout-logs-/, '')}`]).catch(() => undefined);
  }
  await db?.end();
  for (const s of servers) s.close();
  await admin?.api.dispose();
});

test('Live streams new lines over /api/ws; scrolling up pauses the follow, "Follow new lines" resumes it', async ({ page }) => {
  test.slow();
  const id = `${u}l`;
  const labels = { app: `live-${id}` };
  // 200 lines of history: more than the view holds, so it scrolls
  const history = Array.from({ length: 200 }, (_, i) => ({ agoMs: 200_000 - i * 1000, line: `history line ${i}` }));
  const peer = await startLokiPeer(history, labels);
  servers.push(peer.server);
  const seeded = await seedLogsComponent(db, id, peer.url, labels);
  seededNames.push(seeded.name);

  const frames: string[] = [];
  page.on('websocket', (ws) => {
    if (new URL(ws.url()).pathname === '/api/ws') ws.on('framesent', (f) => frames.push(String(f.payload)));
  });
  const follows: unknown[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/logs' && (req.postDataJSON() as { follow?: boolean }).follow) follows.push(req.postDataJSON());
  });

  await signIn(page, undefined, undefined, `/logs?topologyId=${seeded.componentId}`);
  const logs = new LogsPage(page);
  await expect(logs.row('history line 199')).toBeVisible(LOAD);
  await page.getByRole('switch', { name: 'Live' }).check();
  await expect(page).toHaveURL(/live=true/);
  await expect(page.getByRole('status').filter({ hasText: /^Live: 200 lines/ })).toBeVisible(LOAD);
  // the tail was asked for over the socket, not as a long POST
  expect(frames.some((f) => f.includes('"logs_subscribe"') && f.includes(seeded.componentId))).toBe(true);
  expect(follows).toEqual([]);

  // a line written to the backend appears at the bottom, in view
  peer.add(`fresh line A ${u}`);
  await expect(logs.row(`fresh line A ${u}`)).toBeInViewport(LOAD);
  await expect(logs.rows.last()).toContainText(`fresh line A ${u}`);

  // scrolled up: the next line arrives (the count says so) but the view stays where the user is
  const region = page.getByRole('region', { name: 'Log lines' });
  await region.hover();
  await page.mouse.wheel(0, -3000);
  await expect(page.getByRole('button', { name: 'Follow new lines' })).toBeVisible();
  const top = await region.evaluate((el) => el.scrollTop);
  peer.add(`fresh line B ${u}`);
  await expect(page.getByRole('status').filter({ hasText: /^Live: 202 lines/ })).toBeVisible(LOAD);
  await page.waitForTimeout(300);
  expect(await region.evaluate((el) => el.scrollTop)).toBe(top);
  await expect(logs.row(`fresh line B ${u}`)).not.toBeInViewport();

  await page.getByRole('button', { name: 'Follow new lines' }).click();
  await expect(logs.row(`fresh line B ${u}`)).toBeInViewport(LOAD);
  await expect(page.getByRole('button', { name: 'Follow new lines' })).toHaveCount(0);

  // Live off: the tail is unsubscribed
  await page.getByRole('switch', { name: 'Live' }).uncheck();
  await expect.poll(() => frames.some((f) => f.includes('"logs_unsubscribe"')), LOAD).toBe(true);
});

test('with 100,000 lines loaded the table keeps under 150 rows in the DOM', async ({ page }) => {
  test.setTimeout(600_000);
  const id = `${u}m`;
  const labels = { app: `many-${id}` };
  const N = 100_000;
  // 100,000 lines, 5 ms apart, all inside the default 15 minutes
  const lines = Array.from({ length: N }, (_, i) => ({ agoMs: 10_000 + (N - i) * 5, line: `bulk line ${i}` }));
  const peer = await startLokiPeer(lines, labels);
  servers.push(peer.server);
  const seeded = await seedLogsComponent(db, id, peer.url, labels);
  seededNames.push(seeded.name);

  await signIn(page, undefined, undefined, `/logs?topologyId=${seeded.componentId}`);
  const logs = new LogsPage(page);
  await expect(logs.row(`bulk line ${N - 1}`)).toBeVisible(LOAD);
  const older = page.getByRole('button', { name: 'Load older lines' });
  const status = page.getByRole('status');
  const t0 = Date.now();
  for (let loaded = 1000; loaded < N; loaded += 1000) {
    await older.click(LOAD);
    await expect(status.filter({ hasText: new RegExp(`^${(loaded + 1000).toLocaleString('en-US')} lines$`) })).toBeVisible(LOAD);
  }
  const loadMs = Date.now() - t0;
  const rows = await logs.rows.count();
  const trs = await page.locator('tr').count();
  // scrolled to the middle and to the top, still few rows
  const region = page.getByRole('region', { name: 'Log lines' });
  await region.evaluate((el) => { el.scrollTop = el.scrollHeight / 2; });
  await expect(logs.row(`bulk line ${N / 2}`).or(logs.row(`bulk line ${N / 2 - 1}`)).first()).toBeVisible(LOAD);
  const rowsMiddle = await logs.rows.count();
  await region.evaluate((el) => { el.scrollTop = 0; });
  await expect(logs.row('bulk line 0')).toBeVisible(LOAD);
  const rowsTop = await logs.rows.count();
  console.log(`logs web: ${N.toLocaleString('en-US')} lines loaded in ${(loadMs / 1000).toFixed(1)} s (100 pages); DOM log rows at the bottom ${rows} (all tr ${trs}), middle ${rowsMiddle}, top ${rowsTop}`);
  expect(rows).toBeLessThan(150);
  expect(trs).toBeLessThan(150);
  expect(rowsMiddle).toBeLessThan(150);
  expect(rowsTop).toBeLessThan(150);
  expect(rows).toBeGreaterThan(0);
});
