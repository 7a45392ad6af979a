import { expect, test } from '@playwright/test';
import { adminApi, deleteProperty, setProperty, type ApiSession } from './api';
import { signIn } from './pages/sign-in';

// Live updates in a real browser: the tab's one WebSocket (cookie, Origin, CSP all real) refreshes what is shown
// when someone else changes it, without a reload.

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test('turning a feature off elsewhere hides it in an open tab without a reload', async ({ page }) => {
  const socket = page.waitForEvent('websocket', (ws) => ws.url().endsWith('/api/ws'));
  const shell = await signIn(page);
  const ws = await socket;
  await expect(shell.navLink('Health')).toBeVisible();
  const navigations: string[] = [];
  page.on('framenavigated', (f) => navigations.push(f.url()));

  await setProperty(admin, 'health.disable', 'true');
  try {
    await expect(shell.navLink('Health')).toHaveCount(0);
    expect(navigations).toEqual([]);
    expect(ws.isClosed()).toBe(false);
  } finally {
    await deleteProperty(admin, 'health.disable');
  }
  await expect(shell.navLink('Health')).toBeVisible();
});
