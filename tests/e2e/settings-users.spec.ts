import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { ADMIN } from './env';
import { seriousViolations } from './pages/axe';
import { signIn, signInSession } from './pages/sign-in';
import { Shell } from './pages/shell';
import { UsersPage } from './pages/users-page';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

test.describe('Settings → Users', () => {
  test('inviting a user shows a link that registers them in a fresh browser', async ({ page, browser, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const shell = await signInSession(page);
    const users = new UsersPage(page);
    await users.goto();
    const id = unique();
    const email = `nina-${id}@e2e.test`;

    await users.inviteButton.click();
    await users.dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(users.dialog.getByText('Please provide valid first name')).toBeVisible();
    await expect(users.dialog.getByText('Please provide valid last name')).toBeVisible();
    await expect(users.dialog.getByText('Please provide valid email')).toBeVisible();
    await expect(users.dialog.getByText('Please select any role')).toBeVisible();

    await users.fillInvite({ first: 'Nina', last: `Invitee${id}`, email: 'not-an-email', role: 'responder' });
    await users.dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(users.dialog.getByText('Entered value does not match email format')).toBeVisible();

    await users.field('Email').fill(email);
    await users.dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(users.inviteLink).toHaveValue(/\/registration\?invite=/);
    const link = await users.inviteLink.inputValue();
    await users.dialog.getByRole('button', { name: 'Copy link' }).click();
    await expect(shell.toast('Link copied to clipboard')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await users.dialog.getByRole('button', { name: 'Done' }).click();

    // the new user opens the link in their own browser
    const theirs = await browser.newContext();
    try {
      const them = await theirs.newPage();
      await them.goto(link);
      await them.getByRole('textbox', { name: 'Password', exact: true }).fill('nina-password-1');
      await them.getByRole('textbox', { name: 'Confirm password' }).fill('nina-password-1');
      await them.getByRole('button', { name: 'Sign up', exact: true }).click();
      const theirShell = new Shell(them);
      await theirShell.expectLoaded();
      const menu = await theirShell.openUserMenu();
      await expect(menu.getByText(`Hi, Nina Invitee${id}`)).toBeVisible();
    } finally {
      await theirs.close();
    }

    await users.goto();
    await expect(users.row(email)).toContainText('responder');
    await expect(users.row(email)).toContainText('active');
  });

  test('the invite dialog opens and submits with the keyboard alone', async ({ page }) => {
    await signInSession(page);
    const users = new UsersPage(page);
    await users.goto();
    // Tab from the top of the page until the Invite User button has focus
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if (await users.inviteButton.evaluate((el) => el === document.activeElement)) break;
    }
    await expect(users.inviteButton).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(users.field('First name')).toBeFocused();

    const id = unique();
    await page.keyboard.type('Kim');
    await page.keyboard.press('Tab');
    await page.keyboard.type(`Keys${id}`);
    await page.keyboard.press('Tab');
    await page.keyboard.type(`kim-${id}@e2e.test`);
    await page.keyboard.press('Tab');
    await expect(users.roleSelect).toBeFocused();
    await page.keyboard.press('ArrowDown'); // the first role
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(users.dialog.getByRole('button', { name: 'Invite', exact: true })).toBeFocused();
    await page.keyboard.press('Enter');

    await expect(users.inviteLink).toHaveValue(/\/registration\?invite=/);
    await expect(users.inviteLink).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(users.dialog).toHaveCount(0);
  });

  test("an administrator changes a user's role", async ({ page }) => {
    const user = await createUser(admin, 'viewer');
    const shell = await signInSession(page);
    const users = new UsersPage(page);
    await users.goto();
    await expect(users.row(user.email)).toContainText('viewer');

    await users.edit(user.email);
    await users.roleSelect.selectOption('editor');
    await users.dialog.getByRole('button', { name: 'Save' }).click();

    await expect(shell.toast('Vera Viewer updated successfully')).toBeVisible();
    await expect(users.dialog).toHaveCount(0);
    await expect(users.row(user.email)).toContainText('editor');
    // with the toast still up and the dialog gone: focus is back on the row's button (not on <body>) and no focus
    // sentinel is left tabbable behind aria-hidden (the kit's toasts have none)
    await expect(shell.toast('Vera Viewer updated successfully')).toBeVisible();
    await expect(users.row(user.email).locator(':focus')).toHaveCount(1);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('a refused change shows the server message', async ({ page }) => {
    const shell = await signInSession(page);
    const users = new UsersPage(page);
    await page.goto('/settings/users');
    await users.edit(ADMIN.email);
    await users.dialog.getByRole('switch').uncheck();
    await users.dialog.getByRole('button', { name: 'Save' }).click();
    await expect(shell.toast('you cannot deactivate yourself')).toBeVisible();
    await expect(users.dialog).toBeVisible();
  });

  test('deleting a user asks first', async ({ page }) => {
    const user = await createUser(admin, 'responder');
    const shell = await signInSession(page);
    const users = new UsersPage(page);
    await users.goto();

    await users.delete(user.email);
    await users.dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(users.row(user.email)).toHaveCount(1);

    await users.delete(user.email);
    await users.dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(shell.toast('user deleted successfully')).toBeVisible();
    await expect(users.row(user.email)).toHaveCount(0);
  });

  test('an editor reads the list without buttons; a viewer is refused', async ({ page, browser }) => {
    const editor = await createUser(admin, 'editor');
    await signIn(page, editor.email, editor.password, '/settings/users');
    const users = new UsersPage(page);
    await expect(users.row(ADMIN.email)).toBeVisible();
    await expect(users.inviteButton).toHaveCount(0);
    await expect(users.table.getByRole('columnheader', { name: 'Actions' })).toHaveCount(0);

    const viewer = await createUser(admin, 'viewer');
    const other = await browser.newContext();
    try {
      const them = await other.newPage();
      await signIn(them, viewer.email, viewer.password, '/settings/users');
      await expect(them.getByText('Unauthorized - You do not have permission to access this page')).toBeVisible();
    } finally {
      await other.close();
    }
  });

  test('the page and the invite dialog have no serious accessibility violations', async ({ page }) => {
    await signInSession(page);
    const users = new UsersPage(page);
    await users.goto();
    await users.inviteButton.focus();
    expect(await seriousViolations(page)).toEqual([]);
    await users.inviteButton.click();
    await users.dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    await expect(users.dialog.getByText('Please select any role')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
