import { expect, test } from '@playwright/test';
import { adminApi, type ApiSession } from './api';
import { E2E_PORT } from './env';
import { seriousViolations } from './pages/axe';
import { createPlaybook } from './pages/playbook-runs-page';
import { PlaybooksPage } from './pages/playbooks-page';
import { signIn, signInSession } from './pages/sign-in';

let admin: ApiSession;
const u = `${Date.now()}`;
const checkName = `pb-healthz-${u}`;
let checkId = '';

test.beforeAll(async () => {
  test.setTimeout(120_000);
  admin = await adminApi();
  const res = await admin.api.post('/api/canary', {
    headers: { 'x-csrf-token': admin.csrf },
    data: { name: `e2e-playbooks-${u}`, spec: { schedule: '@every 30s', http: [{ name: checkName, url: `http://127.0.0.1:${E2E_PORT}/healthz` }] } },
  });
  expect(res.status(), await res.text()).toBe(201);
  await expect
    .poll(async () => {
      const r = await admin.api.get('/api/db/checks', { params: { name: `eq.${checkName}`, select: 'id' } });
      checkId = ((await r.json()) as { id: string }[])[0]?.id ?? '';
      return checkId;
    }, { timeout: 60_000 })
    .not.toBe('');
});

test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Playbooks', () => {
  // Monaco's first evaluation and axe scans take tens of seconds on a loaded 2-core machine
  test.describe.configure({ timeout: 240_000 });

  test('creates a playbook in the editor: a schema marker for a bad field, the toast, the card', async ({ page }) => {
    const title = `Created ${u}`;
    const shell = await signIn(page, undefined, undefined, '/playbooks');
    const playbooks = new PlaybooksPage(page);
    await page.getByRole('button', { name: 'Create', exact: true }).first().click();
    await playbooks.editorLoaded();
    await playbooks.field('Title').fill(title);
    await playbooks.setYaml(`{category: E2E ${u}, parameters: [{name: who, type: nope}], actions: [{name: hi, exec: {script: echo hi}}]}`);
    await expect(playbooks.errorMarkers().first()).toBeVisible({ timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);

    await playbooks.setYaml(`{category: E2E ${u}, description: Says hi, parameters: [{name: who, type: text}], actions: [{name: hi, exec: {script: echo hi}}]}`);
    await expect(playbooks.errorMarkers()).toHaveCount(0, { timeout: 30_000 });
    await playbooks.button('Save').click();
    await expect(shell.toast('Playbook Spec created successfully')).toBeVisible();
    await expect(playbooks.card(title)).toBeVisible();
    await expect(page.getByRole('heading', { name: new RegExp(`E2E ${u}`) })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('runs a playbook with every parameter type from the dialog and lands on its run', async ({ page }) => {
    const title = `Every type ${u}`;
    const id = await createPlaybook(admin, title, {
      category: `E2E ${u}`,
      parameters: [
        { name: 'name', label: 'App name', type: 'text', required: true, properties: { format: 'dns1123', maxLength: 20 } },
        { name: 'notes', label: 'Notes', type: 'text', properties: { multiline: 'true' } },
        { name: 'force', label: 'Force', type: 'checkbox' },
        { name: 'env', label: 'Environment', type: 'list', properties: { options: [{ label: 'Staging', value: 'staging' }, { label: 'Production', value: 'prod' }] } },
        { name: 'owner', label: 'Owner', type: 'people' },
        { name: 'team', label: 'Team', type: 'team' },
        { name: 'target', label: 'Target check', type: 'check' },
        { name: 'item', label: 'Related config', type: 'config' },
        { name: 'comp', label: 'Related component', type: 'component' },
        { name: 'values', label: 'Values', type: 'code', properties: { language: 'json' } },
        { name: 'token', label: 'Token', type: 'secret' },
        { name: 'cpu', label: 'CPU', type: 'millicores' },
        { name: 'memory', label: 'Memory', type: 'bytes' },
        { name: 'wait', label: 'Wait', type: 'duration', default: '5m' },
      ],
      actions: [{ name: 'echo', exec: { script: 'echo {{ .params.name }}' } }],
    });
    await signIn(page, undefined, undefined, `/playbooks/${id}`);
    const playbooks = new PlaybooksPage(page);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(playbooks.dialog.getByText('Playbook Parameters')).toBeVisible();

    const name = playbooks.field(/App name/);
    await name.fill('Bad_Name');
    await name.blur();
    await expect(playbooks.dialog.getByText(/Only lowercase letters/)).toBeVisible();
    await expect(playbooks.button('Run')).toBeDisabled();
    await name.fill('my-app');
    await playbooks.field('Notes').fill('line one\nline two');
    await playbooks.dialog.getByRole('checkbox', { name: 'Force' }).check();
    await playbooks.field('Environment').selectOption('prod');
    await playbooks.field('Owner').selectOption({ index: 1 }); // the first person after the placeholder
    await playbooks.pick('Target check', checkName);
    await expect(playbooks.field('Team')).toBeVisible();
    await expect(playbooks.dialog.getByRole('combobox', { name: 'Related config' })).toBeVisible();
    await expect(playbooks.dialog.getByRole('combobox', { name: 'Related component' })).toBeVisible();
    const values = playbooks.field('Values');
    await values.fill('{"replicas": ');
    await values.blur();
    await expect(playbooks.dialog.getByText(/Not valid JSON/)).toBeVisible();
    await values.fill('{"replicas": 2}');
    await playbooks.field('Token').fill('s3cret-token');
    await playbooks.field('CPU').fill('250');
    await playbooks.field(/^Memory$/).fill('512');
    await playbooks.field('Memory unit').selectOption('Mi');
    await expect(playbooks.field('Wait')).toHaveValue('5m');
    expect(await seriousViolations(page)).toEqual([]);

    await playbooks.button('Run').click();
    await expect(page).toHaveURL(/\/playbooks\/runs\/[0-9a-f-]{36}/, { timeout: 30_000 });
    const runId = page.url().split('/playbooks/runs/')[1].split(/[?#]/)[0];
    const run = await admin.api.get(`/api/playbook/run/${runId}`);
    expect(run.status(), await run.text()).toBe(200);
    const params = (await run.json()).parameters as Record<string, string>;
    expect(params).toMatchObject({
      name: 'my-app', notes: 'line one\nline two', force: 'true', env: 'prod', target: checkId,
      values: '{"replicas": 2}', token: '***', cpu: '250m', memory: '512Mi', wait: '5m',
    });
    expect(params.owner).toMatch(/[0-9a-f-]{36}/);
  });

  test('runs a playbook from the check drawer with the check chosen', async ({ page }) => {
    const title = `From drawer ${u}`;
    await createPlaybook(admin, title, {
      category: `E2E ${u}`,
      checks: [{ name: checkName }],
      parameters: [{ name: 'why', label: 'Why', type: 'text', default: 'checking {{ .check.name }}' }],
      actions: [{ name: 'echo', exec: { script: 'echo {{ .params.why }}' } }],
    });
    await signInSession(page);
    // the drawer is modal: the shell behind it is hidden, so sign in first, then open it
    await page.goto(`/health?checkId=${checkId}&timeRange=15m`);
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('button', { name: /^Playbooks/ }).click();
    await page.getByRole('menuitem', { name: title }).click();
    const dialog = page.getByRole('dialog', { name: `Run ${title}` });
    await expect(dialog.getByRole('combobox', { name: 'Check' })).toHaveValue(checkName);
    await expect(dialog.getByLabel('Why')).toHaveValue(`checking ${checkName}`);
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page).toHaveURL(/\/playbooks\/runs\/[0-9a-f-]{36}/, { timeout: 30_000 });

    // the drawer's Playbooks tab lists the check's runs
    await page.goto(`/health?checkId=${checkId}&timeRange=15m`);
    await page.getByRole('dialog').getByRole('tab', { name: 'Playbooks' }).click();
    await expect(page.getByRole('table', { name: `Playbook runs of ${checkName}` }).getByRole('link', { name: title })).toBeVisible();
  });
});
