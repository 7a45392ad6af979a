import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { CatalogScrapersPage } from './pages/catalog-scrapers-page';
import { signInSession } from './pages/sign-in';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;
const shots = '.tmp/screenshots';

interface StoredScraper {
  id: string;
  name: string;
  namespace: string | null;
  labels: Record<string, string> | null;
  spec: Record<string, unknown>;
  source: string;
  deleted_at: string | null;
}

/** The stored scraper, as /api/db returns it to any client. */
async function stored(name: string): Promise<StoredScraper[]> {
  const res = await admin.api.get('/api/db/config_scrapers', { params: { select: 'id,name,namespace,labels,spec,source,deleted_at', name: `eq.${name}` } });
  expect(res.status()).toBe(200);
  return res.json();
}

async function createScraper(body: Record<string, unknown>): Promise<string> {
  const res = await admin.api.post('/api/db/config_scrapers?select=id', {
    data: { source: 'UI', ...body },
    headers: { 'x-csrf-token': admin.csrf, prefer: 'return=representation', 'content-type': 'application/json' },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json())[0].id;
}

/**
 * Two YAML files the `file` scraper reads, relative to the server's working directory (the repository root, where
 * the e2e server runs): what the scraper finds is known to the test.
 */
function writeFixture(): { dir: string; glob: string } {
  const dir = join('.tmp', 'e2e-scraper-fixtures', unique());
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'web.yaml'), 'id: svc-web\nname: web\nreplicas: 2\n');
  writeFileSync(join(dir, 'db.yaml'), 'id: svc-db\nname: db\nreplicas: 1\n');
  return { dir, glob: `${dir}/*.yaml` };
}

