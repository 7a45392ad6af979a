import { expect, type Locator, type Page } from '@playwright/test';

/** /profile-settings: Your Profile. */
export class ProfilePage {
  readonly nameSection: Locator;
  readonly passwordSection: Locator;
  readonly totpSection: Locator;
  readonly codesSection: Locator;
  readonly keysSection: Locator;
  readonly sessionsSection: Locator;
  readonly activitySection: Locator;

  constructor(readonly page: Page) {
    this.nameSection = page.getByRole('region', { name: 'Profile' });
    this.passwordSection = page.getByRole('region', { name: 'Password' });
    this.totpSection = page.getByRole('region', { name: 'Authenticator app' });
    this.codesSection = page.getByRole('region', { name: 'Recovery codes' });
    this.keysSection = page.getByRole('region', { name: 'Security keys and passkeys' });
    this.sessionsSection = page.getByRole('region', { name: 'Sessions' });
    this.activitySection = page.getByRole('region', { name: 'Sign-in activity' });
  }

  async goto() {
    await this.page.goto('/profile-settings');
    await expect(this.passwordSection).toBeVisible();
  }

  field(name: string): Locator {
    return this.page.getByRole('textbox', { name, exact: true });
  }

  /** The open confirmation dialog. */
  get dialog(): Locator {
    return this.page.getByRole('dialog');
  }

  async changeName(first: string, last: string) {
    await this.nameSection.getByRole('textbox', { name: 'First name' }).fill(first);
    await this.nameSection.getByRole('textbox', { name: 'Last name' }).fill(last);
    await this.nameSection.getByRole('button', { name: 'Save' }).click();
  }

  async changePassword(next: string, confirm = next) {
    await this.field('New password').fill(next);
    await this.field('Confirm new password').fill(confirm);
    await this.passwordSection.getByRole('button', { name: 'Change password' }).click();
  }

  /** Opens the authenticator set-up and returns the key it shows (base32). */
  async startTotp(): Promise<string> {
    await this.totpSection.getByRole('button', { name: 'Set up authenticator app' }).click();
    await expect(this.totpSection.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
    return (await this.totpSection.getByTestId('totp-secret').textContent())!.trim();
  }

  async confirmTotp(code: string) {
    await this.totpSection.getByRole('textbox', { name: 'Verification code' }).fill(code);
    await this.totpSection.getByRole('button', { name: 'Confirm' }).click();
  }

  /** The recovery codes on show (after Generate or Regenerate). */
  async shownCodes(): Promise<string[]> {
    const items = this.codesSection.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect(items.first()).toBeVisible();
    return (await items.allTextContents()).map((t) => t.trim());
  }

  sessionRows(): Locator {
    return this.sessionsSection.getByRole('table', { name: 'Sessions' }).getByRole('row').filter({ has: this.page.getByRole('cell') });
  }
}
