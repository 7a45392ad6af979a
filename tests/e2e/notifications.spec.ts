import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { startRecorder, type HttpRecorder } from '../support/http-recorder';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { EventQueuePage, NotificationHistoryPage } from './pages/notifications-page';
import { signInSession } from './pages/sign-in';

// The send comes through the real pipeline: a canary whose TCP check fails (a closed port) raises check.failed, a rule
// filtered to that check sends to a generic webhook on a loopback recorder, and the send lands in the history.
let admin: ApiSession;
let rec: HttpRecorder;
let db: pg.Client | undefined;
const stamp = Date.now();
const canary = `e2e-notify-${stamp}`;
const check = `${canary}-tcp`;
const rule = `e2e-notify-rule-${stamp}`;
const poison = `e2e.poison.${stamp}`;
let canaryId = '';
let ruleId = '';

const csrf = () => ({ 'x-csrf-token': admin.csrf });

async function historyOf(name: string): Promise<{ id: string; status: string }[]> {
  const res = await admin.api.get('/api/db/notification_send_history_summary', {
    params: { select: 'id,status,resource', 'resource->>name': `eq.${name}` },
  });
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

test.beforeAll(async () => {
  admin = await adminApi();
  rec = await startRecorder();
  const created = await admin.api.post('/api/db/notifications', {
    headers: { ...csrf(), prefer: 'return=representation' },
    data: {
      name: rule, events: ['check.failed'], filter: `check.name == "${check}"`, source: 'UI',
      custom_services: [{ url: `generic+${rec.url}/hook` }],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  ruleId = ((await created.json()) as { id: string }[])[0].id;
  const res = await admin.api.post('/api/canary', {
    headers: csrf(),
    data: { name: canary, spec: { schedule: '@every 5m', tcp: [{ name: check, endpoint: '127.0.0.1:1' }] } },
  });
  expect(res.status(), await res.text()).toBe(201);
  canaryId = (await res.json()).id;
  // a failed event of a name no consumer handles stays as it is (seeded with SQL: the pipeline's own failures retry)
  db = await e2eDatabase(admin);
  await db.query(
    `INSERT INTO event_queue (name, event_id, properties, attempts, error, last_attempt) VALUES ($1, gen_random_uuid(), '{}', 3, 'boom: e2e', now())`,
    [poison],
  );
});

test.afterAll(async () => {
  if (canaryId) await admin.api.delete(`/api/canary/${canaryId}`, { headers: csrf() });
  if (ruleId) await admin.api.patch(`/api/db/notifications?id=eq.${ruleId}`, { headers: csrf(), data: { deleted_at: new Date().toISOString() } });
  if (db) {
    await db.query('DELETE FROM event_queue WHERE name = $1', [poison]);
    await db.end();
  }
  await rec.close();
  await admin.api.dispose();
});

test.describe('Notifications: send history and the Event Queue', () => {
  test("a failing check's send is in the history; its drawer shows the body and a Silence link", async ({ page }) => {
    // the canary's first run, the event queue and the webhook: the pipeline's own pace on a busy machine
    test.setTimeout(120_000);
    // the canary runs once loaded; the rule's send reaches the recorder, then the history
    await expect.poll(() => rec.on('/hook').length, { timeout: 45_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await historyOf(check)).map((r) => r.status), { timeout: 15_000 }).toContain('sent');

    await signInSession(page);
    const history = new NotificationHistoryPage(page);
    await history.goto();
    const row = history.rowsOf(check).first();
    await expect(row).toBeVisible();
    await expect(row).toContainText('Sent');
    expect(await seriousViolations(page)).toEqual([]);

    // the status filter is in the URL and sent to the server
    await history.choose('Status', 'Error');
    await expect(page).toHaveURL(/[?&]status=error/);
    await expect(history.rowsOf(check)).toHaveCount(0);
    await history.choose('Status', 'Sent');
    await expect(history.rowsOf(check).first()).toBeVisible();

    await history.rowsOf(check).first().getByRole('cell').nth(4).click();
    await expect(history.drawer).toBeVisible();
    await expect(history.drawer.getByTestId('notification-body')).toContainText('ECONNREFUSED 127.0.0.1:1');
    const silence = history.drawer.getByRole('link', { name: 'Silence' }).first();
    await expect(silence).toHaveAttribute('href', /\/notifications\/silences\/add\?check_id=/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('the Event Queue page lists a failed event by name', async ({ page }) => {
    await signInSession(page);
    const queue = new EventQueuePage(page);
    await queue.goto();
    const row = queue.row(poison);
    await expect(row).toBeVisible();
    await expect(row).toContainText('boom: e2e');
    await expect(row.getByRole('cell').nth(2)).toHaveText('1');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
