import { expect, test } from '@playwright/test';
import { adminApi, type ApiSession } from './api';
import { E2E_PORT } from './env';
import { JobsPage } from './pages/jobs-page';
import { seriousViolations } from './pages/axe';
import { signInSession } from './pages/sign-in';

// Job rows come from real canary runs: one canary that fails (a closed port), one that passes (this server's port).
let admin: ApiSession;
const stamp = Date.now();
const failing = `e2e-jobs-failing-${stamp}`;
const passing = `e2e-jobs-passing-${stamp}`;
const ids: string[] = [];

async function createCanary(name: string, endpoint: string) {
  const res = await admin.api.post('/api/canary', {
    headers: { 'x-csrf-token': admin.csrf },
    data: { name, spec: { schedule: '@every 5m', tcp: [{ name: `${name}-tcp`, endpoint }] } },
  });
  expect(res.status(), await res.text()).toBe(201);
  ids.push((await res.json()).id);
}

async function runsOf(id: string, status: string) {
  const res = await admin.api.get('/api/db/job_histories', { params: { resource_id: `eq.${id}`, status: `eq.${status}`, select: 'id' } });
  return ((await res.json()) as unknown[]).length;
}

test.beforeAll(async () => {
  admin = await adminApi();
  await createCanary(failing, '127.0.0.1:1');
  await createCanary(passing, `127.0.0.1:${E2E_PORT}`);
  // the scheduler runs a canary as soon as it loads it
  await expect.poll(() => runsOf(ids[0], 'FAILED'), { timeout: 30_000 }).toBeGreaterThan(0);
  await expect.poll(() => runsOf(ids[1], 'SUCCESS'), { timeout: 30_000 }).toBeGreaterThan(0);
});
test.afterAll(async () => {
  for (const id of ids) await admin.api.delete(`/api/canary/${id}`, { headers: { 'x-csrf-token': admin.csrf } });
  await admin.api.dispose();
});

test.describe('Settings → Job History', () => {
  test('hides SUCCESS by default; filters change the URL and the rows', async ({ page }) => {
    await signInSession(page);
    const jobs = new JobsPage(page);
    await jobs.goto();
    await expect(jobs.rowsOf(failing).first()).toBeVisible();
    await expect(jobs.rowsOf(failing).first()).toContainText('FAILED');
    await expect(jobs.rowsOf(passing)).toHaveCount(0);

    await jobs.choose('Status', 'All');
    await expect.poll(() => jobs.url().searchParams.get('status')).toBe('all');
    await expect(jobs.rowsOf(passing).first()).toBeVisible();

    await jobs.choose('Status', 'Success');
    await expect.poll(() => jobs.url().searchParams.get('status')).toBe('SUCCESS');
    await expect(jobs.rowsOf(passing).first()).toBeVisible();
    await expect(jobs.rowsOf(failing)).toHaveCount(0);

    // a job name click filters by it
    await jobs.choose('Status', 'All');
    await jobs.rowsOf(failing).first().getByRole('button', { name: 'Canary' }).click();
    await expect.poll(() => jobs.url().searchParams.get('name')).toBe('Canary');

    await jobs.choose('Resource Type', 'Topology');
    await expect.poll(() => jobs.url().searchParams.get('resourceType')).toBe('topology');
    await expect(jobs.rowsOf(failing)).toHaveCount(0);
    await expect(jobs.table).toContainText('No job runs match these filters');

    await jobs.choose('Resource Type', 'Canary');
    await expect(jobs.rowsOf(failing).first()).toBeVisible();
    await jobs.minDuration.fill('3600000');
    await expect.poll(() => jobs.url().searchParams.get('duration')).toBe('3600000');
    await expect(jobs.rowsOf(failing)).toHaveCount(0);
  });

  test("a row opens its details: the run's errors, empty summaries", async ({ page }) => {
    await signInSession(page);
    const jobs = new JobsPage(page);
    await jobs.goto();
    await jobs.rowsOf(failing).first().getByRole('cell').first().click();
    await expect(jobs.dialog.getByText('Details for job Canary')).toBeVisible();
    await expect(jobs.dialog.getByRole('list', { name: 'Errors' }).getByRole('listitem').first()).not.toBeEmpty();
    expect(await seriousViolations(page)).toEqual([]);
    await jobs.dialog.getByRole('tab', { name: 'Scrape Summary' }).click();
    await expect(jobs.dialog.getByText('No details found')).toBeVisible();
    await jobs.dialog.getByRole('tab', { name: 'Reconcile Summary' }).click();
    await expect(jobs.dialog.getByText('No details found')).toBeVisible();
  });

  test('the resource links to its settings page and copies its id', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const shell = await signInSession(page);
    const jobs = new JobsPage(page);
    await jobs.goto();
    await jobs.rowsOf(failing).first().getByRole('button', { name: `Copy ${ids[0]}` }).click();
    await expect(shell.toast(`Copied ${ids[0]} to clipboard`)).toBeVisible();
    await jobs.rowsOf(failing).first().getByRole('link', { name: failing }).click();
    await expect(page).toHaveURL(new RegExp(`/settings/canaries/${ids[0]}$`));
  });

  test('a bad filter in the link says what is wrong instead of failing; axe finds nothing serious', async ({ page }) => {
    await signInSession(page);
    const jobs = new JobsPage(page);
    await jobs.goto('?status=BANANA');
    await expect(page.getByRole('alert')).toContainText('Unknown status "BANANA"');
    await jobs.goto('?duration=fast');
    await expect(page.getByRole('alert')).toContainText('Minimum duration "fast"');
    await page.getByRole('button', { name: 'Reset filters' }).click();
    await expect(jobs.rowsOf(failing).first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
