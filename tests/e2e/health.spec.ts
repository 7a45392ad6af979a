import { expect, test, type Page } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { HealthPage } from './pages/health-page';
import { seriousViolations } from './pages/axe';
import { signIn } from './pages/sign-in';
import { E2E_PORT } from './env';

let admin: ApiSession;
const u = `${Date.now()}`;
const group = `e2e-health-${u}`;
const passing = `healthz-${u}`;
const failing = `closed-port-${u}`;
let checkIds: Record<string, string> = {};

test.beforeAll(async () => {
  test.setTimeout(60_000);
  admin = await adminApi();
  const res = await admin.api.post('/api/canary', {
    headers: { 'x-csrf-token': admin.csrf },
    data: {
      name: group,
      labels: { team: 'e2e' },
      spec: {
        schedule: '@every 5s',
        http: [{ name: passing, url: `http://127.0.0.1:${E2E_PORT}/healthz` }],
        // port 1 on loopback: nothing listens there
        tcp: [{ name: failing, endpoint: '127.0.0.1:1' }],
      },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  const canary = await res.json();
  // wait until both checks have results; 15m is computed live (1h, 1d and 7d come from a cache refreshed each minute)
  await expect
    .poll(
      async () => {
        const r = await admin.api.get('/api/canary/api/summary', { params: { canaryID: canary.id, window: '15m' } });
        const rows: { id: string; name: string; status: string | null; uptime: { passed: number; failed: number } }[] = (await r.json()).checks_summary;
        checkIds = Object.fromEntries(rows.map((c) => [c.name, c.id]));
        return rows.filter((c) => c.uptime.passed + c.uptime.failed > 0).map((c) => `${c.name}:${c.status}`).sort();
      },
      { timeout: 45_000 },
    )
    .toEqual([`${failing}:unhealthy`, `${passing}:healthy`].sort());
});

test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Health', () => {
  test('lists checks with their health; Hide Passing, search and group-by filter; the URL keeps the view', async ({ page }) => {
    await signIn(page, undefined, undefined, `/health?timeRange=15m&query=${u}`);
    const health = new HealthPage(page);
    await expect(health.search).toHaveValue(u);

    // Hide Passing is on by default: only the failing check shows
    await expect(health.hidePassing).toBeChecked();
    await expect(health.row(failing)).toBeVisible();
    await expect(health.row(failing).getByText('unhealthy')).toBeVisible();
    await expect(health.row(passing)).toHaveCount(0);

    await health.hidePassing.click();
    await expect(health.row(passing)).toBeVisible();
    await expect(health.row(passing).getByText('healthy', { exact: true })).toBeVisible();
    // grouped by canary name: the group row counts fully passing checks out of all
    await expect(health.row(group)).toContainText('1/2');

    // search narrows to one check
    await health.search.fill(`closed-port-${u}`);
    await expect(health.row(passing)).toHaveCount(0);
    await expect(health.row(failing)).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`query=closed-port-${u}`));

    // no grouping: no group row
    await health.search.fill(u);
    await health.chooseGroupBy('No Grouping');
    await expect(health.row(passing)).toBeVisible();
    await expect(health.row(group)).toHaveCount(0);
    await expect(page).toHaveURL(/groupBy=none/);

    await page.reload();
    await expect(health.search).toHaveValue(u);
    await expect(health.hidePassing).not.toBeChecked();
    await expect(page.getByRole('combobox', { name: 'Group By' })).toHaveText('No Grouping');
    await expect(health.row(passing)).toBeVisible();
    await expect(health.row(group)).toHaveCount(0);

    // cards show the same checks
    await page.getByRole('button', { name: 'Cards' }).click();
    await expect(page).toHaveURL(/layout=card/);
    await expect(health.cards.getByRole('listitem', { name: new RegExp(failing) })).toBeVisible();

    await page.getByRole('button', { name: 'Table' }).click();
    await page.getByRole('tab', { name: /^All/ }).focus();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('a row opens the drawer with History; Run Now runs the check for an admin', async ({ page }) => {
    const shell = await signIn(page, undefined, undefined, `/health?timeRange=15m&query=${u}&hidePassing=false`);
    const health = new HealthPage(page);
    await health.row(passing).focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`checkId=${checkIds[passing]}`));
    await expect(health.drawer.getByText('Health Overview')).toBeVisible();
    await expect(health.drawer.getByText(`127.0.0.1:${E2E_PORT}/healthz`)).toBeVisible();
    await expect(health.historyTable().getByRole('row').nth(1)).toBeVisible();
    await expect(health.historyTable().getByRole('row')).not.toHaveCount(1);

    await health.runNow().click();
    await expect(shell.toast(new RegExp(`${passing} passed in`))).toBeVisible();

    await health.drawer.getByRole('tab', { name: 'Spec' }).click();
    await expect(health.drawer.getByText(`"http://127.0.0.1:${E2E_PORT}/healthz"`)).toBeVisible();
    // the Graph tab's chart spans the selected 15 minutes up to now, whatever the data (and replaces the Overview's)
    await health.drawer.getByRole('tab', { name: 'Graph' }).click();
    const graph = health.drawer.getByRole('img', { name: /Latency and status/ });
    await expect(graph).toHaveCount(1);
    await expect(health.drawer.getByText('Health Overview')).toHaveCount(0);
    const [from, to] = [Date.parse((await graph.getAttribute('data-from'))!), Date.parse((await graph.getAttribute('data-to'))!)];
    expect(to - from).toBe(15 * 60_000);
    expect(Math.abs(Date.now() - to)).toBeLessThan(60_000);
    await health.drawer.getByRole('tab', { name: 'History' }).click();
    await health.drawer.getByRole('tab', { name: 'History' }).focus();
    expect(await seriousViolations(page)).toEqual([]);

    await health.drawer.getByRole('button', { name: 'Close' }).click();
    await expect(health.drawer).toHaveCount(0);
    await expect(page).not.toHaveURL(/checkId=/);
  });

  test('the history duration filter accepts ms and s only', async ({ page }) => {
    await signIn(page, undefined, undefined, `/health?timeRange=15m&checkId=${checkIds[failing]}`);
    const health = new HealthPage(page);
    const duration = health.drawer.getByRole('combobox', { name: 'Minimum duration' });
    await duration.fill('2m');
    await duration.press('Enter');
    await expect(health.drawer.getByText('duration is allowed only in milli seconds & seconds')).toBeVisible();
    await duration.fill('1s');
    await duration.press('Enter');
    await expect(health.drawer.getByText('duration is allowed only in milli seconds & seconds')).toHaveCount(0);
  });

  test('a viewer sees the drawer without Run Now', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    await signIn(page, viewer.email, viewer.password, `/health?timeRange=15m&checkId=${checkIds[failing]}`);
    const health = new HealthPage(page);
    await expect(health.drawer.getByText('Health Overview')).toBeVisible();
    await expect(health.drawer.getByRole('link', { name: 'Edit' })).toBeVisible();
    await expect(health.runNow()).toHaveCount(0);
  });
});
