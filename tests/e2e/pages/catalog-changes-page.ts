import { expect, type Locator, type Page } from '@playwright/test';

// a page's first visit downloads its lazy chunks: on a loaded 2-core machine that took over 10 s
const FIRST_LOAD_MS = 30_000;

/** Catalog → Changes and Insights, and an item's Relationships tab. */
export class CatalogChangesPage {
  readonly changeFilters: Locator;
  readonly changesTable: Locator;
  readonly insightFilters: Locator;
  readonly insightsTable: Locator;
  readonly relationshipFilters: Locator;
  readonly relatedTable: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.changeFilters = page.getByRole('search', { name: 'Change filters' });
    this.changesTable = page.getByRole('table', { name: 'Changes' });
    this.insightFilters = page.getByRole('search', { name: 'Insight filters' });
    this.insightsTable = page.getByRole('table', { name: 'Insights' });
    this.relationshipFilters = page.getByRole('group', { name: 'Relationship filters' });
    this.relatedTable = page.getByRole('table', { name: 'Related configs' });
    this.dialog = page.getByRole('dialog');
  }

  async gotoChanges(query = '') {
    await this.page.goto(`/catalog/changes${query}`);
    await expect(this.changeFilters).toBeVisible({ timeout: FIRST_LOAD_MS });
  }

  async gotoInsights(query = '') {
    await this.page.goto(`/catalog/insights${query}`);
    await expect(this.insightFilters).toBeVisible({ timeout: FIRST_LOAD_MS });
  }

  async gotoRelationships(configId: string, query = '') {
    await this.page.goto(`/catalog/${configId}/relationships${query}`);
    await expect(this.relationshipFilters).toBeVisible({ timeout: FIRST_LOAD_MS });
  }

  /** Changes rows whose summary reads this. */
  changeRow(summary: string): Locator {
    return this.changesTable.getByRole('row').filter({ hasText: summary });
  }

  insightRow(analyzer: string): Locator {
    return this.insightsTable.getByRole('row').filter({ hasText: analyzer });
  }

  relatedRow(name: string): Locator {
    return this.relatedTable.getByRole('row').filter({ has: this.page.getByRole('link', { name, exact: true }) });
  }

  async chooseIn(bar: Locator, filter: string, option: string) {
    await bar.getByRole('combobox', { name: filter }).click();
    // a multi-select's options are menuitemcheckboxes (Fluent's Option)
    await this.page.getByRole('option', { name: option, exact: true }).or(this.page.getByRole('menuitemcheckbox', { name: option, exact: true })).click();
    // a multi-select stays open: close it
    await this.page.keyboard.press('Escape');
  }

  view(name: 'Table' | 'Graph', list = 'Changes view'): Locator {
    return this.page.getByRole('tablist', { name: list }).getByRole('tab', { name });
  }

  switch(name: string): Locator {
    return this.relationshipFilters.getByRole('switch', { name });
  }

  url(): URL {
    return new URL(this.page.url());
  }
}
