import { expect, test, type Page } from '@playwright/test';
import { adminApi, createUser, deleteProperty, setProperty, type ApiSession } from './api';
import { E2E_PORT } from './env';
import { dbGet, IncidentsPage, seedIncident } from './pages/incidents-page';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { signIn, signInSession } from './pages/sign-in';

let admin: ApiSession;
const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;
const shots = (name: string) => `.tmp/screenshots/incidents-${name}.png`;

test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Incidents', () => {
  test('create an incident from the modal; it is listed and detailed with its INC id', async ({ page }) => {
    const shell = await signInSession(page);
    const incidents = new IncidentsPage(page);
    await incidents.goto();
    const title = `Checkout latency ${unique()}`;

    await incidents.createButton.click();
    const dialog = incidents.dialog;
    await expect(dialog.getByRole('heading', { name: 'Create Incident' })).toBeVisible();
    // the spec's defaults
    await expect(dialog.getByRole('combobox', { name: /Severity/ })).toHaveValue('low');
    await expect(dialog.getByRole('combobox', { name: /Status/ })).toHaveValue('open');
    await expect(dialog.getByRole('combobox', { name: /Type/ })).toHaveValue('availability');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog.getByText('This field is required')).toBeVisible();

    await dialog.getByRole('textbox', { name: /Title/ }).fill(title);
    await dialog.getByRole('textbox', { name: /Description/ }).fill('p99 above 2 s on /checkout');
    await dialog.getByRole('combobox', { name: /Severity/ }).selectOption('high');
    await page.screenshot({ path: shots('create-modal') });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/incidents\/[0-9a-f-]{36}$/);
    const heading = page.getByRole('heading', { level: 2 });
    await expect(heading).toContainText(title);
    await expect(heading).toContainText(/INC-\d+/);
    const incId = (await heading.textContent())!.match(/INC-\d+/)![0];
    await expect(shell.toast(`${incId} created successfully`)).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText(`Incidents${incId}`);
    // severity and type are edited from the details panel
    const priority = incidents.side.getByRole('combobox', { name: 'Incident priority' });
    await expect(priority).toHaveValue('high');
    await priority.selectOption('critical');
    await expect(incidents.changelog()).toContainText('changed severity from high to critical');

    // the creation sequence made the root hypothesis (type root, status possible)
    const id = page.url().split('/').pop()!;
    const [row] = await dbGet<{ hypotheses: { type: string; status: string; title: string }[] }>(admin, `incidents?id=eq.${id}&select=hypotheses(type,status,title)`);
    expect(row.hypotheses).toEqual([{ type: 'root', status: 'possible', title }]);

    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Incidents' }).click();
    await expect(incidents.row(title)).toContainText(incId);
    await expect(incidents.row(title)).toContainText('open');
    await expect(incidents.row(title)).toContainText('Availability');
    await page.screenshot({ path: shots('list'), fullPage: true });

    // filters live in the URL; "all" is left out of the query
    await page.getByRole('searchbox').fill(title);
    await expect(page).toHaveURL(new RegExp(`search=${encodeURIComponent(title).replace(/%20/g, '(\\+|%20)')}`));
    await expect(incidents.table.getByRole('row')).toHaveCount(2);
    await page.getByRole('searchbox').fill(`no such incident ${unique()}`);
    await expect(page.getByText('There are no incidents matching this criteria')).toBeVisible();

    await incidents.goto(`?search=${encodeURIComponent(title)}`);
    await incidents.row(title).click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${id}$`));
  });

  test('status change through the definition-of-done dialog, then Close and Reopen', async ({ page }) => {
    const shell = await signIn(page);
    const seeded = await seedIncident(admin, `Disk full ${unique()}`, [
      { type: 'log', description: 'No space left on device', evidence: { lines: [{ message: 'write /var/lib: no space left on device' }] } },
      { type: 'config', description: 'PVC sized 1Gi', evidence: { configName: 'data-volume' } },
    ]);
    const incidents = new IncidentsPage(page);
    await incidents.open(seeded.id);

    // open offers every target but new
    await incidents.statusDropdown().click();
    await expect(page.getByRole('listbox').getByRole('option')).toHaveText(['Open', 'Investigating', 'Mitigated', 'Resolved', 'Closed']);
    await page.getByRole('option', { name: 'Mitigated' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add contributing factors to definition of done' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(incidents.statusDropdown()).toHaveText('Open');

    await incidents.chooseStatus('Mitigated');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await expect(dialog.getByText('Please select atleast one evidence')).toBeVisible();
    await dialog.getByRole('checkbox', { name: 'No space left on device' }).check();
    await page.screenshot({ path: shots('contributing-factors') });
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await expect(shell.toast('Incident status updated successfully')).toBeVisible();
    await expect(incidents.statusDropdown()).toHaveText('Mitigated');
    const dod = incidents.side.getByRole('list', { name: 'Definition of done' });
    await expect(dod).toContainText('No space left on device');
    await expect(dod).not.toContainText('PVC sized 1Gi');

    // from mitigated: mitigated, resolved, closed, open
    await incidents.statusDropdown().click();
    await expect(page.getByRole('listbox').getByRole('option')).toHaveText(['Mitigated', 'Resolved', 'Closed', 'Open']);
    await page.getByRole('option', { name: 'Resolved' }).click();
    await dialog.getByRole('button', { name: 'Skip' }).click();
    await expect(incidents.statusDropdown()).toHaveText('Resolved');

    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(incidents.statusDropdown()).toHaveText('Closed');
    await page.getByRole('button', { name: 'Reopen' }).click();
    await expect(incidents.statusDropdown()).toHaveText('Open');
    const [row] = await dbGet<{ status: string }>(admin, `incidents?id=eq.${seeded.id}&select=status`);
    expect(row.status).toBe('open');

    // the changelog names each event
    const log = incidents.changelog();
    await expect(log).toContainText('created the incident');
    await expect(log).toContainText('changed the status from open to mitigated');
    await expect(log).toContainText('to the definition of done');
    await expect(log).toContainText('changed the status from closed to open');
    await expect(log.locator('[data-event="evidence.created"]')).toHaveCount(2);
  });

  test('definition of done: automatic with a script, manual text, done toggling and removal', async ({ page }) => {
    await signIn(page);
    const seeded = await seedIncident(admin, `Error budget ${unique()}`, [
      { type: 'log', description: '5xx spike on ingress', evidence: { lines: [{ message: 'upstream timed out' }] } },
      { type: 'comment', description: 'Customer report', evidence: { comment: 'Customers see 502s' } },
    ]);
    const incidents = new IncidentsPage(page);
    await incidents.open(seeded.id);
    const dod = incidents.side.getByRole('list', { name: 'Definition of done' });

    await incidents.side.getByRole('button', { name: 'Add definition of done' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add definition of done' });
    await expect(dialog.getByRole('radio', { name: 'Automatic' })).toBeChecked();
    await expect(dialog.getByRole('checkbox', { name: 'Customer report' })).toBeDisabled();
    await expect(dialog.getByRole('button', { name: 'Next' })).toBeDisabled();
    await dialog.getByRole('checkbox', { name: '5xx spike on ingress' }).check();
    await dialog.getByRole('button', { name: 'Next' }).click();
    await dialog.getByRole('textbox', { name: 'Script' }).fill("check.status == 'healthy'");
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    await expect(dod).toContainText('5xx spike on ingress');
    await expect(dod).toContainText("check.status == 'healthy'");

    await incidents.side.getByRole('button', { name: 'Add definition of done' }).click();
    await dialog.getByRole('radio', { name: 'Manual' }).check();
    await expect(dialog.getByRole('button', { name: 'Add', exact: true })).toBeDisabled();
    await dialog.getByRole('textbox', { name: /Definition of done/ }).fill('Status page updated');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(dod).toContainText('Status page updated');

    await dod.getByRole('checkbox', { name: 'Mark as resolved: Status page updated' }).click();
    const confirm = page.getByRole('dialog', { name: 'Mark as resolved' });
    await confirm.getByRole('button', { name: 'Mark as resolved' }).click();
    await expect(dod.getByRole('checkbox', { name: 'Mark as not resolved: Status page updated' })).toBeChecked();
    const [manual] = await dbGet<{ done: boolean; type: string }>(admin, `evidences?description=eq.Status%20page%20updated&hypothesis_id=eq.${seeded.rootId}&select=done,type`);
    expect(manual).toEqual({ done: true, type: 'comment' });

    await dod.getByRole('button', { name: 'Remove 5xx spike on ingress from definition of done' }).click();
    await page.getByRole('dialog', { name: 'Remove from definition of done' }).getByRole('button', { name: 'Remove' }).click();
    await expect(dod).not.toContainText('5xx spike on ingress');
    const [log] = await dbGet<{ definition_of_done: boolean }>(admin, `evidences?id=eq.${seeded.evidenceIds[0]}&select=definition_of_done`);
    expect(log.definition_of_done).toBe(false);
  });

  test('hypotheses: create, edit the title, change the status, disprove and delete', async ({ page }) => {
    await signIn(page);
    const title = `Queue backlog ${unique()}`;
    const seeded = await seedIncident(admin, title);
    const incidents = new IncidentsPage(page);
    await incidents.open(seeded.id, '?tab=plan');
    await expect(incidents.tab('Action Plan')).toHaveAttribute('aria-selected', 'true');

    await incidents.hypothesisAction(title, 'Add factor');
    await incidents.dialog.getByRole('textbox', { name: /Title/ }).fill('Consumer crash loop');
    await incidents.dialog.getByRole('button', { name: 'Add', exact: true }).click();
    const factor = incidents.hypothesis('Consumer crash loop');
    await expect(factor).toBeVisible();

    // the title is saved after a second of quiet
    const input = factor.getByRole('textbox', { name: 'Hypothesis title' }).first();
    await input.fill('Consumer crash loop on deploy');
    await expect
      .poll(async () => (await dbGet<{ title: string }>(admin, `hypotheses?incident_id=eq.${seeded.id}&type=eq.factor&select=title`))[0]?.title)
      .toBe('Consumer crash loop on deploy');

    const edited = incidents.hypothesis('Consumer crash loop on deploy');
    await edited.getByRole('combobox', { name: 'Status of Consumer crash loop on deploy' }).click();
    await page.getByRole('option', { name: 'Likely', exact: true }).click();
    await expect
      .poll(async () => (await dbGet<{ status: string }>(admin, `hypotheses?incident_id=eq.${seeded.id}&type=eq.factor&select=status`))[0]?.status)
      .toBe('likely');

    // evidence of another type, through the Add evidence dialog
    await incidents.hypothesisAction('Consumer crash loop on deploy', 'Add evidence');
    await incidents.dialog.getByRole('combobox', { name: /Type/ }).selectOption('log');
    await incidents.dialog.getByRole('textbox', { name: /Log lines/ }).fill('panic: assignment to entry in nil map\nexit status 2');
    await incidents.dialog.getByRole('textbox', { name: /Description/ }).fill('Consumer panics on start');
    await incidents.dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(edited.getByText('Consumer panics on start')).toBeVisible();
    await expect(edited.getByText('exit status 2')).toBeVisible();

    await incidents.hypothesisAction('Consumer crash loop on deploy', 'Add solution');
    await incidents.dialog.getByRole('textbox', { name: /Title/ }).fill('Roll back the consumer');
    await incidents.dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(incidents.hypothesis('Roll back the consumer')).toBeVisible();

    await incidents.hypothesisAction('Roll back the consumer', 'Disprove Hypothesis');
    await expect
      .poll(async () => (await dbGet<{ status: string }>(admin, `hypotheses?incident_id=eq.${seeded.id}&type=eq.solution&select=status`))[0]?.status)
      .toBe('disproven');
    await page.screenshot({ path: shots('action-plan'), fullPage: true });

    // the delete dialog offers disprove or delete; delete takes the factor and its solution
    await incidents.hypothesisAction('Consumer crash loop on deploy', 'Delete');
    const del = page.getByRole('dialog', { name: 'Delete hypothesis' });
    await expect(del.getByRole('button', { name: 'Disprove' })).toBeVisible();
    await del.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(del).toHaveCount(0);
    await expect(incidents.hypothesis('Consumer crash loop on deploy')).toHaveCount(0);
    await expect(incidents.hypothesis('Roll back the consumer')).toHaveCount(0);
    expect(await dbGet(admin, `hypotheses?incident_id=eq.${seeded.id}&select=id`)).toHaveLength(1);
  });

  test('a comment with a mention, and a team responder added then removed', async ({ page }) => {
    // a name no other spec gives: the mention list must offer this person alone
    const person = await createUser(admin, 'responder', { firstName: `Rhea${unique()}`, lastName: 'Responder' });
    const who = (await dbGet<{ id: string; name: string }>(admin, `people?email=eq.${encodeURIComponent(person.email)}&select=id,name`))[0];
    const teamName = `SRE ${unique()}`;
    const team = await admin.api.post('/api/db/teams?select=id', {
      headers: { 'x-csrf-token': admin.csrf, prefer: 'return=representation' },
      data: { name: teamName, source: 'UI', spec: { responder_clients: { email: { defaults: { to: 'oncall@example.com' } } } }, created_by: (await (await admin.api.get('/api/auth/whoami')).json()).payload.user.id },
    });
    expect(team.status(), await team.text()).toBe(201);

    const shell = await signIn(page);
    const seeded = await seedIncident(admin, `Payments 502 ${unique()}`);
    const incidents = new IncidentsPage(page);
    await incidents.open(seeded.id);

    const box = page.getByRole('combobox', { name: 'Comment' });
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await box.pressSequentially(`Paging @${who.name.split(' ')[0]}`);
    await page.getByRole('listbox', { name: 'People' }).getByRole('option', { name: who.name }).click();
    await box.pressSequentially('to look at the gateway');
    await page.getByRole('button', { name: 'Send' }).click();
    const comments = page.getByRole('list', { name: 'Comments' });
    await expect(comments.getByText(`@${who.name}`)).toBeVisible();
    await expect
      .poll(async () => (await dbGet<{ comment: string }>(admin, `comments?incident_id=eq.${seeded.id}&select=comment`))[0]?.comment)
      .toBe(`Paging @[${who.name}](user:${who.id}) to look at the gateway`);

    // the wizard: team, its configured response type, the details
    await incidents.side.getByRole('button', { name: 'Add responder' }).click();
    const wizard = page.getByRole('dialog');
    await wizard.getByRole('radio', { name: teamName }).check();
    await wizard.getByRole('button', { name: 'Next' }).click();
    await expect(wizard.getByRole('radio')).toHaveCount(1);
    await wizard.getByRole('radio', { name: 'Email' }).check();
    await wizard.getByRole('button', { name: 'Next' }).click();
    await expect(wizard.getByRole('textbox', { name: /^To/ })).toHaveValue('oncall@example.com');
    await wizard.getByRole('button', { name: 'Save Team Responder' }).click();
    await expect(wizard.getByText('Please provide valid value')).toHaveCount(2);
    await wizard.getByRole('textbox', { name: /^Subject/ }).fill('Payments 502s');
    await wizard.getByRole('textbox', { name: /^Body/ }).fill('Please look at the gateway.');
    await page.screenshot({ path: shots('responder-wizard') });
    await wizard.getByRole('button', { name: 'Save Team Responder' }).click();
    await expect(shell.toast('Responder added successfully')).toBeVisible();
    const responders = incidents.side.getByRole('list', { name: 'Responders' });
    await expect(responders).toContainText(teamName);
    await expect(responders.getByRole('list', { name: 'Progress' })).toContainText('Created');
    await expect(incidents.changelog()).toContainText(`added ${teamName} as a responder`);
    await expect(incidents.changelog()).toContainText('commented');
    await page.screenshot({ path: shots('detail'), fullPage: true });

    await responders.getByRole('button', { name: `Remove responder ${teamName}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await expect(shell.toast('Responder deleted successfully')).toBeVisible();
    await expect(incidents.side.getByRole('list', { name: 'Responders' })).toHaveCount(0);
  });

  test('link a check to a new incident from the health drawer', async ({ page }) => {
    test.setTimeout(60_000);
    const name = `incident-link-${unique()}`;
    const res = await admin.api.post('/api/canary', {
      headers: { 'x-csrf-token': admin.csrf },
      data: { name, spec: { schedule: '@every 5s', http: [{ name, url: `http://127.0.0.1:${E2E_PORT}/healthz` }] } },
    });
    expect(res.status(), await res.text()).toBe(201);
    let checkId = '';
    await expect
      .poll(async () => (checkId = (await dbGet<{ id: string }>(admin, `checks?name=eq.${name}&select=id`))[0]?.id ?? ''), { timeout: 30_000 })
      .not.toBe('');

    const shell = await signIn(page, undefined, undefined, `/health?timeRange=15m&checkId=${checkId}`);
    await page.getByRole('button', { name: 'Link to Incident' }).click();
    const dialog = page.getByRole('dialog', { name: 'Link to Incident' });
    await dialog.getByRole('button', { name: 'Link', exact: true }).click();
    await expect(dialog.getByText('Must select or create an incident')).toBeVisible();

    const title = `Healthz flapping ${unique()}`;
    await dialog.getByRole('combobox', { name: 'Incident' }).pressSequentially(title);
    await page.getByRole('option', { name: `Create “${title}”` }).click();
    await expect(dialog.getByRole('combobox', { name: /Severity/ })).toHaveValue('low');
    await dialog.getByRole('combobox', { name: /Type/ }).selectOption('reliability');
    await page.screenshot({ path: shots('link-dialog') });
    await dialog.getByRole('button', { name: 'Link', exact: true }).click();
    await expect(shell.toast('Linked to incident successfully')).toBeVisible();
    await expect(dialog).toHaveCount(0);

    const [incident] = await dbGet<{ id: string; type: string; hypotheses: { type: string; evidences: { type: string; check_id: string }[] }[] }>(
      admin,
      `incidents?title=eq.${encodeURIComponent(title)}&select=id,type,hypotheses(type,evidences(type,check_id))`,
    );
    expect(incident.type).toBe('reliability');
    expect(incident.hypotheses).toEqual([{ type: 'root', evidences: [{ type: 'check', check_id: checkId }] }]);

    // an existing incident needs a hypothesis: its root is proposed
    await page.getByRole('button', { name: 'Link to Incident' }).click();
    await dialog.getByRole('combobox', { name: 'Incident' }).pressSequentially(title.slice(0, 16));
    await page.getByRole('option', { name: new RegExp(`INC-\\d+ · ${title}`) }).click();
    await expect(dialog.getByRole('combobox', { name: 'Hypothesis' })).toHaveValue(title);
    await dialog.getByRole('combobox', { name: 'Hypothesis' }).fill('');
    await dialog.getByRole('button', { name: 'Link', exact: true }).click();
    await expect(dialog.getByText('Must select or create a hypothesis')).toBeVisible();
    await dialog.getByRole('combobox', { name: 'Hypothesis' }).fill('Probe timeout too short');
    await dialog.getByRole('button', { name: 'Link', exact: true }).click();
    // the first link's toast may still show: the dialog closing is this link's success
    await expect(dialog).toHaveCount(0);
    const hyps = await dbGet<{ title: string; evidences: unknown[] }>(admin, `hypotheses?incident_id=eq.${incident.id}&select=title,evidences(id)&order=created_at`);
    expect(hyps.map((h) => [h.title, h.evidences.length])).toEqual([[title, 1], ['Probe timeout too short', 1]]);

    await page.goto(`/incidents/${incident.id}?tab=plan`);
    await expect(page.getByText(name).first()).toBeVisible();

    // with the incidents feature disabled, the sidebar entry and the link action are gone
    await setProperty(admin, 'incidents.disable', 'true');
    try {
      await page.goto(`/health?timeRange=15m&checkId=${checkId}`);
      await expect(page.getByRole('button', { name: 'Run Now' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Link to Incident' })).toHaveCount(0);
      await page.getByRole('button', { name: 'Close' }).click();
      await expect(shell.navLink('Health')).toBeVisible();
      await expect(shell.navLink('Incidents')).toHaveCount(0);
    } finally {
      await deleteProperty(admin, 'incidents.disable');
    }
  });

  test('a viewer sees incidents read-only: no create, status or comment controls', async ({ page }) => {
    const viewer = await createUser(admin, 'viewer');
    const seeded = await seedIncident(admin, `Viewer visible ${unique()}`, [{ type: 'comment', description: 'Error budget restored', definition_of_done: true, evidence: { comment: 'Error budget restored' } }]);
    await signInSession(page, viewer.email, viewer.password);
    const incidents = new IncidentsPage(page);
    await incidents.goto();
    await expect(incidents.row(seeded.incident_id)).toBeVisible();
    await expect(incidents.createButton).toHaveCount(0);

    await incidents.open(seeded.id);
    await expect(page.getByRole('heading', { level: 2 })).toContainText(seeded.incident_id);
    await expect(incidents.statusDropdown()).toHaveCount(0);
    await expect(incidents.side.getByText('High', { exact: true })).toBeVisible();
    await expect(incidents.side.getByRole('combobox', { name: 'Incident priority' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Close', exact: true })).toHaveCount(0);
    await expect(page.getByRole('combobox', { name: 'Comment' })).toHaveCount(0);
    await expect(incidents.side.getByRole('button', { name: 'Add responder' })).toHaveCount(0);
    await expect(incidents.side.getByRole('list', { name: 'Definition of done' })).toContainText('Error budget restored');
    await incidents.tab('Action Plan').click();
    await expect(page.getByRole('button', { name: 'Add hypothesis' })).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Hypothesis title' })).toHaveCount(0);

    // no write on incidents: the check drawer has no Link to Incident
    const name = `viewer-drawer-${unique()}`;
    const res = await admin.api.post('/api/canary', {
      headers: { 'x-csrf-token': admin.csrf },
      data: { name, spec: { schedule: '@every 1m', http: [{ name, url: `http://127.0.0.1:${E2E_PORT}/healthz` }] } },
    });
    expect(res.status(), await res.text()).toBe(201);
    let checkId = '';
    await expect
      .poll(async () => (checkId = (await dbGet<{ id: string }>(admin, `checks?name=eq.${name}&select=id`))[0]?.id ?? ''))
      .not.toBe('');
    await page.goto(`/health?timeRange=15m&checkId=${checkId}`);
    await expect(page.getByRole('dialog').getByRole('link', { name: 'Edit' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Link to Incident' })).toHaveCount(0);
  });

  test('an unknown incident says so', async ({ page }) => {
    await signIn(page);
    await new IncidentsPage(page).open('0195c9b2-7f1a-7c3e-9a41-3f1d2a8b6c10');
    await expect(page.getByText('Incident not found')).toBeVisible();
  });

  test('the list and a detail page have no serious accessibility violations', async ({ page }) => {
    await signIn(page);
    // topology evidence points at a real component (evidences.component_id has its FK since 0060_topology.sql)
    const db = await e2eDatabase(admin);
    await db.query(`INSERT INTO components (id, name, external_id) VALUES ($1, 'api-gateway', 'api-gateway') ON CONFLICT (id) DO NOTHING`,
      ['0195c9b2-7f1a-7c3e-9a41-3f1d2a8b6c11']);
    await db.end();
    const seeded = await seedIncident(admin, `A11y ${unique()}`, [
      { type: 'topology', description: 'api-gateway degraded', component_id: '0195c9b2-7f1a-7c3e-9a41-3f1d2a8b6c11', evidence: { name: 'api-gateway' } },
    ]);
    const incidents = new IncidentsPage(page);
    await incidents.goto();
    await expect(incidents.row(seeded.incident_id)).toBeVisible();
    await incidents.createButton.focus();
    expect(await seriousViolations(page)).toEqual([]);

    await incidents.open(seeded.id, '?comments=true&tab=plan');
    await expect(page.getByRole('region', { name: 'Affected components' })).toContainText('api-gateway');
    await incidents.statusDropdown().focus();
    expect(await seriousViolations(page)).toEqual([]);
    await incidents.tab('Comments').click();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
