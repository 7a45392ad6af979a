import type { Page } from '@playwright/test';
import { ADMIN } from '../env';
import { LoginPage } from './login-page';
import { Shell } from './shell';

/** Signs in through the form and waits for the shell (optionally at `returnTo`). */
export async function signIn(page: Page, username = ADMIN.email, password = ADMIN.password, returnTo?: string) {
  const login = new LoginPage(page);
  await login.goto(returnTo);
  await login.signIn(username, password);
  const shell = new Shell(page);
  await shell.expectLoaded();
  return shell;
}
