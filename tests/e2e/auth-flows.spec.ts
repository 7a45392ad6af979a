import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { adminApi, createUser, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { ADMIN, BASE_URL, E2E_SMTP_PORT } from './env';
import { seriousViolations } from './pages/axe';
import { flowIdOf, RecoveryPage, toastWith } from './pages/flow-pages';
import { LoginPage } from './pages/login-page';
import { Shell } from './pages/shell';

/**
 * The sign-in flow pages (issue 17) against the real server: /login, /registration, /recovery, /verification and
 * /error on the Kratos-compatible flows, with the error catalogue's toasts and a new flow, a recovery code read from
 * a mail caught on loopback (the e2e server's SMTP_* point here: playwright.config.ts), keyboard-only sign-in and
 * axe on every page and state.
 */

const INVALID = 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';

/** The code in a recovery mail, whichever transfer encoding the text part has (7bit, quoted-printable, base64). */
function recoveryCode(raw: string): string | undefined {
  const find = (text: string) => /recovery code is:\s*(\d{6})/.exec(text)?.[1];
  const qp = raw.replace(/=\r?\n/g, '');
  const base64 = [...raw.matchAll(/\r?\n\r?\n([A-Za-z0-9+/=\r\n]{40,})/g)].map((m) => Buffer.from(m[1].replace(/\s/g, ''), 'base64').toString('utf8'));
  return [raw, qp, ...base64].map(find).find(Boolean);
}

let admin: ApiSession;
let db: pg.Client;
let smtp: SMTPServer;
const mails: { to: string; body: string }[] = [];

test.beforeAll(async () => {
  admin = await adminApi();
  db = await e2eDatabase(admin);
  smtp = new SMTPServer({
    secure: false, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, session, cb) {
      let body = '';
      stream.on('data', (c: Buffer) => (body += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(E2E_SMTP_PORT, '127.0.0.1', () => resolve());
  });
  expect((smtp.server.address() as AddressInfo).port).toBe(E2E_SMTP_PORT);
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
  await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
});

test.describe('sign-in flow pages', () => {
  test('/login runs on a login flow: its id in the address bar, return_to kept, then signed in there', async ({ page }) => {
    const login = new LoginPage(page);
    await page.goto('/login?return_to=%2Fhealth');
    await flowIdOf(page);
    await expect(page).toHaveURL(/return_to=%2Fhealth/);
    expect(await seriousViolations(page)).toEqual([]);
    await login.signIn(ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/health$/);
    await new Shell(page).expectLoaded('Health');
  });

  test('a wrong password shows the flow\'s message, a new try works (axe clean in the error state)', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn(ADMIN.email, 'not-the-password');
    await expect(login.error).toHaveText(INVALID);
    await expect(page).toHaveURL(/\/login\?flow=/);
    expect(await seriousViolations(page)).toEqual([]);
    await login.signIn(ADMIN.email, ADMIN.password);
    await new Shell(page).expectLoaded('Topology');
  });

  test('keyboard only: the first field has focus, Tab to the password, Enter signs in', async ({ page }) => {
    await page.goto('/login');
    await flowIdOf(page);
    await expect(page.getByLabel('Username or email')).toBeFocused();
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Password')).toBeFocused();
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await new Shell(page).expectLoaded('Topology');
  });

  test('an expired flow: the toast, then a new flow that signs in', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    const first = await flowIdOf(page);
    await db.query(`UPDATE auth_flows SET expires_at = now() - interval '1 minute' WHERE id = $1`, [first]);
    await login.signIn(ADMIN.email, ADMIN.password);
    await expect(toastWith(page, 'Your interaction expired, please fill out the form again.')).toBeVisible();
    await expect.poll(() => new URL(page.url()).searchParams.get('flow')).not.toBe(first);
    await login.signIn(ADMIN.email, ADMIN.password);
    await new Shell(page).expectLoaded('Topology');
  });

  test('a tampered CSRF cookie: the security toast, then a new flow that signs in', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    const first = await flowIdOf(page);
    await page.context().addCookies([{ name: 'csrf_token_ory', value: 'tampered-token-value', url: BASE_URL }]);
    await login.signIn(ADMIN.email, ADMIN.password);
    await expect(toastWith(page, 'A security violation was detected, please fill out the form again.')).toBeVisible();
    await expect.poll(() => new URL(page.url()).searchParams.get('flow')).not.toBe(first);
    await login.signIn(ADMIN.email, ADMIN.password);
    await new Shell(page).expectLoaded('Topology');
  });

  test('a stale flow id in the address bar gets a new flow; a foreign return_to is refused with its toast', async ({ page }) => {
    await page.goto('/login?flow=00000000-0000-4000-8000-000000000000');
    await expect.poll(() => new URL(page.url()).searchParams.get('flow')).not.toBe('00000000-0000-4000-8000-000000000000');
    await page.goto('/login?return_to=https%3A%2F%2Fevil.example%2Fsteal');
    await expect(toastWith(page, 'The return_to address is not allowed.')).toBeVisible();
    await flowIdOf(page);
    await expect(page).not.toHaveURL(/evil/);
  });

  test('recovery by the code from the mail: signed in and sent on to set a new password', async ({ page }) => {
    const user = await createUser(admin, 'viewer');
    const recovery = new RecoveryPage(page);
    await recovery.goto();
    expect(await seriousViolations(page)).toEqual([]);
    await recovery.askFor(user.email);
    await expect(page.getByRole('status').filter({ hasText: 'An email containing a recovery code has been sent' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);

    // the invite's mail went to the same address first: the recovery mail is the one with a code
    const codeFor = () => mails.filter((m) => m.to === user.email).map((m) => recoveryCode(m.body)).find(Boolean);
    await expect.poll(codeFor, { timeout: 20_000 }).toBeTruthy();
    const code = codeFor();
    expect(code).toMatch(/^\d{6}$/);

    // a wrong code first: the flow's message at the field
    await recovery.enter(code === '000000' ? '111111' : '000000');
    await expect(page.getByText('The recovery code is invalid or has already been used. Please try again.')).toBeVisible();
    await recovery.enter(code!);
    await expect(page).toHaveURL(/\/profile-settings\?flow=/);
  });

  test('registration from an invite: traits from the invite, a confirmation that must match, then signed in', async ({ page }) => {
    const email = `flow-invited-${Date.now()}@e2e.test`;
    const invite = await admin.api.post('/api/auth/invite_user', {
      data: { firstName: 'Iris', lastName: 'Invited', email, role: 'viewer' },
      headers: { 'x-csrf-token': admin.csrf },
    });
    expect(invite.status()).toBe(200);
    const link = new URL((await invite.json()).link);
    await page.goto(`${link.pathname}${link.search}`);
    await flowIdOf(page);
    await expect(page).not.toHaveURL(/invite=/);
    await expect(page.getByRole('textbox', { name: /E-?Mail/i })).toHaveValue(email);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('textbox', { name: 'Password', exact: false }).first().fill('iris-password-1');
    await page.getByLabel('Confirm password').fill('different-1');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await page.getByLabel('Confirm password').fill('iris-password-1');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await new Shell(page).expectLoaded('Topology');
  });

  test('/verification and /error: a flow page and the error page (unknown id → home), axe clean', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn(ADMIN.email, ADMIN.password);
    await new Shell(page).expectLoaded('Topology');
    await page.goto('/verification');
    await flowIdOf(page);
    await expect(page.getByRole('heading', { name: 'Verify your email' })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);

    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO auth_flow_errors (error) VALUES ($1) RETURNING id`,
      [{ code: 500, status: 'Internal Server Error', message: 'The flow broke in an e2e test', reason: 'A reason to show' }],
    );
    await page.goto(`/error?id=${rows[0].id}`);
    await expect(page.getByRole('heading', { name: 'An error occurred' })).toBeVisible();
    await expect(page.getByText('The flow broke in an e2e test')).toBeVisible();
    await expect(page.getByText('A reason to show')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Go back' })).toHaveAttribute('href', '/');
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto('/error?id=00000000-0000-4000-8000-000000000000');
    await expect(page).toHaveURL(/\/topology$/);
  });
});
