import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { startOidcProvider, type OidcTestProvider } from '../support/oidc-provider';
import { until } from '../support/poll';
import { E2E_PORT } from './env';
import { seriousViolations } from './pages/axe';

/**
 * Hosted mode (issue 17, AUTH_MODE=oidc) in a real browser: a second console started here with AUTH_MODE=oidc
 * against a real oidc-provider on loopback (the suite's own server runs the self-hosted mode). Sign in on the
 * provider's page, choose an organisation at the gate, switch from the top bar, provider down → /login says so.
 */

const HOSTED_PORT = E2E_PORT + 20000;
const HOSTED = `http://127.0.0.1:${HOSTED_PORT}`;
const PROVIDER = 'Test IdP';
const ACCOUNT = {
  email: 'ada.hosted@e2e.test', email_verified: true, name: 'Ada Hosted', given_name: 'Ada', family_name: 'Hosted',
  organization: ['Acme Ops', 'Globex Platform'],
};

let provider: OidcTestProvider;
let server: ChildProcess;
let dataDir: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  provider = await startOidcProvider({
    redirectUris: [`${HOSTED}/api/auth/oidc/callback`], postLogoutRedirectUris: [`${HOSTED}/login`],
    accounts: { 'ada-sub': ACCOUNT },
  });
  dataDir = mkdtempSync(join(tmpdir(), 'console-e2e-hosted-'));
  const root = process.cwd();
  server = spawn(join(root, 'node_modules/.bin/tsx'), ['server/main.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(HOSTED_PORT), HOST: '127.0.0.1', DATA_DIR: dataDir, PUBLIC_URL: HOSTED,
      ...(process.env.E2E_DIST ? { WEB_DIR: resolve(root, process.env.E2E_DIST) } : {}),
      DEMO_DATA: 'false', LOG_LEVEL: 'warn', LOGIN_RATE_LIMIT: '1000',
      ADMIN_EMAIL: 'admin@hosted.e2e.test', ADMIN_PASSWORD: 'hosted-admin-password-1',
      AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_DISPLAY_NAME: PROVIDER, OIDC_ORG_CLAIM: 'organization',
      OIDC_LOCAL_LOGIN: 'admins',
    },
  });
  await until(async () => (await fetch(`${HOSTED}/readyz`).catch(() => null))?.ok === true, 'the hosted-mode console', 150_000);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((ok) => server.once('exit', ok));
    server.kill('SIGTERM');
    await exited;
  }
  await provider?.stop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('signs in on the provider page, chooses an organisation, switches from the top bar', async ({ page }) => {
  test.slow(); // a sign-in through the provider, a gate and a switch: several full page loads
  await page.goto(`${HOSTED}/health`);
  await expect(page).toHaveURL(/\/login|\/auth-state-checker/);
  const sso = page.getByRole('link', { name: `Sign in with ${PROVIDER}` });
  await expect(sso).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await sso.click();

  // the provider's own page, then back through the callback
  await page.getByRole('button', { name: /Ada Hosted/ }).click();
  await expect(page.getByRole('heading', { name: 'Choose an organization' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: /Acme Ops/ }).click();

  const switcher = page.getByRole('button', { name: /Organization: Acme Ops/ });
  await expect(switcher).toBeVisible();
  // the home page behind the switcher is still loading its (empty) data here; scan it once it has settled
  await expect.poll(() => seriousViolations(page), { timeout: 15_000 }).toEqual([]);

  await switcher.click();
  await page.getByRole('menuitemradio', { name: /Globex Platform/ }).click();
  await expect(page.getByRole('button', { name: /Organization: Globex Platform/ })).toBeVisible();
  await expect(page).not.toHaveURL(/orgs-switched/);
  const who = await page.request.get(`${HOSTED}/api/auth/whoami`);
  expect((await who.json()).payload.organization.name).toBe('Globex Platform');

  // the Users settings are off in hosted mode
  await page.goto(`${HOSTED}/settings/users`);
  await expect(page.getByRole('link', { name: 'Users' })).toHaveCount(0);
});

test('with the provider down, /login names it and the local sign-in', async ({ page }) => {
  await provider.stop();
  await page.goto(`${HOSTED}/login`);
  await page.getByRole('link', { name: `Sign in with ${PROVIDER}` }).click();
  await expect(page).toHaveURL(/\/login\?.*oidc_error=/);
  await expect(page.getByText(new RegExp(PROVIDER)).first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});
