import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { seedIncident } from './pages/incidents-page';
import { signIn } from './pages/sign-in';
import { TopologySidebar } from './pages/topology-sidebar';

const u = Date.now().toString(36);
const shots = (name: string) => `.tmp/screenshots/topology-sidebar-${name}.png`;

// lazy chunks on a machine eight people share: waits, not timed assertions
test.describe.configure({ timeout: 150_000 });
const LOAD = { timeout: 45_000 };

let admin: ApiSession;
let db: pg.Client;
const ids = { root: '', cart: '', check: '', scraped: '', linkMe: '', deleted: '', team: '' };
const cart = `cart-${u}`;

/**
 * shop-sb-{u} ── cart-{u} (Service): a check ({u}-cart-probe, failing), a scraped config link (cart-cfg-{u}, with a
 * change and an insight), a link to a deleted config (old-cfg-{u}), the team Payments-{u}, an incident's evidence.
 * link-me-{u} is an unlinked config for Link to Catalog. The canary and scraper are @never: nothing overwrites them.
 */
async function seed() {
  const one = async (sql: string, params: unknown[]) => (await db.query<{ id: string }>(sql, params)).rows[0].id;
  const scraper = await one(`INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', $2, 'UI') RETURNING id`, [`e2e-sb-${u}`, { schedule: '@never' }]);
  const config = (name: string, deleted: boolean) =>
    one(
      `INSERT INTO config_items (scraper_id, config_class, type, name, status, health, config, deleted_at)
       VALUES ($1, 'Deployment', 'Kubernetes::Deployment', $2, 'Running', 'healthy', '{}', CASE WHEN $3 THEN now() END) RETURNING id`,
      [scraper, name, deleted],
    );
  ids.scraped = await config(`cart-cfg-${u}`, false);
  ids.deleted = await config(`old-cfg-${u}`, true);
  ids.linkMe = await config(`link-me-${u}`, false);
  await db.query(`INSERT INTO config_changes (config_id, change_type, severity, summary, source) VALUES ($1, 'diff', 'info', $2, 'e2e')`, [ids.scraped, `image bumped ${u}`]);
  await db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, summary) VALUES ($1, 'trivy', 'security', 'high', $2)`, [ids.scraped, `CVE in cart ${u}`]);
  const component = (name: string, type: string, parent: string | null) =>
    one(`INSERT INTO components (external_id, name, type, parent_id, owner) VALUES ($1, $1, $2, $3, 'team-cart') RETURNING id`, [name, type, parent]);
  ids.root = await component(`shop-sb-${u}`, 'Topology', null);
  ids.cart = await component(cart, 'Service', ids.root);
  const canary = await one(`INSERT INTO canaries (name, spec) VALUES ($1, $2) RETURNING id`, [`e2e-sb-${u}`, { schedule: '@never' }]);
  ids.check = await one(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, 'unhealthy') RETURNING id`, [canary, `${u}-cart-probe`]);
  await db.query(`INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id) VALUES ($1, $2, $3, 'e2e')`, [ids.cart, ids.check, canary]);
  for (const c of [ids.scraped, ids.deleted]) {
    await db.query(`INSERT INTO config_component_relationships (component_id, config_id, selector_id) VALUES ($1, $2, 'e2e')`, [ids.cart, c]);
  }
  const person = await one(`SELECT id FROM people ORDER BY created_at LIMIT 1`, []);
  ids.team = await one(`INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id`, [`Payments-${u}`, person]);
  await db.query(`INSERT INTO team_components (team_id, component_id) VALUES ($1, $2)`, [ids.team, ids.cart]);
}

test.beforeAll(async () => {
  test.setTimeout(90_000);
  admin = await adminApi();
  db = await e2eDatabase(admin);
  await seed();
  await seedIncident(admin, `Cart errors ${u}`, [{ type: 'topology', component_id: ids.cart, description: cart, evidence: { name: cart } }]);
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
});

test('each panel shows the component: details, catalog with Show deleted, incidents, changes, checks, playbooks, teams, insights; axe clean', async ({ page }) => {
  await signIn(page);
  const sidebar = new TopologySidebar(page, cart);
  await sidebar.open(`/topology/${ids.root}`);
  await sidebar.select();
  // Details is open first, read fresh from the row
  await expect(sidebar.root.getByLabel('Details', { exact: true }).getByText('team-cart')).toBeVisible(LOAD);
  await expect(sidebar.badge('Catalog', 1)).toBeVisible();
  await expect(sidebar.badge('Checks', 1)).toBeVisible();
  await expect(sidebar.badge('Teams', 1)).toBeVisible();
  await expect(sidebar.badge('Incidents', 1)).toBeVisible();

  await sidebar.openPanel('Catalog');
  const linked = sidebar.root.getByRole('list', { name: 'Linked catalog items' });
  await expect(linked.getByRole('link', { name: `cart-cfg-${u}` })).toBeVisible();
  await expect(linked.getByText(`old-cfg-${u}`)).toHaveCount(0);
  // a scraped link cannot be deleted by hand
  await expect(linked.getByRole('button', { name: /Delete link/ })).toHaveCount(0);
  await sidebar.root.getByRole('switch', { name: 'Show deleted' }).check();
  await expect(linked.getByText(`old-cfg-${u}`)).toBeVisible();

  await sidebar.openPanel('Incidents');
  await expect(sidebar.root.getByRole('link', { name: new RegExp(`Cart errors ${u}`) })).toBeVisible();
  await sidebar.openPanel('Changes');
  await expect(sidebar.root.getByRole('link', { name: new RegExp(`image bumped ${u}`) })).toBeVisible();
  await sidebar.openPanel('Playbooks');
  await expect(sidebar.root.getByText('No playbook has run on this component')).toBeVisible();
  await sidebar.openPanel('Teams');
  await expect(sidebar.root.getByRole('link', { name: `Payments-${u}` })).toHaveAttribute('href', `/settings/teams/${ids.team}`);
  await sidebar.openPanel('Insights');
  await expect(sidebar.root.getByRole('link', { name: `CVE in cart ${u}` })).toBeVisible();
  // one panel open at a time
  await expect(sidebar.panel('Teams')).toHaveAttribute('aria-expanded', 'false');
  await page.screenshot({ path: shots('insights') });
  expect(await seriousViolations(page)).toEqual([]);
});

