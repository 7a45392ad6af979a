import { expect, request, test } from '@playwright/test';
import { adminApi, type ApiSession } from './api';
import { BASE_URL } from './env';
import { seriousViolations } from './pages/axe';
import { signInSession } from './pages/sign-in';
import { TeamsPage } from './pages/teams-page';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

/** A person with a name no other test uses, so the picker shows exactly one match. */
async function makePerson(first: string) {
  const last = `Member${unique()}`;
  const invite = await admin.api.post('/api/auth/invite_user', {
    data: { firstName: first, lastName: last, email: `${first.toLowerCase()}-${unique()}@e2e.test`, role: 'viewer' },
    headers: { 'x-csrf-token': admin.csrf },
  });
  expect(invite.status(), await invite.text()).toBe(200);
  const anon = await request.newContext({ baseURL: BASE_URL });
  const token = new URL((await invite.json()).link).searchParams.get('invite');
  const reg = await anon.post('/api/auth/registration', { data: { invite: token, password: 'member-password-1' } });
  expect(reg.status(), await reg.text()).toBe(200);
  await anon.dispose();
  return `${first} ${last}`;
}

test.describe('Settings → Teams', () => {
  test('create a team, add two members, remove one', async ({ page }) => {
    const [ana, ben] = [await makePerson('Ana'), await makePerson('Ben')];
    const shell = await signInSession(page);
    const teams = new TeamsPage(page);
    await teams.goto();
    const name = `Night Shift ${unique()}`;

    await teams.addTeam(name, 'kubernetes');
    await expect(shell.toast(`${name} created successfully`)).toBeVisible();
    await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText(`Teams${name}`);
    await expect(page.getByText("You haven't added any team members to the team yet.")).toBeVisible();

    await teams.addMembers([ana, ben]);
    await expect(shell.toast(`${ana}, ${ben} added to the team successfully`)).toBeVisible();
    await expect(teams.memberRow(name, ana)).toBeVisible();
    await expect(teams.memberRow(name, ben)).toBeVisible();

    await teams.removeMember(name, ana);
    await expect(shell.toast(`${ana} removed from team successfully`)).toBeVisible();
    await expect(teams.memberRow(name, ana)).toHaveCount(0);
    await expect(teams.memberRow(name, ben)).toBeVisible();

    // the list counts the one member left; the breadcrumb leads back to it
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Teams' }).click();
    await expect(page).toHaveURL(/\/settings\/teams$/);
    const row = teams.table.getByRole('row').filter({ hasText: name });
    await expect(row.getByRole('cell').nth(1)).toHaveText('1');
  });

  test('rename a team, then delete it', async ({ page }) => {
    const shell = await signInSession(page);
    const teams = new TeamsPage(page);
    await teams.goto();
    const name = `Day Shift ${unique()}`;
    await teams.addTeam(name);
    await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]{36}$/);

    const renamed = `${name} (EMEA)`;
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await expect(teams.dialog.getByRole('textbox', { name: 'Name' })).toHaveValue(name);
    await teams.dialog.getByRole('textbox', { name: 'Name' }).fill(renamed);
    await teams.dialog.getByRole('button', { name: 'Update' }).click();
    await expect(shell.toast(`${renamed} updated successfully`)).toBeVisible();
    await expect(page.getByRole('heading', { name: renamed, level: 2 })).toBeVisible();

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await teams.dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(shell.toast(`${renamed} deleted successfully`)).toBeVisible();
    await expect(page).toHaveURL(/\/settings\/teams$/);
    await expect(teams.table.getByRole('row').filter({ hasText: renamed })).toHaveCount(0);
  });

  test('a team name is required and unique', async ({ page }) => {
    await signInSession(page);
    const teams = new TeamsPage(page);
    await teams.goto();
    const name = `Dup ${unique()}`;
    await teams.addTeam('   ');
    await expect(teams.dialog.getByText('This field is required')).toBeVisible();
    await teams.dialog.getByRole('button', { name: 'Cancel' }).click();

    await teams.addTeam(name);
    await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]{36}$/);
    await teams.goto();
    await teams.addTeam(name);
    await expect(teams.dialog.getByText(`A team named ${name} already exists`)).toBeVisible();
  });

  test('the teams list and a team page have no serious accessibility violations', async ({ page }) => {
    await signInSession(page);
    const teams = new TeamsPage(page);
    await teams.goto();
    const name = `A11y ${unique()}`;
    await teams.addTeam(name);
    await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]{36}$/);
    // without the creation toast: the toaster's own focus sentinels are a shell-wide finding (see sign-in.ts)
    await page.reload();
    await page.getByRole('button', { name: 'Add Members' }).focus();
    expect(await seriousViolations(page)).toEqual([]);

    await teams.goto();
    await page.getByRole('button', { name: 'Add Team' }).focus();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
