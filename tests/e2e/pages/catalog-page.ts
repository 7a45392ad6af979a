import { expect, type Locator, type Page } from '@playwright/test';

/** /catalog: the tab bar, the filter bar and the groups table whose rows expand to their items. */
export class CatalogPage {
  readonly groups: Locator;
  readonly filters: Locator;

  constructor(readonly page: Page) {
    this.groups = page.getByRole('table', { name: 'Catalog groups' });
    this.filters = page.getByRole('search', { name: 'Catalog filters' });
  }

  async goto(query = '') {
    await this.page.goto(`/catalog${query}`);
    // the page's chunk loads on first visit: on a loaded machine that alone can take over 10 s
    await expect(this.filters).toBeVisible({ timeout: 45_000 });
  }

  /** The group row whose first cell reads exactly `value` (next to its Expand button). */
  group(value: string): Locator {
    return this.groups.getByRole('row').filter({ has: this.page.getByRole('cell').getByText(value, { exact: true }) });
  }

  /** A group row's count cell. */
  count(value: string, n: number): Locator {
    return this.group(value).getByRole('cell', { name: String(n), exact: true }).first();
  }

  /** Expands a group and returns its items table. */
  async expand(value: string): Promise<Locator> {
    await this.group(value).getByRole('button', { name: 'Expand row' }).click();
    const items = this.page.getByRole('table', { name: `${value} items` });
    await expect(items).toBeVisible();
    return items;
  }

  async choose(filter: 'Group by' | 'Type' | 'Status' | 'Health', option: string) {
    await this.filters.getByRole('combobox', { name: filter }).click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }
}

/** /catalog/{id} and its tabs: the tab list with badges, the tab body and the Details sidebar. */
export class ConfigItemPage {
  readonly tabs: Locator;
  readonly sidebar: Locator;

  constructor(readonly page: Page) {
    this.tabs = page.getByRole('tablist', { name: 'Catalog item' });
    this.sidebar = page.getByRole('complementary', { name: 'Details' });
  }

  async goto(id: string, tab = '', query = '') {
    await this.page.goto(`/catalog/${id}${tab ? `/${tab}` : ''}${query}`);
    await expect(this.tabs).toBeVisible({ timeout: 45_000 });
  }

  tab(name: string): Locator {
    return this.tabs.getByRole('tab', { name: new RegExp(`^${name}`) });
  }

  /** The sidebar value next to a row label (its <dd>). */
  row(label: string): Locator {
    return this.sidebar.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
  }

  lineNumber(n: number): Locator {
    return this.page.getByRole('button', { name: `Line ${n}`, exact: true });
  }
}
