import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { CatalogChangesPage } from './pages/catalog-changes-page';
import { signIn } from './pages/sign-in';

const u = `${Date.now().toString(36)}`;
const shots = '.tmp/screenshots';
const ids: Record<string, string> = {};
let admin: ApiSession;
let db: pg.Client;
const longMessage = `<p>Container <b>web</b> uses the image tag <code>latest</code>.</p> ${'Pin the image to a digest. '.repeat(40)}`;

// catalog rows are written by scrapers only (read-only in /api/db): seeded with SQL into the e2e server's database
test.beforeAll(async () => {
  admin = await adminApi();
  db = await e2eDatabase(admin);
  const one = async (sql: string, params: unknown[]) => (await db.query<{ id: string }>(sql, params)).rows[0].id;
  ids.scraper = await one(`INSERT INTO config_scrapers (name, spec, source) VALUES ($1, '{"schedule":"@never"}', 'UI') RETURNING id`, [`e2e-changes-${u}`]);
  const item = (name: string, type: string, config: unknown = {}, deleted = false) =>
    one(
      `INSERT INTO config_items (scraper_id, config_class, type, name, health, status, config, tags, deleted_at)
       VALUES ($1, $2, $3, $4, 'healthy', 'Running', $5, $6, CASE WHEN $7 THEN now() - interval '1 hour' END) RETURNING id`,
      [ids.scraper, type.split('::').pop(), type, name, config, { cluster: 'e2e', namespace: `shop-${u}` }, deleted],
    );
  ids.web = await item(`web-${u}`, 'Kubernetes::Deployment', { spec: { replicas: 3, image: 'nginx:1.27' } });
  ids.ns = await item(`shop-${u}`, 'Kubernetes::Namespace');
  ids.svc = await item(`web-svc-${u}`, 'Kubernetes::Service');
  ids.cm = await item(`web-cm-${u}`, 'Kubernetes::ConfigMap');
  ids.gone = await item(`old-job-${u}`, 'Kubernetes::Job', {}, true);
  for (let i = 1; i <= 4; i++) ids[`pod${i}`] = await item(`web-${u}-pod-${i}`, 'Kubernetes::Pod');
  ids.deletedPod = await item(`web-${u}-pod-old`, 'Kubernetes::Pod', {}, true);

  const link = (from: string, to: string, relation: string, manual = false) =>
    db.query(
      `INSERT INTO config_relationships (config_id, related_id, relation, scraper_id, selector_id) VALUES ($1, $2, $3, $4, $5)`,
      [from, to, relation, manual ? null : ids.scraper, manual ? 'manual' : null],
    );
  for (let i = 1; i <= 4; i++) await link(ids.web, ids[`pod${i}`], 'hard');
  await link(ids.web, ids.deletedPod, 'hard');
  await link(ids.ns, ids.web, 'hard');
  await link(ids.web, ids.svc, 'soft');
  await link(ids.web, ids.cm, 'hard', true);

  const change = (configId: string, type: string, severity: string, summary: string, ago: string, extra: Record<string, unknown> = {}) =>
    one(
      `INSERT INTO config_changes (config_id, change_type, severity, source, summary, created_at, first_observed, diff, patches, details)
       VALUES ($1, $2, $3, $4, $5, now() - $6::interval, now() - $6::interval, $7, $8, $9) RETURNING id`,
      [configId, type, severity, extra.source ?? 'e2e-scraper', summary, ago, extra.diff ?? null, extra.patches ?? null, extra.details ?? null],
    );
  // replicas 1 -> 2 (and image 1.25 -> 1.27) -> 3; each patch goes from the new config to the previous one
  ids.diffOld = await change(ids.web, 'diff', 'medium', `spec.image ${u}`, '3 hours', {
    diff: '@@ -1,2 +1,2 @@\n-  replicas: 1\n-  image: nginx:1.25\n+  replicas: 2\n+  image: nginx:1.27',
    patches: { spec: { replicas: 1, image: 'nginx:1.25' } },
  });
  ids.diffNew = await change(ids.web, 'diff', 'high', `spec.replicas ${u}`, '1 hour', {
    diff: '@@ -1 +1 @@\n-  replicas: 2\n+  replicas: 3',
    patches: { spec: { replicas: 2 } },
  });
  await change(ids.web, 'Pulled', 'info', `image pulled ${u}`, '30 minutes', { source: 'kubelet', details: { image: 'nginx:1.27' } });
  await change(ids.gone, 'diff', 'low', `deleted job edit ${u}`, '2 hours');
  await change(ids.web, 'diff', 'critical', `last week ${u}`, '5 days');

  await db.query(
    `INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, summary, status, message, analysis)
     VALUES ($1, $2, 'security', 'high', 'latest image tag', 'open', $3, '{"container":"web"}'),
            ($1, $4, 'reliability', 'low', 'was fixed', 'resolved', 'fixed', '{}')`,
    [ids.web, `latest-tag-${u}`, longMessage, `old-finding-${u}`],
  );
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
});

