import AxeBuilder from '@axe-core/playwright';
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

/**
 * axe findings a user would be blocked by: serious and critical only, one line each. Scan once focus is inside the
 * page: until then Fluent's focus manager keeps two aria-hidden, focusable sentinels at the root of every page,
 * which axe reports as aria-hidden-focus (a shell-wide finding, not a page's).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
