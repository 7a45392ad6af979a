import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { seriousViolations } from './pages/axe';
import { SettingsResourcesPage } from './pages/settings-resources-page';
import { Shell } from './pages/shell';
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

/** The stored topology, as /api/db returns it to any client. */
async function storedTopology(name: string) {
  const res = await admin.api.get('/api/db/topologies', { params: { select: 'id,name,namespace,labels,spec,source,deleted_at', name: `eq.${name}` } });
  expect(res.status()).toBe(200);
  return (await res.json()) as { id: string; namespace: string; labels: Record<string, string> | null; spec: Record<string, unknown>; source: string; deleted_at: string | null }[];
}

test.describe('Settings → Topologies (generic settings resource)', () => {
  test('a topology is created from a type tile, updated in Code, deleted; each write ends on Integrations', async ({ page }) => {
    test.setTimeout(480_000);
    const shell = await signInSession(page);
    const topologies = new SettingsResourcesPage(page, 'topologies', 'Topologies', 'Topology');
    await topologies.goto();
    await topologies.addButton.click();
    await expect(page).toHaveURL(/\/settings\/topologies\/new$/);

    // a type tile first; its template starts the spec
    await topologies.tile('Kubernetes').click();
    const name = `e2e-topology-${unique()}`;
    await topologies.field('Name').fill(name);
    await topologies.field('Namespace').fill('ops');
    await page.getByRole('button', { name: 'Add label' }).click();
    await topologies.field('Key').fill('team');
    await topologies.field('Value').fill('e2e');

    // the Code tab starts from the tile's template, checked against the Topology schema
    await topologies.tab('Code').click();
    await expect(topologies.editor).toContainText('KubernetesCluster');
    await topologies.setYaml('{type: KubernetesCluster, icon: kubernetes, components: [{name: nodes, type: KubernetesNodes}]}');
    await expect(topologies.errorMarkers()).toHaveCount(0);
    await topologies.button('Save').click();
    await expect(shell.toast(`${name} created successfully`)).toBeVisible();
    await expect(page).toHaveURL(/\/settings\/integrations$/);

    const [created] = await storedTopology(name);
    expect(created).toMatchObject({ namespace: 'ops', labels: { team: 'e2e' }, source: 'UI' });
    expect(created.spec).toMatchObject({ type: 'KubernetesCluster', components: [{ name: 'nodes', type: 'KubernetesNodes' }] });

    // listed with its namespace (topologies hide Schedule); a row opens its page
    await topologies.goto();
    await expect(topologies.row(name)).toContainText('ops');
    await expect(topologies.table.getByRole('columnheader', { name: 'Schedule' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Add Topology' }).or(topologies.addButton).focus();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${shots}/settings-resources-list.png`, fullPage: true });
    await topologies.row(name).click();
    await expect(page).toHaveURL(new RegExp(`/settings/topologies/${created.id}$`));
    await expect(topologies.breadcrumb).toContainText(`Topologies${name}`);
    await expect(topologies.field('Name')).toBeDisabled();
    await expect(topologies.field('Namespace')).toBeDisabled();
    await expect(topologies.button('Update')).toBeVisible();
    await topologies.tab('Form').focus();
    expect(await seriousViolations(page)).toEqual([]);

    // a spec the schema refuses (components must be a list) blocks Update; a good one saves
    await topologies.tab('Code').click();
    await topologies.setYaml('{type: KubernetesCluster, components: 5}');
    await expect(topologies.errorMarkers().first()).toBeVisible();
    await expect(topologies.button('Update')).toBeDisabled();
    await topologies.setYaml('{type: KubernetesCluster, components: [{name: nodes, type: KubernetesNodes}, {name: pods, type: KubernetesPods}]}');
    await expect(topologies.errorMarkers()).toHaveCount(0);
    await page.screenshot({ path: `${shots}/settings-resources-detail.png`, fullPage: true });
    await topologies.button('Update').click();
    await expect(shell.toast(`${name} updated successfully`)).toBeVisible();
    await expect(page).toHaveURL(/\/settings\/integrations$/);
    await expect.poll(async () => (await storedTopology(name))[0].spec.components).toEqual([
      { name: 'nodes', type: 'KubernetesNodes' },
      { name: 'pods', type: 'KubernetesPods' },
    ]);

    await page.goto(`/settings/topologies/${created.id}`);
    await topologies.tab('Job History').click();
    await expect(page.getByRole('table', { name: 'Job history' })).toBeVisible();
    await topologies.tab('Spec').click();
    await topologies.button('Delete').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page).toHaveURL(/\/settings\/integrations$/);
    await expect(shell.toast(`${name} deleted successfully`)).toBeVisible();
    expect((await storedTopology(name))[0].deleted_at).not.toBeNull();
    await topologies.goto();
    await expect(topologies.row(name)).toHaveCount(0);
    await page.goto(`/settings/topologies/${created.id}`);
    await expect(page.getByText('No resources found')).toBeVisible();
  });

  // the scraper editor's refusals (not an object, a list that is not a list, a path the server names) moved with the
  // scrapers to /catalog/scrapers: tests/e2e/catalog-scrapers.spec.ts

  test('a viewer sees the list without Add; an unknown table is not found', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    await signInSession(page, viewer.email, viewer.password);
    const topologies = new SettingsResourcesPage(page, 'topologies', 'Topologies', 'Topology');
    await topologies.goto();
    await expect(topologies.addButton).toHaveCount(0);
    await page.goto('/settings/topologies/new');
    await expect(page.getByText('Unauthorized - You do not have permission to access this page')).toBeVisible();
    await page.goto('/settings/no_such_table');
    await expect(page.getByRole('heading', { name: 'Page not found', level: 2 })).toBeVisible();
  });
});