// each test walks a whole screen with axe scans; a loaded machine needs more than the suite's 60 s
test.describe.configure({ timeout: 180_000 });

test.describe('Catalog → Changes', () => {
  test('lists the last 2 days newest first without deleted configs; filters live in the URL; graph is a stored preference', async ({ page }) => {
    mkdirSync(shots, { recursive: true });
    await signIn(page);
    const c = new CatalogChangesPage(page);
    await c.gotoChanges(`?tags=namespace____shop-${u}:1`);
    await expect(c.changeRow(`spec.replicas ${u}`)).toBeVisible();
    await expect(c.changeRow(`image pulled ${u}`)).toBeVisible();
    // newest first: the Pulled change (30 minutes ago) above the replicas change (1 hour ago)
    const rows = c.changesTable.getByRole('row').filter({ hasText: u });
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(0)).toContainText(`image pulled ${u}`);
    await expect(rows.nth(2)).toContainText(`spec.image ${u}`);
    // older than 2 days and changes of deleted configs are not shown
    await expect(c.changeRow(`last week ${u}`)).toHaveCount(0);
    await expect(c.changeRow(`deleted job edit ${u}`)).toHaveCount(0);
    await page.screenshot({ path: `${shots}/catalog-changes.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await c.chooseIn(c.changeFilters, 'Change Type', 'Pulled');
    await expect.poll(() => c.url().searchParams.get('changeType')).toBe('Pulled:1');
    await expect(c.changeRow(`image pulled ${u}`)).toBeVisible();
    await expect(c.changeRow(`spec.replicas ${u}`)).toHaveCount(0);
    await c.changeFilters.getByRole('button', { name: 'Reset' }).click();
    await expect(c.changeRow(`spec.replicas ${u}`)).toBeVisible();

    // severity: high and above
    await c.chooseIn(c.changeFilters, 'Severity', 'High');
    await expect.poll(() => c.url().searchParams.get('severity')).toBe('high');
    await expect(c.changeRow(`spec.replicas ${u}`)).toBeVisible();
    await expect(c.changeRow(`spec.image ${u}`)).toHaveCount(0);
    await c.chooseIn(c.changeFilters, 'Severity', 'All');

    // a source value filters by it (the arbitrary filter), shown as a removable chip
    await c.changeRow(`image pulled ${u}`).getByRole('button', { name: 'kubelet' }).click();
    await expect.poll(() => c.url().searchParams.get('source')).toBe('kubelet');
    await expect(c.changeRow(`spec.replicas ${u}`)).toHaveCount(0);
    await page.getByRole('button', { name: 'Remove Source filter' }).click();
    await expect.poll(() => c.url().searchParams.get('source')).toBeNull();

    // the preference shows changes of deleted configs too
    await c.changeFilters.getByRole('switch', { name: 'Show deleted configs' }).check();
    await expect(c.changeRow(`deleted job edit ${u}`)).toBeVisible();
    await c.changeFilters.getByRole('switch', { name: 'Show deleted configs' }).uncheck();
    await expect(c.changeRow(`deleted job edit ${u}`)).toHaveCount(0);

    // one kept config type: the breadcrumb's type crumb links to the catalog of that type
    await c.gotoChanges(`?tags=namespace____shop-${u}:1&configTypes=Kubernetes::Deployment:1`);
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Kubernetes::Deployment' }))
      .toHaveAttribute('href', '/catalog?configType=Kubernetes%3A%3ADeployment');

    await c.view('Graph').click();
    const chart = page.getByRole('img', { name: /Changes over time/ });
    await expect(chart).toHaveAttribute('data-plotted', '3');
    await page.screenshot({ path: `${shots}/catalog-changes-graph.png`, fullPage: true });
    await page.reload();
    await expect(c.view('Graph')).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('img', { name: /Changes over time/ })).toBeVisible();
    await c.view('Table').click();
  });

  test('a change opens its detail with the diff and patches; Compare versions shows the two versions side by side', async ({ page }) => {
    await signIn(page);
    const c = new CatalogChangesPage(page);
    await c.gotoChanges(`?tags=namespace____shop-${u}:1`);
    await c.changeRow(`spec.replicas ${u}`).getByRole('cell').last().click();
    await expect(c.dialog).toContainText(`spec.replicas ${u}`);
    await expect(c.dialog.getByLabel('Diff', { exact: true }).first()).toContainText('+  replicas: 3');
    await expect(c.dialog.getByRole('region', { name: 'Patches' }).first()).toContainText('"replicas"');
    expect(await seriousViolations(page)).toEqual([]);
    await c.dialog.getByRole('button', { name: 'Compare versions' }).click();
    await expect(page).toHaveURL(new RegExp(`/catalog/${ids.web}/changes\\?compare=before%3A${ids.diffNew}\\.\\.${ids.diffNew}`));
    const diff = page.getByTestId('version-diff');
    await expect(diff.locator('.monaco-diff-editor')).toBeVisible({ timeout: 30_000 });
    // left: the version before the change (replicas 2), right: the one it made (replicas 3)
    await expect(diff.locator('.editor.original')).toContainText('"replicas": 2');
    await expect(diff.locator('.editor.modified')).toContainText('"replicas": 3');
    await page.screenshot({ path: `${shots}/catalog-changes-compare.png` });
    // another pair: the oldest known version against the current one
    await page.goto(`/catalog/${ids.web}/changes?compare=before:${ids.diffOld}..current`);
    await expect(page.getByTestId('version-diff').locator('.editor.original')).toContainText('nginx:1.25', { timeout: 30_000 });
    await expect(page.getByTestId('version-diff').locator('.editor.modified')).toContainText('"replicas": 3');
  });
});

test.describe('Catalog → Insights', () => {
  test('open insights by default; a row opens its detail with the message as plain text cut at 500 characters', async ({ page }) => {
    await signIn(page);
    const c = new CatalogChangesPage(page);
    await c.gotoInsights();
    await expect(c.insightRow(`latest-tag-${u}`)).toBeVisible();
    await expect(c.insightRow(`old-finding-${u}`)).toHaveCount(0);
    await page.screenshot({ path: `${shots}/catalog-insights.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await c.insightRow(`latest-tag-${u}`).getByRole('cell').nth(2).click();
    const message = c.dialog.getByTestId('insight-message');
    await expect(message).toContainText('Container web uses the image tag latest.');
    const text = (await message.textContent()) ?? '';
    expect(text).not.toContain('<');
    expect(text.length).toBe(501);
    expect(text.endsWith('…')).toBe(true);
    await page.keyboard.press('Escape');

    await c.chooseIn(c.insightFilters, 'Status', 'All');
    await expect.poll(() => c.url().searchParams.get('status')).toBe('all');
    await expect(c.insightRow(`old-finding-${u}`)).toBeVisible();
    await c.chooseIn(c.insightFilters, 'Severity', 'High');
    await expect(c.insightRow(`old-finding-${u}`)).toHaveCount(0);
    await expect(c.insightRow(`latest-tag-${u}`)).toBeVisible();
  });
});

test.describe('Catalog item → Relationships', () => {
  test('toggles follow the rules; the graph groups and expands; a hand-made link is unlinked after confirmation', async ({ page }) => {
    await signIn(page);
    const c = new CatalogChangesPage(page);
    await page.evaluate(() => localStorage.removeItem('catalog.relationships.view'));
    await c.gotoRelationships(ids.web);
    // defaults: outgoing hard links; the deleted pod, the parent namespace and the soft service are not listed
    await expect(c.relatedRow(`web-${u}-pod-1`)).toBeVisible();
    await expect(c.relatedRow(`web-cm-${u}`)).toBeVisible();
    await expect(c.relatedRow(`shop-${u}`)).toHaveCount(0);
    await expect(c.relatedRow(`web-svc-${u}`)).toHaveCount(0);
    await expect(c.relatedRow(`web-${u}-pod-old`)).toHaveCount(0);
    await expect(c.switch('Outgoing')).toBeChecked();
    await expect(c.switch('Outgoing')).toBeDisabled();
    await expect(c.switch('Incoming')).not.toBeChecked();
    expect(await seriousViolations(page)).toEqual([]);

    await c.switch('Incoming').check();
    await expect(c.relatedRow(`shop-${u}`)).toBeVisible();
    await expect(c.relatedRow(`web-${u}-pod-1`)).toBeVisible();
    await expect(c.switch('Outgoing')).toBeEnabled();
    await c.switch('Outgoing').uncheck();
    await expect(c.relatedRow(`web-${u}-pod-1`)).toHaveCount(0);
    await expect(c.relatedRow(`shop-${u}`)).toBeVisible();
    // Incoming off forces Outgoing back on
    await c.switch('Incoming').uncheck();
    await expect(c.switch('Outgoing')).toBeChecked();
    await expect(c.relatedRow(`web-${u}-pod-1`)).toBeVisible();
    await c.switch('Soft').check();
    await expect.poll(() => c.url().searchParams.get('relation')).toBe('soft');
    await expect(c.relatedRow(`web-svc-${u}`)).toBeVisible();
    await c.switch('Show deleted').check();
    await expect(c.relatedRow(`web-${u}-pod-old`)).toBeVisible();
    await c.switch('Show deleted').uncheck();

    // graph: four pods behind one collapsed type node; a click opens the group
    await c.view('Graph', 'Relationships view').click();
    const graph = page.getByTestId('relationships-graph');
    await expect(graph.getByTestId('graph-node-Kubernetes::Pod')).toBeVisible({ timeout: 20_000 });
    await expect(graph.getByTestId(`graph-node-web-${u}-pod-1`)).toHaveCount(0);
    await expect(graph.getByTestId(`graph-node-web-${u}-pod-old`)).toHaveCount(0);
    await graph.getByRole('button', { name: 'Expand Kubernetes::Pod (4)' }).click();
    await expect(graph.getByTestId(`graph-node-web-${u}-pod-1`)).toBeVisible();
    await page.getByRole('tablist', { name: 'Graph layout' }).getByRole('tab', { name: 'Left to right' }).click();
    await expect(graph.getByTestId(`graph-node-web-${u}-pod-4`)).toBeVisible();
    await page.screenshot({ path: `${shots}/catalog-relationships-graph.png` });
    await c.view('Table', 'Relationships view').click();

    // only the hand-made link offers Unlink
    await expect(c.relatedRow(`web-${u}-pod-1`).getByRole('button', { name: 'Unlink' })).toHaveCount(0);
    await c.relatedRow(`web-cm-${u}`).getByRole('button', { name: 'Unlink' }).click();
    await expect(c.dialog).toContainText('Are you sure you want to delete this config link');
    await c.dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Deleted config link successfully')).toBeVisible();
    await expect(c.relatedRow(`web-cm-${u}`)).toHaveCount(0);
    const left = await db.query('SELECT 1 FROM config_relationships WHERE config_id = $1 AND related_id = $2', [ids.web, ids.cm]);
    expect(left.rowCount).toBe(0);
  });
});
