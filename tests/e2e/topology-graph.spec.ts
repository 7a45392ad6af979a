import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { signInSession } from './pages/sign-in';
import { seedTopologyCards, type SeededTopology } from './topology-seed';

const u = `g${Date.now().toString(36)}`;
// a first load of the lazy page and the graph's chunk takes 10-40 s on the shared machine
test.describe.configure({ timeout: 180_000 });
const LOAD = { timeout: 60_000 };

let admin: ApiSession;
let db: pg.Client;
let seeded: SeededTopology;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  admin = await adminApi();
  db = await e2eDatabase(admin);
  seeded = await seedTopologyCards(db, u);
  // 25 pods under store (more than 20: one "+25 more" node), one of them failing; checkout selects payments (a
  // component_relationships row: a dashed edge)
  await db.query(
    `INSERT INTO components (external_id, name, type, parent_id, health)
     SELECT 'pod-' || i || '-${u}', 'pod-' || i || '-${u}', 'Pod', $1, CASE WHEN i = 7 THEN 'unhealthy' ELSE 'healthy' END
     FROM generate_series(1, 25) AS i`,
    [seeded.storeId],
  );
  await db.query(`INSERT INTO component_relationships (component_id, relationship_id, selector_id) VALUES ($1, $2, 'e2e')`, [seeded.paymentsId, seeded.checkoutId]);
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
});

test('the graph view draws health colours and a folded group, opens it, and a node click or Enter opens the sidebar', async ({ page }) => {
  await signInSession(page);
  await page.goto(`/topology/${seeded.rootId}?view=graph`);
  const graph = page.getByTestId('topology-graph');
  const node = (name: string) => graph.getByRole('button', { name: new RegExp(`^${name},`) });
  await expect(node(`checkout-${u}`)).toBeVisible(LOAD);

  // health colours by status: payments is warning by its own health; the store's one failing pod among healthy ones
  // rolls it up to warning (healthy with unhealthy), while the folded group shows its worst, unhealthy
  await expect(graph.getByTestId(`topology-graph-node-payments-${u}`)).toHaveAttribute('data-status', 'warning');
  await expect(graph.getByTestId(`topology-graph-node-store-${u}`)).toHaveAttribute('data-status', 'warning');
  await expect(graph.getByTestId(`topology-graph-node-checkout-${u}`)).toHaveAttribute('data-status', 'healthy');
  // the selector relationship is a dashed edge
  await expect(graph.locator(`.react-flow__edge.relationship`)).toHaveCount(1);
  // store's 25 pods are one node until opened
  const group = graph.getByRole('button', { name: 'Show 25 more components (worst: unhealthy)' });
  await expect(group).toBeVisible();
  await expect(node(`pod-7-${u}`)).toHaveCount(0);
  await group.focus();
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press('Enter');
  await expect(node(`pod-7-${u}`)).toBeVisible();
  await expect(graph.getByRole('status')).not.toContainText('collapsed');

  // a click selects: the sidebar shows the component
  await node(`payments-${u}`).click();
  await expect(page.getByRole('complementary', { name: `payments-${u} details` })).toBeVisible();
  // the keyboard does the same
  await node(`checkout-${u}`).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('complementary', { name: `checkout-${u} details` })).toBeVisible();
  await page.screenshot({ path: '.tmp/screenshots/topology-graph.png' });
});
