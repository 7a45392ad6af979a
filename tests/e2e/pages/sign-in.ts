import { expect, type Page } from '@playwright/test';
import { ADMIN } from '../env';
import { LoginPage } from './login-page';
import { Shell } from './shell';

/**
 * Signs in as a test's set-up and waits for the shell at `returnTo` (else `/`). The session comes from
 * `POST /api/auth/login` sent through `page.request`, which shares the page's cookie jar, so the browser holds the
 * same httpOnly cookie a form sign-in sets; it skips loading /login and its flow, seconds per test on a 2-core machine.
 * Specs about signing in use {@link signInWithForm} or the LoginPage itself.
 */
export async function signIn(page: Page, username = ADMIN.email, password = ADMIN.password, returnTo?: string) {
  await signInSession(page, username, password);
  await page.goto(returnTo ?? '/');
  const shell = new Shell(page);
  await shell.expectLoaded();
  return shell;
}

/**
 * Only the session (the API sign-in above), without opening a page: for a test whose next step opens its own page, so
 * the browser loads the application once. Returns the shell that page will show.
 */
export async function signInSession(page: Page, username = ADMIN.email, password = ADMIN.password) {
  const res = await page.request.post('/api/auth/login', { data: { username, password } });
  expect(res.status(), await res.text()).toBe(200);
  return new Shell(page);
}

/** Signs in through the /login form, as a person does, and waits for the shell (optionally at `returnTo`). */
export async function signInWithForm(page: Page, username = ADMIN.email, password = ADMIN.password, returnTo?: string) {
  const login = new LoginPage(page);
  await login.goto(returnTo);
  await login.signIn(username, password);
  const shell = new Shell(page);
  await shell.expectLoaded();
  return shell;
}
