import { expect, type Locator, type Page } from '@playwright/test';

/** /topology and /topology/{id}: the breadcrumb, the filter bar and the cards. */
export class TopologyPage {
  readonly filters: Locator;
  readonly breadcrumb: Locator;
  readonly cards: Locator;

  constructor(readonly page: Page) {
    this.filters = page.getByRole('search', { name: 'Filter components' });
    this.breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
    this.cards = page.getByRole('list', { name: 'Components' });
  }

  async goto(path = '/topology') {
    await this.page.goto(path);
    // the page's chunk loads on first visit: on a loaded machine that alone can take over 10 s
    await expect(this.filters).toBeVisible({ timeout: 45_000 });
  }

  card(name: string): Locator {
    return this.page.getByRole('article', { name, exact: true });
  }

  async choose(filter: 'Health' | 'Type' | 'Team' | 'Agent' | 'Sort', option: string) {
    await this.filters.getByRole('combobox', { name: filter }).click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }

  get widthSlider(): Locator {
    return this.filters.getByRole('slider', { name: /Card width/ });
  }

  async menu(card: string, item: string) {
    await this.card(card).getByRole('button', { name: `Actions for ${card}` }).click();
    await this.page.getByRole('menuitem', { name: item }).click();
  }
}
