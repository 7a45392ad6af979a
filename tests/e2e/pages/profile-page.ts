import { expect, type Locator, type Page } from '@playwright/test';

/** /profile-settings: Your Profile. */
export class ProfilePage {
  readonly nameSection: Locator;
  readonly passwordSection: Locator;

  constructor(readonly page: Page) {
    this.nameSection = page.getByRole('region', { name: 'Name' });
    this.passwordSection = page.getByRole('region', { name: 'Password' });
  }

  async goto() {
    await this.page.goto('/profile-settings');
    await expect(this.passwordSection).toBeVisible();
  }

  field(name: string): Locator {
    return this.page.getByRole('textbox', { name, exact: true });
  }

  async changeName(first: string, last: string) {
    await this.nameSection.getByRole('textbox', { name: 'First name' }).fill(first);
    await this.nameSection.getByRole('textbox', { name: 'Last name' }).fill(last);
    await this.nameSection.getByRole('button', { name: 'Save' }).click();
  }

  async changePassword(current: string, next: string, confirm = next) {
    await this.field('Current password').fill(current);
    await this.field('New password').fill(next);
    await this.field('Confirm new password').fill(confirm);
    await this.passwordSection.getByRole('button', { name: 'Change password' }).click();
  }
}
