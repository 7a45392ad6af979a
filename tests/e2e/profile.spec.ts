import { expect, test } from '@playwright/test';
import { adminApi, createUser, type ApiSession } from './api';
import { LoginPage } from './pages/login-page';
import { ProfilePage } from './pages/profile-page';
import { seriousViolations } from './pages/axe';
import { signInWithForm } from './pages/sign-in';

let admin: ApiSession;
test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin.api.dispose();
});

test.describe('Your Profile', () => {
  test('change your password, then sign in with the new one', async ({ page }) => {
    const user = await createUser(admin, 'editor');
    const shell = await signInWithForm(page, user.email, user.password, '/profile-settings');
    const profile = new ProfilePage(page);
    await expect(profile.passwordSection).toBeVisible();

    await profile.changePassword('brand-new-pass-1', 'something-else');
    await expect(profile.passwordSection.getByText('Passwords do not match')).toBeVisible();

    await profile.changePassword('brand-new-pass-1');
    await expect(profile.passwordSection.getByRole('status')).toHaveText('Your password was changed.');

    await shell.signOut();
    const login = new LoginPage(page);
    await login.signIn(user.email, user.password);
    await expect(login.error).toContainText(/invalid/i);
    await login.signIn(user.email, 'brand-new-pass-1');
    await shell.expectLoaded();
  });

  test('change your name; the message clears after 10 seconds', async ({ page }) => {
    const user = await createUser(admin, 'viewer');
    await page.clock.install();
    const shell = await signInWithForm(page, user.email, user.password, '/profile-settings');
    const profile = new ProfilePage(page);

    await profile.changeName('Valentina', 'Renamed');
    const message = profile.nameSection.getByRole('status');
    await expect(message).toHaveText('Your profile was updated.');
    const menu = await shell.openUserMenu();
    await expect(menu.getByText('Hi, Valentina Renamed')).toBeVisible();
    await page.keyboard.press('Escape');

    await page.clock.runFor(10_000);
    await expect(message).toHaveCount(0);
  });

  test('the page has no serious accessibility violations', async ({ page }) => {
    await signInWithForm(page, undefined, undefined, '/profile-settings');
    const profile = new ProfilePage(page);
    await profile.field('New password').focus();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
