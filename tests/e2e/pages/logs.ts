import { expect, type Page } from '@playwright/test';

/** The /logs page: pickers, search box, the lines table. */
export class LogsPage {
  constructor(readonly page: Page) {}

  get component() {
    return this.page.getByRole('combobox', { name: 'Component' });
  }

  get selector() {
    return this.page.getByRole('combobox', { name: 'Selector' });
  }

  get search() {
    return this.page.getByRole('searchbox', { name: 'Search' });
  }

  get rows() {
    return this.page.getByTestId('log-row');
  }

  row(text: string) {
    return this.rows.filter({ hasText: text });
  }

  async chooseComponent(name: string) {
    await this.component.click();
    await this.page.getByRole('option', { name }).click();
    await expect(this.component).toHaveText(name);
  }

  /** Counts the POST /api/logs requests the page sends from now on. */
  countSearches(): { readonly count: number } {
    const counter = { count: 0 };
    this.page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/logs') counter.count++;
    });
    return counter;
  }
}
