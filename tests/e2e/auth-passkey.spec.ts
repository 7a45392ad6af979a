import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { adminApi, createUser } from './api';
import { E2E_PORT } from './env';
import { LoginPage } from './pages/login-page';
import { Shell } from './pages/shell';

// Browsers take no IP address as a WebAuthn RP ID: the server maps its loopback-IP public URL (127.0.0.1) to
// localhost on the same port, so these pages are opened on localhost.
test.use({ baseURL: `http://localhost:${E2E_PORT}` });
// each test walks sign-in, Your Profile, sign-out and sign-in again: more steps than most, hence a larger budget
test.describe.configure({ timeout: 120_000 });

/** Chromium's virtual authenticator (CDP): a platform authenticator with resident keys that verifies the user. */
async function virtualAuthenticator(page: Page, o: { transport: 'internal' | 'usb'; resident: boolean }) {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: o.transport, hasResidentKey: o.resident, hasUserVerification: true,
      isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

const keysSection = (page: Page) => page.getByRole('region', { name: 'Security keys and passkeys' });

/** /login, waiting for its flow (the first page of a cold server takes a while on a loaded machine). */
async function openLogin(page: Page, returnTo?: string): Promise<LoginPage> {
  const login = new LoginPage(page);
  await page.goto(returnTo ? `/login?return_to=${encodeURIComponent(returnTo)}` : '/login');
  await expect(login.submit).toBeVisible({ timeout: 30_000 });
  return login;
}

async function signOut(page: Page) {
  const menu = await new Shell(page).openUserMenu();
  await menu.getByRole('menuitem', { name: 'Sign out' }).click();
  // the sign-in page opens a new login flow (?flow=)
  await expect(page).toHaveURL(/\/login(\?flow=[0-9a-f-]+)?$/);
}

test('a passkey added in Your Profile signs in without a password, at aal2', async ({ page }) => {
  const user = await createUser(await adminApi(), 'viewer');
  const authenticator = await virtualAuthenticator(page, { transport: 'internal', resident: true });

  const login = await openLogin(page, '/profile-settings');
  await login.signIn(user.email, user.password);
  await expect(page).toHaveURL(/\/profile-settings$/);

  const keys = keysSection(page);
  await keys.getByLabel('Name of the new key or passkey').fill('E2E laptop');
  await keys.getByRole('button', { name: 'Add passkey' }).click();
  await expect(keys.getByRole('cell', { name: 'E2E laptop', exact: true })).toBeVisible();
  await expect(keys.getByRole('cell', { name: 'Passkey', exact: true })).toBeVisible();
  const [credential] = await authenticator.credentials();
  expect(credential.isResidentCredential).toBe(true);

  await signOut(page);

  // no username, no password: the authenticator offers the passkey for this site
  await page.getByRole('button', { name: 'Sign in with passkey' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  const who = await page.request.get('/api/.ory/sessions/whoami');
  expect(who.status()).toBe(200);
  const session = await who.json();
  expect(session.identity.traits.email).toBe(user.email);
  expect(session.authenticator_assurance_level).toBe('aal2');
  expect(session.authentication_methods).toEqual([expect.objectContaining({ method: 'passkey', aal: 'aal2' })]);
  expect((await authenticator.credentials())[0].signCount).toBeGreaterThan(credential.signCount);

  // the profile lists when it was last used
  await page.goto('/profile-settings');
  const row = keysSection(page).getByRole('row').filter({ hasText: 'E2E laptop' });
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(row).not.toContainText('Never');
});

test('a security key is asked for after the password', async ({ page }) => {
  const user = await createUser(await adminApi(), 'viewer');
  await virtualAuthenticator(page, { transport: 'usb', resident: false });

  const login = await openLogin(page, '/profile-settings');
  await login.signIn(user.email, user.password);
  await expect(page).toHaveURL(/\/profile-settings$/);
  const keys = keysSection(page);
  await keys.getByLabel('Name of the new key or passkey').fill('E2E key');
  await keys.getByRole('button', { name: 'Add security key' }).click();
  await expect(keys.getByRole('cell', { name: 'E2E key', exact: true })).toBeVisible();

  await signOut(page);
  await login.signIn(user.email, user.password);
  // the second step: the password alone is aal1
  await expect(page).toHaveURL(/\/login\?aal=aal2/);
  await page.getByRole('button', { name: 'Use security key' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  const session = await (await page.request.get('/api/.ory/sessions/whoami')).json();
  expect(session.authenticator_assurance_level).toBe('aal2');
  expect(session.authentication_methods.map((m: { method: string }) => m.method)).toEqual(['password', 'webauthn']);
});
