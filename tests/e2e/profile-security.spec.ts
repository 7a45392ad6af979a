import { expect, test, type Browser } from '@playwright/test';
import { generate } from 'otplib';
import { adminApi, createUser, type ApiSession } from './api';
import { seriousViolations } from './pages/axe';
import { LoginPage } from './pages/login-page';
import { ProfilePage } from './pages/profile-page';
import { signInWithForm } from './pages/sign-in';
import { UsersPage } from './pages/users-page';

/** The authenticator app's code for the 30 s step `offset` steps from now (the server accepts one step off). */
const totpCode = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

/** Another browser signed in as the user, at /profile-settings. */
async function otherBrowser(browser: Browser, user: { email: string; password: string }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInWithForm(page, user.email, user.password, '/profile-settings');
  return { context, page };
}

test.describe('Your Profile: two-step sign-in and sessions', () => {
  // each test signs in two or three times through the flows; on a loaded CI machine that is past the default budget
  test.slow();

  test('enrol an authenticator app (a wrong code first), sign in with a code, then with a recovery code', async ({ page }) => {
    const user = await createUser(admin, 'editor');
    const shell = await signInWithForm(page, user.email, user.password, '/profile-settings');
    const profile = new ProfilePage(page);

    const secret = await profile.startTotp();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await profile.confirmTotp(await totpCode(secret, 10));
    await expect(profile.totpSection.getByRole('alert')).toHaveText('The provided authentication code is invalid, please try again.');
    await profile.confirmTotp(await totpCode(secret));
    await expect(profile.totpSection.getByRole('status')).toHaveText('Your authenticator app is set up.');
    await expect(profile.totpSection.getByRole('button', { name: 'Remove authenticator app' })).toBeVisible();

    // recovery codes: shown once, then regenerated (with a confirmation): the first set stops working
    await profile.codesSection.getByRole('button', { name: 'Generate recovery codes' }).click();
    const first = await profile.shownCodes();
    expect(first).toHaveLength(10);
    await profile.codesSection.getByRole('button', { name: 'I have saved these codes' }).click();
    await expect(profile.codesSection.getByRole('status')).toHaveText('Your recovery codes are saved.');
    await expect(profile.codesSection.getByRole('list', { name: 'Recovery codes' })).toHaveCount(0);
    await expect(profile.codesSection).toContainText('10 of 10');
    await profile.codesSection.getByRole('button', { name: 'Regenerate codes' }).click();
    await profile.dialog.getByRole('button', { name: 'Regenerate' }).click();
    const second = await profile.shownCodes();
    expect(second).toHaveLength(10);
    expect(second).not.toEqual(first);
    await profile.codesSection.getByRole('button', { name: 'I have saved these codes' }).click();
    await expect(profile.codesSection.getByRole('status')).toHaveText('Your recovery codes are saved.');

    // password, then the authenticator's code (the next step's: the enrolling one may not be used twice)
    await shell.signOut();
    const login = new LoginPage(page);
    await login.signIn(user.email, user.password);
    const code = page.getByRole('textbox', { name: 'Authentication code' });
    await expect(code).toBeVisible();
    await code.fill(await totpCode(secret, 1));
    await page.getByRole('button', { name: 'Use Authenticator' }).click();
    await shell.expectLoaded();

    // password, then a recovery code: an old one is refused, a new one works
    await shell.signOut();
    await login.signIn(user.email, user.password);
    const backup = page.getByRole('textbox', { name: 'Backup recovery code' });
    await backup.fill(first[0]!);
    await page.getByRole('button', { name: 'Use backup recovery code' }).click();
    await expect(page.getByText('The backup recovery code is not valid.')).toBeVisible();
    await backup.fill(second[0]!);
    await page.getByRole('button', { name: 'Use backup recovery code' }).click();
    await shell.expectLoaded();
    await page.goto('/profile-settings');
    await expect(profile.codesSection).toContainText('9 of 10');
  });

  test('revoke another browser\'s session; sign out everywhere else', async ({ page, browser }) => {
    const user = await createUser(admin, 'viewer');
    const other = await otherBrowser(browser, user);
    const third = await otherBrowser(browser, user);
    try {
      await signInWithForm(page, user.email, user.password, '/profile-settings');
      const profile = new ProfilePage(page);
      // three browsers, and the session the invite's registration opened (createUser)
      await expect(profile.sessionRows()).toHaveCount(4);
      await expect(profile.sessionRows().first()).toContainText('This device');

      const otherId = await other.page.evaluate(() =>
        fetch('/api/.ory/sessions/whoami', { headers: { accept: 'application/json' } }).then((r) => r.json()).then((s) => s.id as string));
      await profile.sessionsSection.locator(`[data-session-id="${otherId}"]`).getByRole('button', { name: /^Revoke/ }).click();
      await expect(profile.sessionsSection.getByRole('status')).toHaveText('The session was signed out.');
      await expect(profile.sessionRows()).toHaveCount(3);
      await other.page.reload();
      await expect(other.page).toHaveURL(/\/login/);

      await profile.sessionsSection.getByRole('button', { name: 'Sign out everywhere else' }).click();
      await profile.dialog.getByRole('button', { name: 'Sign out' }).click();
      await expect(profile.sessionsSection.getByRole('status')).toHaveText('Your other sessions were signed out.');
      await expect(profile.sessionRows()).toHaveCount(1);
      await third.page.reload();
      await expect(third.page).toHaveURL(/\/login/);
    } finally {
      await other.context.close();
      await third.context.close();
    }
  });

  test('an admin signs a user out everywhere and resets their second factor from Edit User', async ({ page, browser }) => {
    const user = await createUser(admin, 'viewer');
    const theirs = await otherBrowser(browser, user);
    try {
      const profile = new ProfilePage(theirs.page);
      const secret = await profile.startTotp();
      await profile.confirmTotp(await totpCode(secret));
      await expect(profile.totpSection.getByRole('status')).toHaveText('Your authenticator app is set up.');

      await signInWithForm(page, undefined, undefined, '/settings/users');
      const users = new UsersPage(page);
      await users.goto();
      await users.edit(user.email);
      const security = users.dialog.getByRole('region', { name: 'Security' });
      await expect(security.getByRole('table', { name: 'Sign-in activity' })).toContainText('Authenticator app added');
      expect(await seriousViolations(page)).toEqual([]);

      await security.getByRole('button', { name: 'Reset second factor' }).click();
      await page.getByRole('dialog', { name: /Reset .* second factor\?/ }).getByRole('button', { name: 'Reset' }).click();
      await expect(page.getByRole('dialog', { name: /Reset .* second factor\?/ })).toHaveCount(0);
      await security.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('dialog', { name: /Sign .* out everywhere\?/ }).getByRole('button', { name: 'Sign out' }).click();
      await expect(page.getByRole('dialog', { name: /Sign .* out everywhere\?/ })).toHaveCount(0);

      await theirs.page.reload();
      await expect(theirs.page).toHaveURL(/\/login/);
      // the second factor is gone: the password alone signs in
      await new LoginPage(theirs.page).signIn(user.email, user.password);
      await expect(theirs.page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    } finally {
      await theirs.context.close();
    }
  });

  test('the page has no serious accessibility violations with each section open', async ({ page }) => {
    const user = await createUser(admin, 'viewer');
    await signInWithForm(page, user.email, user.password, '/profile-settings');
    const profile = new ProfilePage(page);
    await profile.startTotp();
    await profile.codesSection.getByRole('button', { name: 'Generate recovery codes' }).click();
    await profile.shownCodes();
    await expect(profile.sessionRows().first()).toContainText('This device');
    await expect(profile.activitySection.getByRole('table', { name: 'Sign-in activity' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);

    await profile.activitySection.getByRole('button', { name: "This wasn't me" }).click();
    await expect(profile.dialog).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await profile.dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});
