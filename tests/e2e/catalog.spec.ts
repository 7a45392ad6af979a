import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase, seedCatalog, type SeededCatalog } from './catalog-seed';
import { E2E_PORT } from './env';
import { seriousViolations } from './pages/axe';
import { CatalogPage, ConfigItemPage } from './pages/catalog-page';
import { dbGet, seedIncident } from './pages/incidents-page';
import { signInSession } from './pages/sign-in';

const shots = (name: string) => `.tmp/screenshots/catalog-${name}.png`;
const u = Date.now().toString(36);

// each test signs in and loads a lazy page or two; with eight people building on two cores a page's first load took
// 10-40 s here, so these tests get more than the suite's 60 s (waits, not timed assertions)
test.describe.configure({ timeout: 150_000 });
const LOAD = { timeout: 45_000 };

let admin: ApiSession;
let db: pg.Client;
let seeded: SeededCatalog;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  admin = await adminApi();
  // a real health check to link the item to (its row exists once the canary is saved and has run)
  const res = await admin.api.post('/api/canary', {
    headers: { 'x-csrf-token': admin.csrf },
    data: { name: `e2e-catalog-${u}`, spec: { schedule: '@every 30s', http: [{ name: `web-probe-${u}`, url: `http://127.0.0.1:${E2E_PORT}/healthz` }] } },
  });
  expect(res.status(), await res.text()).toBe(201);
  const canary = await res.json();
  let checkId = '';
  await expect
    .poll(async () => (checkId = (await dbGet<{ id: string }>(admin, `checks?canary_id=eq.${canary.id}&select=id`))[0]?.id ?? ''), { timeout: 30_000 })
    .not.toBe('');
  db = await e2eDatabase(admin);
  seeded = await seedCatalog(db, u, checkId, canary.id);
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
});

test('groups by type with counts and cost; deleted items only when asked; a group expands to its items', async ({ page }) => {
  await signInSession(page);
  const catalog = new CatalogPage(page);
  await catalog.goto(`?search=${u}`);
  await expect(page.getByRole('tab', { name: 'Catalog', selected: true })).toBeVisible();
  await expect(catalog.count('Kubernetes::Deployment', 1)).toBeVisible(LOAD);
  await expect(catalog.group('Kubernetes::Deployment').getByText('$42.50')).toBeVisible();
  // the deleted pod is hidden by default
  await expect(catalog.count('Kubernetes::Pod', 1)).toBeVisible();

  await catalog.filters.getByRole('switch', { name: 'Show deleted' }).check();
  await expect(page).toHaveURL(/deleted=true/);
  await expect(catalog.count('Kubernetes::Pod', 2)).toBeVisible();
  const pods = await catalog.expand('Kubernetes::Pod');
  await expect(pods.getByRole('link', { name: `web-${u}-pod-old` })).toBeVisible();
  await expect(pods.getByRole('link', { name: `web-${u}-pod-a` })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: shots('list'), fullPage: true });
});

test('grouping and filters live in the URL; a shared link restores them; an item opens from its group', async ({ page }) => {
  await signInSession(page);
  const catalog = new CatalogPage(page);
  await catalog.goto(`?search=${u}`);
  await catalog.choose('Group by', 'Tag: namespace');
  await expect(page).toHaveURL(/groupBy=tag%3Anamespace/);
  await expect(catalog.count('shop', 2)).toBeVisible(LOAD);
  await catalog.choose('Health', 'unhealthy');
  await expect(page).toHaveURL(/health=unhealthy/);
  await expect(catalog.count('shop', 1)).toBeVisible();

  // labels are tri-state: excluding app=web leaves nothing of this run, including it brings both items back
  await catalog.goto(`?search=${u}`);
  await catalog.filters.getByRole('button', { name: 'Labels' }).click();
  await page.getByRole('textbox', { name: 'Filter labels' }).fill('app=web');
  await page.getByRole('button', { name: 'Exclude app=web' }).click();
  await expect(page).toHaveURL(/labels=app%253Dweb%3A-1/);
  await expect(page.getByText('No result')).toBeVisible();
  await page.getByRole('button', { name: 'Include app=web' }).click();
  await expect(page).toHaveURL(/labels=app%253Dweb%3A1/);
  // the picker is modal: the table is back in reach once it closes
  await page.keyboard.press('Escape');
  await expect(catalog.count('Kubernetes::Deployment', 1)).toBeVisible();
  await expect(catalog.count('Kubernetes::Pod', 1)).toBeVisible();

  await catalog.goto(`?search=${u}&type=Kubernetes::Deployment`);
  await expect(catalog.count('Kubernetes::Deployment', 1)).toBeVisible(LOAD);
  await expect(catalog.group('Kubernetes::Pod')).toHaveCount(0);
  const items = await catalog.expand('Kubernetes::Deployment');
  await items.getByRole('link', { name: `web-${u}` }).click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${seeded.deploymentId}$`));
  await expect(page.getByRole('tablist', { name: 'Catalog item' })).toBeVisible(LOAD);
});

test('the item sidebar shows the spec rows; the tabs carry count badges', async ({ page }) => {
  await signInSession(page);
  const item = new ConfigItemPage(page);
  await item.goto(seeded.deploymentId);
  await expect(item.tab('Config')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('region', { name: `web-${u} (JSON)` })).toContainText('"replicas": 3');

  await expect(item.row('Name')).toHaveText(`web-${u}`);
  await expect(item.row('Status')).toHaveText('Running');
  await expect(item.row('Health')).toContainText('healthy');
  await expect(item.row('Health')).toContainText('3 of 3 replicas ready');
  await expect(item.row('Created').getByRole('link', { name: `e2e-scraper-${u}` })).toHaveAttribute('href', `/catalog/scrapers/${seeded.scraperId}`);
  // last scraped two hours ago: the warning shows
  await expect(item.row('Updated').getByRole('img', { name: /Last scraped 2h ago/ })).toBeVisible();
  await expect(item.row('Type').getByRole('link', { name: 'Kubernetes::Deployment' })).toHaveAttribute('href', '/catalog?type=Kubernetes%3A%3ADeployment');
  // Kubernetes::Deployment already ends with Deployment
  await expect(item.sidebar.locator('dt', { hasText: /^Class$/ })).toHaveCount(0);
  await expect(item.row('Cost')).toContainText('$42.50 30d');
  await expect(item.row('region/zone')).toHaveText('eu-west-1/eu-west-1a');
  await expect(item.row('version/part-of')).toHaveText('1.27/shop');
  await expect(item.row('app')).toHaveText('web');

  // badges from config_detail.summary: two pods (hard links), one playbook run, one check
  await expect(item.tab('Relationships')).toContainText('2');
  await expect(item.tab('Playbooks')).toContainText('1');
  await expect(item.tab('Checks')).toContainText('1');
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: shots('item'), fullPage: true });
});

test('each tab of the item is its own route; Playbooks and Checks list what is linked', async ({ page }) => {
  await signInSession(page);
  const item = new ConfigItemPage(page);
  await item.goto(seeded.deploymentId, 'playbooks');
  const runs = page.getByRole('table', { name: 'Playbook runs' });
  await expect(runs.getByRole('row').filter({ hasText: seeded.playbookTitle })).toContainText('Completed');

  await item.tab('Checks').click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${seeded.deploymentId}/checks$`));
  await expect(page.getByRole('table', { name: 'Linked checks' }).getByText(seeded.checkName)).toBeVisible(LOAD);

  for (const tab of ['Changes', 'Insights', 'Relationships']) {
    await item.tab(tab).click();
    await expect(page).toHaveURL(new RegExp(`/catalog/${seeded.deploymentId}/${tab.toLowerCase()}$`));
    await expect(item.tab(tab)).toHaveAttribute('aria-selected', 'true');
  }

  await item.tab('Config').click();
  await expect(page).toHaveURL(new RegExp(`/catalog/${seeded.deploymentId}$`));
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page).toHaveURL(/format=yaml/);
  await expect(page.getByRole('region', { name: `web-${u} (YAML)` })).toContainText('replicas: 3');
});

