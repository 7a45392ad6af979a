import { expect, type Locator, type Page } from '@playwright/test';

/** /health and its check drawer. */
export class HealthPage {
  readonly table: Locator;
  readonly cards: Locator;
  readonly search: Locator;
  readonly hidePassing: Locator;
  readonly drawer: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Health checks' });
    this.cards = page.getByRole('list', { name: 'Health checks' });
    this.search = page.getByRole('searchbox', { name: 'Search' });
    this.hidePassing = page.getByRole('switch', { name: 'Hide Passing' });
    this.drawer = page.getByRole('dialog');
  }

  async goto(query = '') {
    await this.page.goto(`/health${query}`);
    await expect(this.hidePassing).toBeVisible();
  }

  row(name: string | RegExp): Locator {
    return this.table.getByRole('row').filter({ hasText: name });
  }

  async chooseGroupBy(label: string) {
    await this.page.getByRole('combobox', { name: 'Group By' }).click();
    await this.page.getByRole('option', { name: label, exact: true }).click();
  }

  historyTable(): Locator {
    return this.drawer.getByRole('table', { name: 'Check history' });
  }

  runNow(): Locator {
    return this.drawer.getByRole('button', { name: 'Run Now' });
  }
}
