import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Job History (/settings/jobs). */
export class JobsPage {
  readonly table: Locator;
  readonly filters: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Job history' });
    this.filters = page.getByRole('search', { name: 'Job filters' });
    this.dialog = page.getByRole('dialog');
  }

  async goto(query = '') {
    await this.page.goto(`/settings/jobs${query}`);
    await expect(this.filters).toBeVisible();
  }

  /** Rows whose Resource cell names this resource. */
  rowsOf(resource: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('link', { name: resource, exact: true }) });
  }

  async choose(filter: 'Job Name' | 'Resource Type' | 'Status', option: string) {
    await this.filters.getByRole('combobox', { name: filter }).click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }

  get minDuration(): Locator {
    return this.filters.getByRole('spinbutton', { name: 'Min Duration (ms)' });
  }

  url(): URL {
    return new URL(this.page.url());
  }
}
