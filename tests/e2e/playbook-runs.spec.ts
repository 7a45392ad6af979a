import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { adminApi, createUser, signInApi, type ApiSession } from './api';
import { ADMIN } from './env';
import { seriousViolations } from './pages/axe';
import { createPlaybook, PlaybookRunsPage, runStatus, startRun } from './pages/playbook-runs-page';
import { signIn } from './pages/sign-in';

let admin: ApiSession;
const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;
const shots = (name: string) => `.tmp/screenshots/playbook-runs-${name}.png`;

test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Playbook runs', () => {
  // axe scans on a loaded 2-core machine take tens of seconds each; passing tests take what they take
  test.describe.configure({ timeout: 240_000 });

  test('a running exec action\'s lines appear live; ANSI colours, http links; download logs; the runs list', async ({ page }) => {
    const title = `Live lines ${unique()}`;
    // the script prints its first lines, then waits for the test to say go: the page is seen mid-run whatever the load
    const gate = join(tmpdir(), `playbook-runs-gate-${unique()}`);
    rmSync(gate, { force: true });
    const id = await createPlaybook(admin, title, {
      category: 'E2E',
      actions: [{
        name: 'count',
        exec: {
          script: `printf '\\033[32mgreen start\\033[0m see https://example.com/docs\\n'; echo line 1; `
            + `for i in $(seq 1 600); do [ -e ${gate} ] && break; sleep 0.2; done; for i in 2 3; do echo line $i; sleep 1; done`,
        },
      }],
    });
    const shell = await signIn(page);
    const runs = new PlaybookRunsPage(page);
    const runId = await startRun(admin, id);
    await runs.open(runId);

    // the first lines show while the action still runs (stored lines, then live ones)
    await expect(runs.log).toContainText('line 1', { timeout: 60_000 });
    await expect(runs.step('count')).toHaveAttribute('data-action-status', 'running');
    await expect(runs.log).not.toContainText('line 2');
    await expect(runs.log.getByRole('link', { name: 'https://example.com/docs' })).toHaveAttribute('href', 'https://example.com/docs');
    await expect(runs.log.getByText('green start')).toHaveAttribute('style', /color/);
    await page.screenshot({ path: shots('live') });
    writeFileSync(gate, 'go');

    // the later lines arrive on the open page
    await expect(runs.log).toContainText('line 3', { timeout: 60_000 });
    await runs.expectRunStatus('completed');
    rmSync(gate, { force: true });
    expect(existsSync(gate)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);

    // Download logs: a text file of every action's output, and the spec's toast
    const [download] = await Promise.all([page.waitForEvent('download'), runs.button('Download logs').click()]);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text).toContain('=== count (completed)');
    expect(text).toMatch(/line 1\nline 2\nline 3/);
    expect(text).not.toContain('\u001b');
    await expect(shell.toast('Downloaded logs')).toBeVisible();

    // the list: filtered by playbook (as History links it) and status, in the URL; a row opens the run
    await runs.gotoList(`?playbook=${id}`);
    await expect(runs.row(title)).toHaveCount(1);
    await expect(runs.row(title)).toContainText('Completed');
    expect(await seriousViolations(page)).toEqual([]);
    await runs.gotoList(`?playbook=${id}&status=failed`);
    await expect(runs.table).toContainText('No playbook runs match these filters');
    await runs.gotoList(`?playbook=${id}`);
    await runs.row(title).click();
    await expect(page).toHaveURL(new RegExp(`/playbooks/runs/${runId}`));
  });

  test('cancel a long run: the action stops and the run is cancelled', async ({ page }) => {
    const id = await createPlaybook(admin, `Long ${unique()}`, { actions: [{ name: 'wait', exec: { script: 'echo started; sleep 600' } }] });
    await signIn(page);
    const runs = new PlaybookRunsPage(page);
    const runId = await startRun(admin, id);
    await runs.open(runId);
    await expect(runs.log).toContainText('started', { timeout: 30_000 });
    await runs.expectRunStatus('running');

    await runs.button('Cancel').click();
    const dialog = page.getByRole('dialog', { name: 'Cancel run' });
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await runs.expectRunStatus('cancelled');
    expect(await runStatus(admin, runId)).toBe('cancelled');
    await expect(runs.button('Cancel')).toHaveCount(0);
  });

  test('approve a pending run as its listed approver; Params shows secrets as ***', async ({ page }) => {
    const id = await createPlaybook(admin, `Gated ${unique()}`, {
      approval: { type: 'any', approvers: { people: [ADMIN.email] } },
      parameters: [{ name: 'token', label: 'Token', type: 'secret' }, { name: 'target', label: 'Target', type: 'text' }],
      actions: [{ name: 'deploy', exec: { script: 'echo deploying {{ .params.target }}' } }],
    });
    // requested by an editor (an approver's own request would be approved at once)
    const editor = await createUser(admin, 'editor');
    const requester = await signInApi(editor.email, editor.password);
    const runId = await startRun(requester, id, { params: { token: 's3cret-value', target: 'prod' } });
    await requester.api.dispose();

    await signIn(page);
    const runs = new PlaybookRunsPage(page);
    await runs.open(runId);
    await runs.expectRunStatus('pending_approval');

    await runs.button('Params').click();
    const params = page.getByRole('dialog', { name: 'Parameters' });
    await expect(params.getByRole('row', { name: /Token/ })).toContainText('***');
    await expect(params).not.toContainText('s3cret-value');
    await expect(params.getByRole('row', { name: /Target/ })).toContainText('prod');
    await params.getByRole('button', { name: 'Close' }).first().click();

    expect(await seriousViolations(page)).toEqual([]);
    await runs.button('Approve').click();
    await runs.expectRunStatus('completed', 60_000);
    await expect(runs.log).toContainText('deploying prod');
    await expect(page.getByTestId('run-header')).toContainText('Approved by');
  });

  test('re-run opens the run dialog with the run\'s params and lands on the new run', async ({ page }) => {
    const id = await createPlaybook(admin, `Echo ${unique()}`, {
      parameters: [{ name: 'greeting', label: 'Greeting', type: 'text', default: 'hi' }],
      actions: [{ name: 'say', exec: { script: 'echo {{ .params.greeting }}' } }],
    });
    await signIn(page);
    const runs = new PlaybookRunsPage(page);
    const runId = await startRun(admin, id, { params: { greeting: 'hello there' } });
    await runs.open(runId);
    await runs.expectRunStatus('completed', 60_000);
    await expect(runs.log).toContainText('hello there');

    await runs.button('Re-run').click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('textbox', { name: /Greeting/ })).toHaveValue('hello there');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page).not.toHaveURL(new RegExp(runId));
    await expect(page).toHaveURL(/\/playbooks\/runs\/[0-9a-f-]{36}$/);
    await runs.expectRunStatus('completed', 60_000);
    await expect(runs.log).toContainText('hello there');
  });
});