test('Checks opens the health check drawer, whose Relationships tab links back to the component', async ({ page }) => {
  await signIn(page);
  const sidebar = new TopologySidebar(page, cart);
  await sidebar.open(`/topology/${ids.root}`);
  await sidebar.select();
  await sidebar.openPanel('Checks');
  await sidebar.root.getByRole('link', { name: `${u}-cart-probe` }).click();
  const drawer = page.getByRole('dialog', { name: `Check ${u}-cart-probe` });
  await expect(drawer).toBeVisible(LOAD);
  await drawer.getByRole('tab', { name: 'Relationships' }).click();
  await drawer.getByRole('link', { name: cart }).click();
  await expect(page).toHaveURL(new RegExp(`/topology/${ids.cart}`));
});

test('Link to catalog, then unlink it from the Catalog panel', async ({ page }) => {
  await signIn(page);
  const sidebar = new TopologySidebar(page, cart);
  await sidebar.open(`/topology/${ids.root}`);
  await sidebar.menu('Link to catalog');
  const dialog = page.getByRole('dialog', { name: 'Link to Catalog' });
  await expect(dialog.getByRole('button', { name: 'Link' })).toBeDisabled();
  // typed as a person types: each key opens the list and the search follows the pause
  await dialog.getByRole('combobox', { name: 'Catalog item' }).pressSequentially(`link-me-${u}`);
  await page.getByRole('option', { name: new RegExp(`link-me-${u}`) }).click();
  await dialog.getByRole('button', { name: 'Link' }).click();
  await expect(page.getByText('config link successful')).toBeVisible();
  await expect(dialog).toHaveCount(0);

  await sidebar.select();
  await sidebar.openPanel('Catalog');
  await expect(sidebar.badge('Catalog', 2)).toBeVisible();
  await sidebar.root.getByRole('button', { name: `Delete link to link-me-${u}` }).click();
  await expect(page.getByText('Deleted config link successfully')).toBeVisible();
  await expect(sidebar.root.getByRole('link', { name: `link-me-${u}` })).toHaveCount(0);
  const { rows } = await db.query(`SELECT 1 FROM config_component_relationships WHERE component_id = $1 AND config_id = $2`, [ids.cart, ids.linkMe]);
  expect(rows).toHaveLength(0);
});

test('Snapshot downloads a zip of the component', async ({ page }) => {
  await signIn(page);
  const sidebar = new TopologySidebar(page, cart);
  await sidebar.open(`/topology/${ids.root}`);
  await sidebar.menu('Snapshot');
  const dialog = page.getByRole('dialog', { name: `Download ${cart} snapshot` });
  await expect(dialog.getByRole('checkbox', { name: 'Include related components' })).toBeChecked();
  expect(await seriousViolations(page)).toEqual([]);
  const download = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Download' }).click();
  const file = await download;
  const path = await file.path();
  // a zip starts with the local file header PK\x03\x04
  expect(readFileSync(path).subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  expect(file.suggestedFilename()).toMatch(/\.zip$/);
  await expect(dialog).toHaveCount(0);
});

test('Link to Incident makes a new incident with the component as its evidence', async ({ page }) => {
  await signIn(page);
  const sidebar = new TopologySidebar(page, cart);
  await sidebar.open(`/topology/${ids.root}`);
  await sidebar.menu('Link to Incident');
  const dialog = page.getByRole('dialog', { name: 'Link to Incident' });
  await dialog.getByRole('combobox', { name: 'Incident' }).pressSequentially(`Cart outage ${u}`);
  await page.getByRole('option', { name: `Create “Cart outage ${u}”` }).click();
  await dialog.getByRole('button', { name: 'Link' }).click();
  await expect(page.getByText('Linked to incident successfully')).toBeVisible();
  const { rows } = await db.query(
    `SELECT e.type, e.component_id FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id JOIN incidents i ON i.id = h.incident_id WHERE i.title = $1`,
    [`Cart outage ${u}`],
  );
  expect(rows).toEqual([{ type: 'topology', component_id: ids.cart }]);
  await sidebar.select();
  await expect(sidebar.badge('Incidents', 2)).toBeVisible(LOAD);
});
