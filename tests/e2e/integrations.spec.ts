import { expect as baseExpect, test } from '@playwright/test';
import { parseAllDocuments } from 'yaml';
import { adminApi, createUser, type ApiSession } from './api';
import { seriousViolations } from './pages/axe';
import { IntegrationsPage } from './pages/integrations-page';
import { signInSession } from './pages/sign-in';

// the machine running these is shared and loaded: waits get longer, nothing is timed
const expect = baseExpect.configure({ timeout: 30_000 });

let admin: ApiSession;
const unique = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
const topologyName = `payments-${unique}`;
const scraperName = `cluster-${unique}`;
let topologyId = '';

/** Creates a settings resource through /api/db as the reference UI does; returns its id. */
async function create(table: 'topologies' | 'config_scrapers', body: Record<string, unknown>): Promise<string> {
  const res = await admin.api.post(`/api/db/${table}?select=id`, {
    data: { source: 'UI', ...body },
    headers: { 'x-csrf-token': admin.csrf, prefer: 'return=representation', 'content-type': 'application/json' },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json())[0].id;
}

test.beforeAll(async () => {
  admin = await adminApi();
  topologyId = await create('topologies', { name: topologyName, namespace: 'default', spec: { schedule: '@every 5m', components: [] } });
  await create('config_scrapers', { name: scraperName, spec: { kubernetes: [{ clusterName: 'e2e' }] } });
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Settings → Integrations', () => {
  // axe over a page with Monaco and a table takes a while on a shared 2-core machine; no assertion here is timed
  test.describe.configure({ timeout: 240_000 });

  test('lists topologies and scrapers; a row opens its Spec and Job History', async ({ page }) => {
    await signInSession(page);
    const integrations = new IntegrationsPage(page);
    await integrations.goto();
    await expect(integrations.row(topologyName)).toContainText('Topology');
    await expect(integrations.row(scraperName)).toContainText('Catalog Scraper');
    expect(await seriousViolations(page)).toEqual([]);

    await integrations.row(topologyName).click();
    await expect(page).toHaveURL(new RegExp(`/settings/integrations/topologies/${topologyId}$`));
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText(`Integrations${topologyName}`);
    await expect(page.getByRole('region', { name: `${topologyName} spec` })).toContainText('schedule: "@every 5m"');
    await expect(page.getByRole('link', { name: 'Edit Topology' })).toHaveAttribute('href', `/settings/topologies/${topologyId}`);
    expect(await seriousViolations(page)).toEqual([]);
    await integrations.tab('Job History').click();
    await expect(page.getByRole('table', { name: 'Job history' })).toBeVisible();

    await page.goto(`/settings/integrations/widgets/${topologyId}`);
    await expect(page.getByText('Unknown type')).toBeVisible();
  });

  test('Add Integration: the tiles, and a GitOps tile with its defaults and the flux warning', async ({ page }) => {
    const integrations = new IntegrationsPage(page);
    await signInSession(page);
    await integrations.goto();
    await integrations.addButton.click();
    await expect(integrations.dialog.getByRole('heading', { name: 'Add via GitOps' })).toBeVisible();
    for (const t of ['AWS', 'Azure', 'Prometheus', 'Flux', 'Kubernetes', 'Mission Control', 'Custom Topology', 'Catalog Scraper', 'Log Backends']) {
      await expect(integrations.tile(t)).toBeVisible();
    }
    expect(await seriousViolations(page)).toEqual([]);

    await integrations.tile('Kubernetes').click();
    await expect(integrations.dialog.getByRole('heading', { name: 'Add Kubernetes via GitOps' })).toBeVisible();
    await expect(integrations.field('Namespace')).toHaveValue('mission-control');
    await expect(integrations.field('Interval')).toHaveValue('30m');
    await expect(integrations.dialog.getByText('You will need to have the Kubernetes chart installed in Flux')).toBeVisible();
    await expect(integrations.snippet()).toContainText('chart: mission-control-kubernetes');
    expect(await seriousViolations(page)).toEqual([]);

    // values that are not a mapping: no snippet, the reason under the editor
    await integrations.setValues('- just a list');
    await expect(integrations.dialog.getByText('Values must be a YAML mapping (key: value)')).toBeVisible();
    await expect(integrations.snippet()).toHaveCount(0);

    await integrations.dialog.getByRole('button', { name: 'Back' }).click();
    await integrations.tile('Custom Topology').click();
    await expect(page).toHaveURL(/\/settings\/topologies\/new$/);
  });

  test('Add via GitOps: edited values reach the Flux YAML and the helm command, and copy', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const shell = await signInSession(page);
    const integrations = new IntegrationsPage(page);
    await integrations.goto();
    await integrations.addButton.click();
    await integrations.tile('AWS').click();
    await expect(integrations.dialog.getByRole('heading', { name: 'Add AWS via GitOps' })).toBeVisible();

    await integrations.field('Namespace').fill('aws-bundle');
    await integrations.setValues('{regions: [eu-west-1, us-east-1], accountId: "0123", a.b: dotted, scraper: {enabled: true}}');
    const flux = integrations.snippet();
    await expect(flux).toContainText('accountId: "0123"');
    const docs = parseAllDocuments((await flux.textContent()) ?? '').map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(['HelmRepository', 'HelmRelease']);
    expect(docs[1].metadata.namespace).toBe('aws-bundle');
    expect(docs[1].spec.chart.spec.chart).toBe('mission-control-aws');
    expect(docs[1].spec.values).toEqual({ regions: ['eu-west-1', 'us-east-1'], accountId: '0123', 'a.b': 'dotted', scraper: { enabled: true } });

    await integrations.dialog.getByRole('button', { name: 'Copy YAML' }).click();
    await expect(shell.toast('Copied to clipboard')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await flux.textContent());

    await integrations.tab('Helm CLI').click();
    const helm = integrations.snippet();
    await expect(helm).toContainText('helm upgrade --install mission-control-aws flanksource/mission-control-aws --version');
    await expect(helm).toContainText("-n aws-bundle --create-namespace -f - <<'EOF'");
    await expect(helm).toContainText('a.b: dotted');
    await integrations.dialog.getByRole('button', { name: 'Copy command' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('accountId: "0123"');
  });

  test('a viewer sees the list without Add Integration', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    await signInSession(page, viewer.email, viewer.password);
    const integrations = new IntegrationsPage(page);
    await integrations.goto();
    await expect(integrations.row(topologyName)).toBeVisible();
    await expect(integrations.addButton).toHaveCount(0);
  });
});
