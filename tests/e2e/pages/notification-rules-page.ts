import { expect, type Locator, type Page } from '@playwright/test';

/** /notifications/rules and its Create / Edit Notification modal. */
export class NotificationRulesPage {
  readonly table: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Notification rules' });
    this.dialog = page.getByRole('dialog');
  }

  async goto(query = '') {
    await this.page.goto(`/notifications/rules${query}`);
    // a cold page loads the notifications chunk first: on a busy 2-core runner that alone can pass 10 s
    await expect(this.table).toBeVisible({ timeout: 30_000 });
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('cell', { name, exact: true }) });
  }

  /** A text box of the modal by its label (a required label reads "Name *"). */
  field(label: string): Locator {
    return this.dialog.getByRole('textbox', { name: label });
  }

  async pickEvent(event: string) {
    // the open list holds every event: choose from it without racing the type-to-filter
    await this.dialog.getByRole('combobox', { name: 'Events' }).click();
    await this.page.getByRole('listbox').getByRole('option', { name: event, exact: true }).click();
  }

  /** Chooses the person whose option mentions `email` (the list is sorted by name, so by text not index). */
  async pickPerson(email: string) {
    const select = this.dialog.getByRole('combobox', { name: 'Person' });
    await expect(select.locator('option', { hasText: email })).toHaveCount(1);
    const value = await select.locator('option', { hasText: email }).getAttribute('value');
    await select.selectOption(value ?? '');
  }
}

/** /notifications/silences and /notifications/silences/add. */
export class NotificationSilencesPage {
  readonly table: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Notification silences' });
  }

  async goto() {
    await this.page.goto('/notifications/silences');
    await expect(this.table).toBeVisible({ timeout: 30_000 });
  }

  row(text: string): Locator {
    return this.table.getByRole('row').filter({ hasText: text });
  }

  get form(): Locator {
    return this.page.getByRole('form', { name: 'Add Silence' });
  }
}
