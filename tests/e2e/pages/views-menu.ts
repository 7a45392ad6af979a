import { expect, type Locator, type Page } from '@playwright/test';

/** The "Views" menu of a catalog filter bar and its dialogs. */
export class ViewsMenu {
  readonly button: Locator;
  readonly menu: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page, bar: Locator) {
    this.button = bar.getByRole('button', { name: 'Views' });
    this.menu = page.getByRole('menu').first();
    this.dialog = page.getByRole('dialog');
  }

  async open() {
    await this.button.click();
    await expect(this.menu).toBeVisible();
  }

  item(name: string): Locator {
    return this.page.getByRole('menuitem', { name });
  }

  /** Saves the page as it is under the name (the dialog's Save button, then the toast). */
  async save(name: string, description = '') {
    await this.open();
    await this.item('Save view…').click();
    await expect(this.dialog).toBeVisible();
    await this.dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    if (description) await this.dialog.getByRole('textbox', { name: 'Description' }).fill(description);
    await this.dialog.getByRole('button', { name: 'Save' }).click();
    await expect(this.dialog).toBeHidden();
  }
}