test.describe('Catalog → Scrapers', () => {
  test('a file scraper made with the form is listed, runs now over a fixture directory, and its run is in Job History', async ({ page }) => {
    test.setTimeout(300_000);
    const fixture = writeFixture();
    try {
      const shell = await signInSession(page);
      const scrapers = new CatalogScrapersPage(page);
      await scrapers.goto();
      await expect(scrapers.tab('Scrapers')).toHaveAttribute('aria-selected', 'true');
      await scrapers.addButton.click();
      await expect(page).toHaveURL(/\/catalog\/scrapers\/new$/);

      // the spec's other types are shown, disabled: the server does not run them
      await expect(scrapers.tile('AWS (not supported)')).toHaveAttribute('aria-disabled', 'true');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${shots}/catalog-scrapers-tiles.png`, fullPage: true });
      await scrapers.tile('File').click();

      const name = `e2e-file-${unique()}`;
      await scrapers.field('Name').fill(name);
      // the schedule is required: cleared, Save says so at the field
      await scrapers.select('Schedule').selectOption({ label: 'Select a schedule' });
      await scrapers.button('Save').click();
      await expect(page.getByText('This field is required').first()).toBeVisible();
      await scrapers.select('Schedule').selectOption('@every 30m');
      await scrapers.field('Paths').fill(fixture.glob);
      await page.getByRole('button', { name: 'Add label' }).click();
      await scrapers.field('Key').fill('team');
      await scrapers.field('Value').fill('e2e');
      await page.screenshot({ path: `${shots}/catalog-scrapers-form.png`, fullPage: true });
      await scrapers.button('Save').click();
      await expect(shell.toast(`${name} created successfully`)).toBeVisible();

      const [created] = await stored(name);
      expect(created).toMatchObject({ namespace: 'default', labels: { team: 'e2e' }, source: 'UI' });
      expect(created.spec).toEqual({ schedule: '@every 30m', file: [{ type: 'File', id: '$.id', name: '$.name', paths: [fixture.glob] }] });
      await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${created.id}$`));
      await expect(scrapers.breadcrumb).toContainText(`CatalogScrapers${name}`);
      await expect(scrapers.field('Name')).toBeDisabled();

      // listed with its type, source and schedule; a row opens it
      await scrapers.goto();
      await expect(scrapers.row(name)).toContainText('File');
      await expect(scrapers.row(name)).toContainText('UI');
      await expect(scrapers.row(name)).toContainText('@every 30m');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${shots}/catalog-scrapers-list.png`, fullPage: true });
      await scrapers.row(name).click();
      await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${created.id}$`));

      // Run now: progress, then the result of the run over the two files (the scheduler's first run on creation
      // may have found them already: then they are unchanged)
      await scrapers.runNow.click();
      await expect(scrapers.runStatus).toContainText('Run finished', { timeout: 60_000 });
      await expect(scrapers.runStatus).toContainText('SUCCESS');
      await expect(scrapers.runStatus).toContainText(/\b2 (added|unchanged)\b/);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${shots}/catalog-scrapers-run.png`, fullPage: true });

      await scrapers.tab('Job History').click();
      const run = scrapers.jobsTable.getByRole('row').filter({ hasText: 'SUCCESS' });
      await expect(run.first()).toBeVisible();
      await run.first().click();
      const details = page.getByRole('dialog');
      await details.getByRole('tab', { name: 'Scrape Summary' }).click();
      await expect(details).toContainText('File');
      await expect(details).toContainText(/"(added|unchanged)": 2/);
      await page.screenshot({ path: `${shots}/catalog-scrapers-job-history.png`, fullPage: true });
    } finally {
      rmSync(fixture.dir, { recursive: true, force: true });
    }
  });

  test('a scraper written as code is saved; the Code tab marks a bad spec and the server\'s refusal names its path', async ({ page }) => {
    test.setTimeout(300_000);
    const shell = await signInSession(page);
    const scrapers = new CatalogScrapersPage(page);
    await page.goto('/catalog/scrapers/new');
    // Custom opens the Code tab on a spec with the default schedule
    await scrapers.tile('Custom').click();
    await expect(scrapers.tab('Code')).toHaveAttribute('aria-selected', 'true');
    await scrapers.editorLoaded();
    await expect(scrapers.editor).toContainText('@every 1h');

    // not an object: Code blocks Save; from the Form tab it is refused before sending
    await scrapers.setYaml('- just a list');
    await expect(scrapers.button('Save')).toBeDisabled();
    await scrapers.tab('Form').click();
    await expect(scrapers.problems).toContainText('The spec must be a YAML object');
    await expect(scrapers.tab('Code')).toHaveAttribute('aria-selected', 'true');

    // a scraper list that is not a list: marked in the editor
    await scrapers.setYaml('{schedule: "@every 5m", http: {url: "http://127.0.0.1:9/items"}}');
    await expect(scrapers.errorMarkers().first()).toBeVisible();
    await expect(scrapers.button('Save')).toBeDisabled();

    // a type the console does not run: refused by the server at its path, nothing stored
    const name = `e2e-code-${unique()}`;
    await scrapers.setYaml('{schedule: "@every 5m", aws: [{region: [eu-west-1]}]}');
    await scrapers.tab('Form').click();
    await scrapers.field('Name').fill(name);
    await scrapers.button('Save').click();
    await expect(scrapers.problems).toContainText('spec.aws');
    await expect(scrapers.problems).toContainText('not supported');
    expect(await stored(name)).toEqual([]);

    // a good HTTP scraper written in Code; the Form shows its main fields
    await scrapers.tab('Code').click();
    await scrapers.setYaml('{schedule: "@every 5m", http: [{type: Service, id: "$.id", url: "http://127.0.0.1:9/items", items: "$.items[*]"}]}');
    await expect(scrapers.errorMarkers()).toHaveCount(0);
    await scrapers.tab('Form').click();
    await expect(scrapers.field('URL')).toHaveValue('http://127.0.0.1:9/items');
    await scrapers.button('Save').click();
    await expect(shell.toast(`${name} created successfully`)).toBeVisible();
    const [created] = await stored(name);
    expect(created.spec).toEqual({ schedule: '@every 5m', http: [{ type: 'Service', id: '$.id', url: 'http://127.0.0.1:9/items', items: '$.items[*]', method: 'GET' }] });
    expect(await seriousViolations(page)).toEqual([]);
    await scrapers.tab('Code').click();
    await expect(scrapers.editor).toContainText('items');
    await page.screenshot({ path: `${shots}/catalog-scrapers-code.png`, fullPage: true });

    // Update ends on Integrations (spec 001 §4); Delete too, and the scraper leaves the list
    await scrapers.tab('Form').click();
    await scrapers.select('Schedule').selectOption('@daily');
    await scrapers.button('Update').click();
    await expect(page).toHaveURL(/\/settings\/integrations$/);
    expect((await stored(name))[0].spec.schedule).toBe('@daily');
    await page.goto(`/catalog/scrapers/${created.id}`);
    await scrapers.button('Delete').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page).toHaveURL(/\/settings\/integrations$/);
    expect((await stored(name))[0].deleted_at).not.toBeNull();
    await page.goto(`/catalog/scrapers/${created.id}`);
    await expect(page.getByText('No resources found')).toBeVisible();
  });

  test('a viewer reads scrapers and their runs without write actions; /settings/config_scrapers leads here', async ({ page }) => {
    // pages, an axe scan and a run: over a minute on the shared machine under load
    test.setTimeout(180_000);
    const name = `e2e-viewer-${unique()}`;
    // @never: only Run now runs it (the scheduler would otherwise run it once on creation)
    const id = await createScraper({ name, spec: { schedule: '@never', kubernetes: [{ clusterName: 'e2e' }] } });
    const viewer = await createUser(admin, 'viewer');
    await signInSession(page, viewer.email, viewer.password);
    const scrapers = new CatalogScrapersPage(page);
    await scrapers.goto();
    await expect(scrapers.row(name)).toContainText('Kubernetes');
    await expect(scrapers.addButton).toHaveCount(0);
    await scrapers.row(name).click();
    await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${id}$`));
    await expect(scrapers.field('Cluster name')).toHaveValue('e2e');
    await expect(scrapers.field('Cluster name')).toBeDisabled();
    await expect(scrapers.runNow).toHaveCount(0);
    await expect(scrapers.button('Update')).toHaveCount(0);
    await expect(scrapers.button('Delete')).toHaveCount(0);
    await scrapers.tab('Job History').click();
    await expect(scrapers.jobsTable).toContainText('This scraper has not run yet');
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto('/catalog/scrapers/new');
    await expect(page.getByText('Unauthorized - You do not have permission to access this page')).toBeVisible();

    // the old settings addresses redirect to the catalog's (once the settings pages' code is loaded: slow under load)
    await page.goto('/settings/config_scrapers');
    await expect(page).toHaveURL(/\/catalog\/scrapers$/, { timeout: 30_000 });

    // a run that ends shows on the open list without a reload (live job_history updates)
    await expect(scrapers.row(name)).not.toContainText(/SUCCESS|FAILED/);
    const run = await admin.api.post(`/api/config/run/${id}`, { headers: { 'x-csrf-token': admin.csrf }, timeout: 120_000 });
    expect(run.status(), await run.text()).toBe(200);
    const { status } = (await run.json()) as { status: string };
    await expect(scrapers.row(name)).toContainText(status, { timeout: 30_000 });
    await page.goto(`/settings/config_scrapers/${id}`);
    await expect(page).toHaveURL(new RegExp(`/catalog/scrapers/${id}$`), { timeout: 30_000 });
  });

  test('a ScrapeConfig that Flux applies is read-only from the start, linked to its kustomization', async ({ page }) => {
    // a CR-sourced row as the informers write it (this server has no cluster): the CR's labels name its Flux owner
    const db = await e2eDatabase(admin);
    const name = `e2e-flux-${unique()}`;
    try {
      await db.query(
        `INSERT INTO config_scrapers (name, namespace, labels, spec, source) VALUES ($1, 'apps', $2, $3, 'KubernetesCRD')`,
        [name, { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' }, { schedule: '@never', kubernetes: [{ clusterName: 'flux' }] }],
      );
    } finally {
      await db.end();
    }
    await signInSession(page);
    const scrapers = new CatalogScrapersPage(page);
    await scrapers.goto();
    await expect(scrapers.row(name)).toContainText('Linked to Flux kustomization flux-system/apps');
    await scrapers.row(name).click();
    await expect(page.getByText('Linked to Flux kustomization flux-system/apps')).toBeVisible();
    await expect(scrapers.field('Cluster name')).toBeDisabled();
    await expect(scrapers.button('Update')).toHaveCount(0);
    await expect(scrapers.button('Delete')).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
