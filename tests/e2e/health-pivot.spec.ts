import { expect, test, type Locator, type Page } from '@playwright/test';
import { adminApi, type ApiSession } from './api';
import { HealthPage } from './pages/health-page';
import { seriousViolations } from './pages/axe';
import { signIn } from './pages/sign-in';
import { E2E_PORT } from './env';

/*
 * The /health pivot (pivotBy, pivotLabel, pivotCellType) against real checks: three canaries whose checks carry
 * env=prod, env=staging or no env label, two of them named alike in the same column.
 */

const u = `${Date.now()}`;
const api = `api-${u}`;
const db = `db-${u}`;
const web = `web-${u}`;
const healthz = `http://127.0.0.1:${E2E_PORT}/healthz`;
// port 1 on loopback: nothing listens there
const closed = '127.0.0.1:1';

let admin: ApiSession;
const canaryIds: string[] = [];
/** check name@env -> id */
let ids: Record<string, string> = {};

async function createCanary(name: string, spec: Record<string, unknown>) {
  const res = await admin.api.post('/api/canary', { headers: { 'x-csrf-token': admin.csrf }, data: { name, spec: { schedule: '@every 5s', ...spec } } });
  expect(res.status(), await res.text()).toBe(201);
  canaryIds.push((await res.json()).id);
}

test.beforeAll(async () => {
  test.setTimeout(60_000);
  admin = await adminApi();
  await createCanary(`e2e-pivot-a-${u}`, {
    http: [
      { name: api, url: healthz, labels: { env: 'prod' } },
      { name: web, url: healthz },
    ],
    tcp: [{ name: db, endpoint: closed, labels: { env: 'staging' } }],
  });
  await createCanary(`e2e-pivot-b-${u}`, { http: [{ name: api, url: healthz, labels: { env: 'staging' } }] });
  // a second api check in prod: that cell holds two checks, one failing
  await createCanary(`e2e-pivot-c-${u}`, { tcp: [{ name: api, endpoint: closed, labels: { env: 'prod' } }] });

  await expect
    .poll(
      async () => {
        const r = await admin.api.get('/api/canary/api/summary', { params: { window: '15m' } });
        type Row = { id: string; name: string; type: string; labels: Record<string, string>; status: string | null; uptime: { passed: number; failed: number } };
        const rows = ((await r.json()).checks_summary as Row[]).filter((c) => c.name.endsWith(u));
        ids = Object.fromEntries(rows.map((c) => [`${c.name}@${c.labels.env ?? 'none'}/${c.type}`, c.id]));
        return rows.filter((c) => c.uptime.passed + c.uptime.failed > 0).map((c) => `${c.name}@${c.labels.env ?? 'none'}/${c.type}:${c.status}`).sort();
      },
      { timeout: 45_000 },
    )
    .toEqual(
      [
        `${api}@prod/http:healthy`,
        `${api}@prod/tcp:unhealthy`,
        `${api}@staging/http:healthy`,
        `${db}@staging/tcp:unhealthy`,
        `${web}@none/http:healthy`,
      ].sort(),
    );
});

test.afterAll(async () => {
  for (const id of canaryIds) await admin.api.delete(`/api/canary/${id}`, { headers: { 'x-csrf-token': admin.csrf } });
  await admin.api.dispose();
});

class PivotView {
  readonly table: Locator;
  readonly pivotBy: Locator;
  readonly cellType: Locator;
  readonly groupBy: Locator;
  /** The plain table (HealthPage's locator also matches "Health checks by env"). */
  readonly checkTable: Locator;

  constructor(readonly page: Page) {
    this.checkTable = page.getByRole('table', { name: 'Health checks', exact: true });
    this.table = page.getByRole('table', { name: 'Health checks by env', exact: true });
    this.pivotBy = page.getByRole('combobox', { name: 'Pivot By' });
    this.cellType = page.getByRole('combobox', { name: 'Cell' });
    this.groupBy = page.getByRole('combobox', { name: 'Group By' });
  }

