import { expect, type Locator, type Page } from '@playwright/test';

/** A generic settings resource (/settings/{table}): its list, its detail with the spec editor, type tiles. */
export class SettingsResourcesPage {
  readonly table: Locator;
  readonly breadcrumb: Locator;
  readonly problems: Locator;

  constructor(readonly page: Page, readonly tableName: string, readonly title: string, readonly singular: string) {
    this.table = page.getByRole('table', { name: title });
    this.breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
    this.problems = page.getByRole('list', { name: 'Problems' });
  }

  async goto() {
    await this.page.goto(`/settings/${this.tableName}`);
    await expect(this.table).toBeVisible();
  }

  get addButton(): Locator {
    return this.page.getByRole('link', { name: `Add ${this.singular}` });
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ hasText: name });
  }

  tile(label: string): Locator {
    return this.page.getByRole('region', { name: `Select ${this.singular} Type` }).getByRole('button', { name: label, exact: true });
  }

  field(label: string): Locator {
    return this.page.getByRole('textbox', { name: label, exact: true });
  }

  tab(name: 'Form' | 'Code' | 'Spec' | 'Job History' | 'Members'): Locator {
    return this.page.getByRole('tab', { name, exact: true });
  }

  button(name: 'Save' | 'Update' | 'Back' | 'Delete'): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }

  get editor(): Locator {
    return this.page.getByRole('group', { name: `${this.singular} spec (YAML)` });
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
}
