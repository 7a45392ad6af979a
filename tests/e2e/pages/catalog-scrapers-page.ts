import { expect, type Locator, type Page } from '@playwright/test';

/** /catalog/scrapers and a scraper's page: list, type tiles, Form and Code, Run now, Job History. */
export class CatalogScrapersPage {
  readonly table: Locator;
  readonly problems: Locator;
  readonly breadcrumb: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Catalog Scrapers' });
    this.problems = page.getByRole('list', { name: 'Problems' });
    this.breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
  }

  /** The list's first paint loads the catalog pages' code: 10-14 s on the shared 2-core machine at load ~15-20. */
  async goto() {
    await this.page.goto('/catalog/scrapers');
    await expect(this.table).toBeVisible({ timeout: 45_000 });
  }

  get addButton(): Locator {
    return this.page.getByRole('link', { name: 'Add Scraper' });
  }

  get runNow(): Locator {
    return this.page.getByRole('button', { name: 'Run now' });
  }

  /** The Run now progress and result. */
  get runStatus(): Locator {
    return this.page.getByRole('status').filter({ hasText: /Running…|Run finished/ });
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ hasText: name });
  }

  tile(label: string): Locator {
    return this.page.getByRole('region', { name: 'Select Scraper Type' }).getByRole('button', { name: label, exact: true });
  }

  field(label: string): Locator {
    return this.page.getByRole('textbox', { name: label, exact: true });
  }

  select(label: string): Locator {
    return this.page.getByRole('combobox', { name: label, exact: true });
  }

  tab(name: 'Form' | 'Code' | 'Spec' | 'Job History' | 'Scrapers'): Locator {
    return this.page.getByRole('tab', { name, exact: true });
  }

  button(name: 'Save' | 'Update' | 'Back' | 'Delete'): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }

  get editor(): Locator {
    return this.page.getByRole('group', { name: 'Scraper spec (YAML)' });
  }

  /**
   * Waits for the Code tab's editor: Monaco is a lazy chunk of about 800 kB gzip whose first evaluation took 13 s on
   * the shared 2-core machine under load, beyond the default expect timeout.
   */
  async editorLoaded() {
    await expect(this.editor).toBeVisible({ timeout: 90_000 });
  }

  /** Replaces the Code tab's YAML with one line (Monaco re-indents typed newlines, so flow style it is). */
  async setYaml(text: string) {
    await this.editor.locator('.monaco-editor').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }

  errorMarkers(): Locator {
    return this.editor.locator('.squiggly-error');
  }

  get jobsTable(): Locator {
    return this.page.getByRole('table', { name: 'Job history' });
  }
}
