import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Feature Flags. */
export class FeatureFlagsPage {
  readonly table: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Feature flags' });
    this.dialog = page.getByRole('dialog');
  }

  async goto() {
    await this.page.goto('/settings/feature-flags');
    await expect(this.table).toBeVisible();
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('cell', { name, exact: true }) });
  }

  get name(): Locator {
    return this.dialog.getByRole('textbox', { name: 'Name' });
  }

  get value(): Locator {
    return this.dialog.getByRole('textbox', { name: 'Value' });
  }

  async add(name: string, value: string) {
    await this.page.getByRole('button', { name: 'Add Feature Flag' }).click();
    await this.name.fill(name);
    await this.value.fill(value);
    await this.dialog.getByRole('button', { name: 'Save' }).click();
  }

  async edit(name: string, value: string) {
    await this.row(name)
      .getByRole('button', { name: `Edit ${name}` })
      .click();
    await expect(this.name).toHaveValue(name);
    await this.value.fill(value);
    await this.dialog.getByRole('button', { name: 'Update' }).click();
  }

  async delete(name: string) {
    await this.row(name)
      .getByRole('button', { name: `Delete ${name}` })
      .click();
    await this.dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  }
}