  async choose(combo: Locator, option: string) {
    await combo.click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  /** The value cells of a row, in column order (the row header is not one). */
  cells(name: string): Locator {
    return this.row(name).getByRole('cell');
  }

  async columnHeaders(): Promise<string[]> {
    return this.table.getByRole('columnheader').allInnerTexts();
  }
}

test.describe('Health pivot', () => {
  test('pivots checks by a label: columns, cells per cell type, the URL, the drawer, back to the table', async ({ page }) => {
    await signIn(page, undefined, undefined, `/health?timeRange=15m&query=${u}&hidePassing=false`);
    const health = new HealthPage(page);
    const pivot = new PivotView(page);
    await expect(health.row(api)).toHaveCount(3);
    await expect(pivot.cellType).toHaveCount(0);

    await pivot.choose(pivot.pivotBy, 'Label: env');
    await expect(page).toHaveURL(/pivotBy=labels/);
    await expect(page).toHaveURL(/pivotLabel=env/);
    await expect(pivot.table).toBeVisible();
    await expect(pivot.checkTable).toHaveCount(0);
    // label values sorted, then the checks without the label
    await expect.poll(() => pivot.columnHeaders()).toEqual(['Checks', 'prod', 'staging', 'none']);
    await expect(pivot.table.getByRole('rowheader')).toHaveText([api, db, web]);
    await expect(pivot.groupBy).toBeDisabled();

    // Status: the worst of a cell's checks, with how many share it; an empty cell shows an en dash
    await expect(pivot.cells(api).nth(0).getByRole('button')).toHaveAccessibleName('unhealthy, 2 checks');
    await expect(pivot.cells(api).nth(1).getByRole('button')).toHaveAccessibleName('healthy');
    await expect(pivot.cells(api).nth(2)).toHaveText('–');
    await expect(pivot.cells(api).nth(2).getByRole('button')).toHaveCount(0);
    await expect(pivot.cells(db).nth(1).getByRole('button')).toHaveAccessibleName('unhealthy');
    await expect(pivot.cells(web).nth(2).getByRole('button')).toHaveAccessibleName('healthy');
    await expect(pivot.cells(web).nth(0)).toHaveText('–');
    await page.screenshot({ path: test.info().outputPath('health-pivot-status.png') });

    // a shared cell opens the check whose value it shows (the failing one); Enter works on a focused cell
    await pivot.cells(api).nth(0).getByRole('button').focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`checkId=${ids[`${api}@prod/tcp`]}`));
    await expect(health.drawer.getByText('Health Overview')).toBeVisible();
    await expect(health.drawer.getByText(closed).first()).toBeVisible();
    await health.drawer.getByRole('button', { name: 'Close' }).click();
    await expect(page).not.toHaveURL(/checkId=/);
    await expect(pivot.table).toBeVisible();

    await pivot.choose(pivot.cellType, 'Uptime');
    await expect(page).toHaveURL(/pivotCellType=uptime/);
    // the lowest uptime of the two prod checks: the closed port never passes
    await expect(pivot.cells(api).nth(0).getByRole('button')).toHaveAccessibleName('0.0% uptime, 2 checks');
    await expect(pivot.cells(api).nth(0)).toContainText('0.0%');
    await expect(pivot.cells(api).nth(1).getByRole('button')).toHaveAccessibleName('100.0% uptime');
    await expect(pivot.cells(api).nth(1).getByRole('meter')).toHaveAttribute('data-color', 'green');
    await expect(pivot.cells(db).nth(1).getByRole('meter')).toHaveAttribute('data-color', 'red');
    await page.screenshot({ path: test.info().outputPath('health-pivot-uptime.png') });

    await pivot.choose(pivot.cellType, 'Latency');
    await expect(page).toHaveURL(/pivotCellType=latency/);
    await expect(pivot.cells(api).nth(1).getByRole('button')).toHaveAccessibleName(/^\d+(\.\d+)?(ms|s) latency$/);
    await expect(pivot.cells(api).nth(0).getByRole('button')).toHaveAccessibleName(/^(\d+(\.\d+)?(ms|s) latency|no latency), 2 checks$/);
    const latency = (await pivot.cells(web).nth(2).innerText()).trim();
    expect(latency).toMatch(/^\d+(\.\d+)?(ms|s)$/);

    // the URL alone restores the view
    await page.reload();
    await expect(pivot.table).toBeVisible();
    await expect(pivot.pivotBy).toHaveText('Label: env');
    await expect(pivot.cellType).toHaveText('Latency');
    await expect.poll(() => pivot.columnHeaders()).toEqual(['Checks', 'prod', 'staging', 'none']);
    await expect(pivot.cells(web).nth(2).getByRole('button')).toHaveAccessibleName(/^\d+(\.\d+)?(ms|s) latency$/);

    // a single-check cell opens that check
    await pivot.cells(db).nth(1).getByRole('button').click();
    await expect(page).toHaveURL(new RegExp(`checkId=${ids[`${db}@staging/tcp`]}`));
    await expect(health.drawer.getByText('Health Overview')).toBeVisible();
    await health.drawer.getByRole('button', { name: 'Close' }).click();

    await page.screenshot({ path: test.info().outputPath('health-pivot.png') });

    // back to None: the table, Group By and no Cell choice; the pivot parameters leave the URL
    await pivot.choose(pivot.pivotBy, 'None');
    await expect(pivot.checkTable).toBeVisible();
    await expect(health.row(api)).toHaveCount(3);
    await expect(pivot.table).toHaveCount(0);
    await expect(pivot.cellType).toHaveCount(0);
    await expect(pivot.groupBy).toBeEnabled();
    await expect(page).not.toHaveURL(/pivot/);
    await page.screenshot({ path: test.info().outputPath('health-table.png') });
  });

