import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Users as an administrator sees it. */
export class UsersPage {
  readonly table: Locator;
  readonly inviteButton: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Users' });
    this.inviteButton = page.getByRole('button', { name: 'Invite User' });
    this.dialog = page.getByRole('dialog');
  }

  /** Newest first, so a user made by the test is on the first page however many the suite made. */
  async goto() {
    await this.page.goto('/settings/users?sortBy=created_at&sortOrder=desc');
    await expect(this.table.getByRole('row').nth(1)).toBeVisible();
  }

  row(text: string): Locator {
    return this.table.getByRole('row').filter({ hasText: text });
  }

  field(name: string): Locator {
    return this.dialog.getByRole('textbox', { name, exact: true });
  }

  get roleSelect(): Locator {
    return this.dialog.getByRole('combobox', { name: 'Role' });
  }

  async fillInvite(user: { first: string; last: string; email: string; role: string }) {
    await this.field('First name').fill(user.first);
    await this.field('Last name').fill(user.last);
    await this.field('Email').fill(user.email);
    await this.roleSelect.selectOption(user.role);
  }

  /** The link the dialog shows after a successful invite. */
  get inviteLink(): Locator {
    return this.dialog.getByRole('textbox', { name: 'Invite link' });
  }

  async edit(text: string) {
    await this.row(text)
      .getByRole('button', { name: /^Edit / })
      .click();
    await expect(this.dialog.getByRole('heading', { name: 'Edit User' })).toBeVisible();
  }

  async delete(text: string) {
    await this.row(text)
      .getByRole('button', { name: /^Delete / })
      .click();
    await expect(this.dialog.getByRole('heading', { name: 'Delete User ?' })).toBeVisible();
  }
}
