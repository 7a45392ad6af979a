import { expect, type Locator, type Page } from '@playwright/test';

/** /login as a user sees it. */
export class LoginPage {
  readonly username: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.username = page.getByLabel('Username or email');
    this.password = page.getByLabel('Password');
    // exact: the passkey button ("Sign in with passkey") sits below the password form
    this.submit = page.getByRole('button', { name: 'Sign in', exact: true });
    this.error = page.getByRole('alert');
  }

  async goto(returnTo?: string) {
    await this.page.goto(returnTo ? `/login?return_to=${encodeURIComponent(returnTo)}` : '/login');
    await expect(this.submit).toBeVisible();
  }

  async signIn(username: string, password: string) {
    await this.username.fill(username);
    await this.password.fill(password);
    await this.submit.click();
  }
}