  test('filters apply before the pivot; cards ignore it; an unknown label falls back to the table', async ({ page }) => {
    await signIn(page, undefined, undefined, `/health?timeRange=15m&query=${u}&pivotBy=labels&pivotLabel=env`);
    const health = new HealthPage(page);
    const pivot = new PivotView(page);
    // Hide Passing (on by default) removes the passing checks before the pivot: no "none" column (web passes),
    // and the prod cell of api holds only the failing check
    await expect(pivot.table).toBeVisible();
    await expect.poll(() => pivot.columnHeaders()).toEqual(['Checks', 'prod', 'staging']);
    await expect(pivot.table.getByRole('rowheader')).toHaveText([api, db]);
    await expect(pivot.cells(api).nth(0).getByRole('button')).toHaveAccessibleName('unhealthy');
    await expect(pivot.cells(api).nth(1)).toHaveText('–');

    // search narrows the rows
    await health.search.fill(db);
    await expect(pivot.table.getByRole('rowheader')).toHaveText([db]);
    await expect.poll(() => pivot.columnHeaders()).toEqual(['Checks', 'staging']);

    // nothing matches: the table's message
    await health.search.fill(`nothing-${u}`);
    await expect(page.getByRole('status').filter({ hasText: 'No checks match these filters' })).toBeVisible();
    await health.search.fill(u);
    await expect(pivot.table.getByRole('rowheader')).toHaveText([api, db]);

    expect(await seriousViolations(page)).toEqual([]);

    // cards are unchanged by the pivot
    await page.getByRole('button', { name: 'Cards' }).click();
    await expect(health.cards.getByRole('listitem', { name: new RegExp(api) })).toHaveCount(1);
    await expect(pivot.table).toHaveCount(0);
    await page.getByRole('button', { name: 'Table' }).click();
    await expect(pivot.table).toBeVisible();

    // a label no check carries, or a bad cell type: the table, or Status cells
    await page.goto(`/health?timeRange=15m&query=${u}&pivotBy=labels&pivotLabel=no-such-label-${u}`);
    await expect(health.row(db)).toBeVisible();
    await expect(pivot.pivotBy).toHaveText('None');
    await page.goto(`/health?timeRange=15m&query=${u}&pivotBy=labels&pivotLabel=env&pivotCellType=bogus`);
    await expect(pivot.cellType).toHaveText('Status');
    await expect(pivot.cells(db).nth(1).getByRole('button')).toHaveAccessibleName('unhealthy');
  });

  test('past 200 rows only the rows in view render, and scrolling reaches the last one', async ({ page }) => {
    const names = Array.from({ length: 250 }, (_, i) => `v-${u}-${String(i).padStart(3, '0')}`);
    // hourly: the rows exist at once (checks without runs are listed), the runner stays quiet
    await createCanary(`e2e-pivot-many-${u}`, {
      schedule: '@every 1h',
      http: names.map((name, i) => ({ name, url: healthz, labels: { env: i % 2 ? 'prod' : 'staging' } })),
    });
    await signIn(page, undefined, undefined, `/health?timeRange=15m&query=v-${u}-&hidePassing=false&pivotBy=labels&pivotLabel=env`);
    const pivot = new PivotView(page);
    await expect(pivot.table).toHaveAttribute('aria-rowcount', '251');
    await expect(pivot.table.getByRole('rowheader').first()).toHaveText(names[0]);
    const rendered = await pivot.table.getByRole('rowheader').count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(100);
    await expect.poll(() => pivot.columnHeaders()).toEqual(['Checks', 'prod', 'staging']);

    // the scroll container is the table's parent; at its end the last rows render and the first ones are gone
    await pivot.table.evaluate((t) => t.parentElement!.scrollTo({ top: t.parentElement!.scrollHeight }));
    await expect(pivot.row(names[249])).toBeVisible();
    await expect(pivot.row(names[249])).toHaveAttribute('aria-rowindex', '251');
    await expect(pivot.row(names[0])).toHaveCount(0);
    // the header row stays in view while scrolled
    await expect(pivot.table.getByRole('columnheader', { name: 'prod' })).toBeInViewport();
    await page.screenshot({ path: test.info().outputPath('health-pivot-scrolled.png') });
  });
});