test("a deleted item reads Deleted with its age and no scrape warning; an unknown id, 'Details not found'", async ({ page }) => {
  await signInSession(page);
  const item = new ConfigItemPage(page);
  await item.goto(seeded.deletedPodId);
  await expect(item.row('Status')).toHaveText(/^Deleted\s*3h ago$/);
  await expect(item.row('Updated').getByRole('img')).toHaveCount(0);

  await page.goto('/catalog/00000000-0000-0000-0000-00000000abcd');
  await expect(page.getByText('Details not found')).toBeVisible(LOAD);
});

test('selected lines are kept in the URL and attached to an incident as config evidence', async ({ page }) => {
  const incident = await seedIncident(admin, `Web outage ${u}`);
  await signInSession(page);
  const item = new ConfigItemPage(page);
  await item.goto(seeded.deploymentId);
  await item.lineNumber(3).click();
  await item.lineNumber(5).click({ modifiers: ['Shift'] });
  await expect(page).toHaveURL(/selected=3-5/);

  // a reload keeps the selection
  await page.reload();
  await expect(item.lineNumber(4)).toHaveAttribute('aria-pressed', 'true', LOAD);
  await page.getByRole('button', { name: 'Attach 3 lines to incident' }).click();
  const dialog = page.getByRole('dialog', { name: 'Link to Incident' });
  await expect(dialog.getByText(`Attach the catalog item web-${u} as evidence.`)).toBeVisible();
  await dialog.getByRole('combobox', { name: 'Incident' }).pressSequentially(`Web outage ${u}`);
  await page.getByRole('option', { name: new RegExp(`INC-\\d+ · Web outage ${u}`) }).click();
  await expect(dialog.getByRole('combobox', { name: 'Hypothesis' })).toHaveValue(`Web outage ${u}`);
  await dialog.getByRole('button', { name: 'Link', exact: true }).click();
  await expect(dialog).toHaveCount(0);

  // the lines as the viewer numbers them: the stored config pretty-printed
  const [detail] = await dbGet<{ config: unknown }>(admin, `config_detail?id=eq.${seeded.deploymentId}&select=config`);
  const lines = JSON.stringify(detail.config, null, 2).split('\n');
  const evidences = await dbGet<{ type: string; config_id: string; evidence: { lines: Record<string, string>; selected: string } }>(
    admin,
    `evidences?hypothesis_id=eq.${incident.rootId}&select=type,config_id,evidence`,
  );
  expect(evidences).toHaveLength(1);
  expect(evidences[0].type).toBe('config');
  expect(evidences[0].config_id).toBe(seeded.deploymentId);
  expect(evidences[0].evidence.selected).toBe('3-5');
  expect(evidences[0].evidence.lines).toEqual({ 3: lines[2], 4: lines[3], 5: lines[4] });

  // the incident shows the lines
  await page.goto(`/incidents/${incident.id}?tab=plan`);
  await expect(page.getByText(lines[3].trim()).first()).toBeVisible(LOAD);
});
