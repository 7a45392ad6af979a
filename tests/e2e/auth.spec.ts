import { expect, test } from '@playwright/test';
import { adminApi } from './api';
import { ADMIN } from './env';
import { LoginPage } from './pages/login-page';
import { Shell } from './pages/shell';

test.describe('signing in and out', () => {
  test('a signed-out visit goes to the sign-in page and comes back after signing in', async ({ page }) => {
    await page.goto('/incidents?status=open');
    // the sign-in page adds its flow's id (&flow=…) once the flow is made
    await expect(page).toHaveURL(/\/login\?return_to=%2Fincidents%3Fstatus%3Dopen(&flow=[0-9a-f-]+)?$/);

    await new LoginPage(page).signIn(ADMIN.email, ADMIN.password);

    await expect(page).toHaveURL(/\/incidents\?status=open$/);
    await new Shell(page).expectLoaded('Incidents');
  });

  test('a wrong password shows an error and stays on the sign-in page', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn(ADMIN.email, 'not-the-password');
    await expect(login.error).toHaveText(
      'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
    );
    await expect(page).toHaveURL(/\/login/);
  });

  test('return_to pointing at another site is ignored', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto('//evil.example/steal');
    await login.signIn(ADMIN.email, ADMIN.password);
    // no return_to: the landing page, the Dashboard (/ goes to /topology), never a placeholder
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/topology$/);
    await new Shell(page).expectLoaded('Topology');
    await expect(page.getByText('Not available in this version')).toHaveCount(0);
  });

  test('sign out ends the session', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn(ADMIN.email, ADMIN.password);
    const shell = new Shell(page);
    await shell.expectLoaded('Topology');

    await shell.signOut();

    await page.goto('/health');
    await expect(page).toHaveURL(/\/login\?return_to=%2Fhealth(&flow=[0-9a-f-]+)?$/);
  });

  test('a 401 from a data call sends the user to sign in, keeping the page', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto('/catalog?q=web');
    await login.signIn(ADMIN.email, ADMIN.password);
    await new Shell(page).expectLoaded('Catalog');

    // the session ends behind the page's back (here: the same cookie signs out through the API)
    const res = await page.request.post('/api/auth/logout');
    expect(res.ok()).toBe(true);
    // the next data call (whoami refetches when the tab becomes visible) answers 401
    await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));

    await expect(page).toHaveURL(/\/login\?return_to=%2Fcatalog%3Fq%3Dweb(&flow=[0-9a-f-]+)?$/);
    await expect(login.submit).toBeVisible();
  });

  test('credentials in the query sign in at once and leave the address bar', async ({ page }) => {
    const q = new URLSearchParams({ username: ADMIN.email, password: ADMIN.password, return_to: '/logs' });
    await page.goto(`/login?${q}`);
    await expect(page).toHaveURL(/\/logs$/);
    await new Shell(page).expectLoaded('Logs');
  });

  test('an invited user chooses a password and is signed in', async ({ page }) => {
    const admin = await adminApi();
    const email = `invited-${Date.now()}@e2e.test`;
    const invite = await admin.api.post('/api/auth/invite_user', {
      data: { firstName: 'Ivy', lastName: 'Invited', email, role: 'editor' },
      headers: { 'x-csrf-token': admin.csrf },
    });
    expect(invite.status()).toBe(200);
    const link = new URL((await invite.json()).link);
    await admin.api.dispose();

    await page.goto(`${link.pathname}${link.search}`);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('short');
    await page.getByRole('textbox', { name: 'Confirm password' }).fill('different');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    // the confirmation is checked in the page, before the flow is asked
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await page.getByRole('textbox', { name: 'Confirm password' }).fill('short');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await expect(page.getByText('The password must be at least 8 characters long, but got 5.')).toBeVisible();

    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('ivy-password-1');
    await page.getByRole('textbox', { name: 'Confirm password' }).fill('ivy-password-1');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();

    const shell = new Shell(page);
    await shell.expectLoaded('Topology');
    const menu = await shell.openUserMenu();
    await expect(menu.getByText('Hi, Ivy Invited')).toBeVisible();
  });
});
