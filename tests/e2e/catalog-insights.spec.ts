import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { CatalogChangesPage } from './pages/catalog-changes-page';
import { signIn } from './pages/sign-in';

// Spec 001 §2 "Insights: filters by config type, severity, analyzer and component": the Component filter is a
// dropdown of components by name (not only a link's id), keeping the insights of the configs linked to it.
const u = `${Date.now().toString(36)}`;
const ids: Record<string, string> = {};
let admin: ApiSession;
let db: pg.Client;

test.beforeAll(async () => {
  admin = await adminApi();
  db = await e2eDatabase(admin);
  const one = async (sql: string, params: unknown[]) => (await db.query<{ id: string }>(sql, params)).rows[0].id;
  const scraper = await one(`INSERT INTO config_scrapers (name, spec, source) VALUES ($1, '{"schedule":"@never"}', 'UI') RETURNING id`, [`e2e-insights-${u}`]);
  const item = (name: string) =>
    one(`INSERT INTO config_items (scraper_id, config_class, type, name) VALUES ($1, 'Deployment', 'Kubernetes::Deployment', $2) RETURNING id`, [scraper, name]);
  ids.linked = await item(`linked-${u}`);
  ids.other = await item(`other-${u}`);
  ids.component = await one(`INSERT INTO components (name, external_id, type) VALUES ($1, $1, 'Service') RETURNING id`, [`checkout-${u}`]);
  await db.query(`INSERT INTO config_component_relationships (component_id, config_id, selector_id) VALUES ($1, $2, 'manual')`, [ids.component, ids.linked]);
  await db.query(
    `INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status, message)
     VALUES ($1, $3, 'security', 'high', 'open', 'on the linked config'), ($2, $4, 'security', 'high', 'open', 'elsewhere')`,
    [ids.linked, ids.other, `linked-finding-${u}`, `other-finding-${u}`],
  );
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
});

test.describe.configure({ timeout: 180_000 });

test('the Component filter lists components by name and keeps the insights of its configs', async ({ page }) => {
  await signIn(page);
  const c = new CatalogChangesPage(page);
  await c.gotoInsights();
  await expect(c.insightRow(`other-finding-${u}`)).toBeVisible();
  await c.chooseIn(c.insightFilters, 'Component', `checkout-${u}`);
  await expect.poll(() => c.url().searchParams.get('component')).toBe(ids.component);
  await expect(c.insightRow(`linked-finding-${u}`)).toBeVisible();
  await expect(c.insightRow(`other-finding-${u}`)).toHaveCount(0);

  // a link from a component card (/catalog/insights?component=<id>) shows the component's name in the filter
  await c.gotoInsights(`?component=${ids.component}`);
  await expect(c.insightFilters.getByRole('combobox', { name: 'Component' })).toHaveText(`checkout-${u}`);
  await expect(c.insightRow(`other-finding-${u}`)).toHaveCount(0);
});
