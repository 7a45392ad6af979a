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

test('a big graph zoomed out is one overview picture; Fit view shows all of it and zooming in brings the nodes back', async ({ page }) => {
  // 12 services + 240 pods under the root (20 each: nothing folds), more than the 200 a first view fits whole
  const rootId = (await db.query<{ id: string }>(`INSERT INTO components (external_id, name, type) VALUES ($1, $1, 'Topology') RETURNING id`, [`big-${u}`])).rows[0].id;
  const services = await db.query<{ id: string }>(
    `INSERT INTO components (external_id, name, type, parent_id) SELECT 'svc-' || i || '-${u}', 'svc-' || i || '-${u}', 'Service', $1 FROM generate_series(1, 12) AS i RETURNING id`,
    [rootId],
  );
  await db.query(
    `INSERT INTO components (external_id, name, type, parent_id, health)
     SELECT 'pod-' || s.n || '-' || i || '-${u}', 'pod-' || s.n || '-' || i || '-${u}', 'Pod', s.id, CASE WHEN i = 3 THEN 'unhealthy' ELSE 'healthy' END
     FROM unnest($1::uuid[]) WITH ORDINALITY AS s(id, n), generate_series(1, 20) AS i`,
    [services.rows.map((r) => r.id)],
  );
  await signInSession(page);
  await page.goto(`/topology/${rootId}?view=graph`);
  const graph = page.getByTestId('topology-graph');
  // it opens readable, on part of it (the root's children: 12 services and their pods)
  await expect(graph.getByRole('status')).toHaveText('252 components', LOAD);
  await expect(graph.locator('.react-flow__node').first()).toBeVisible();
  await expect(graph).toHaveAttribute('data-view', 'nodes');

  await graph.getByRole('button', { name: 'Fit view' }).click();
  await expect(graph).toHaveAttribute('data-view', 'overview');
  // every node on one canvas, named by its counts (each service rolls up its failing pod: warning); the flow's own
  // nodes are gone from the page
  await expect(graph.getByRole('img', { name: 'Overview of 252 nodes: 12 unhealthy, 12 warning, 228 healthy. Zoom in to read and reach them.' })).toBeVisible();
  await expect(graph.locator('.react-flow__node')).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);

  // Zoom In multiplies by 1.2: from the whole graph's zoom to 0.3 takes about a dozen
  for (let i = 0; i < 30 && (await graph.getAttribute('data-view')) === 'overview'; i++) await graph.getByRole('button', { name: 'Zoom In' }).click();
  await expect(graph).toHaveAttribute('data-view', 'nodes');
  await expect(graph.getByTestId('topology-graph-overview')).toHaveCount(0);
  await expect(graph.locator('.react-flow__node').first()).toBeVisible();
});
