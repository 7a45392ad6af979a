import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Integrations: the list, the Add Integration dialog and an integration's page. */
export class IntegrationsPage {
  readonly table: Locator;
  readonly dialog: Locator;
  readonly addButton: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Integrations' });
    this.dialog = page.getByRole('dialog');
    this.addButton = page.getByRole('button', { name: 'Add Integration' });
  }

  async goto() {
    await this.page.goto('/settings/integrations');
    await expect(this.table).toBeVisible({ timeout: 30_000 });
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ hasText: name });
  }

  tile(title: string): Locator {
    return this.dialog.getByRole('button', { name: title, exact: true });
  }

  tab(name: 'Flux' | 'Helm CLI' | 'Spec' | 'Job History'): Locator {
    return this.page.getByRole('tab', { name, exact: true });
  }

  /** The generated snippet of the selected tab. */
  snippet(): Locator {
    return this.dialog.getByRole('tabpanel').locator('pre');
  }

  field(name: 'Namespace' | 'Interval'): Locator {
    return this.dialog.getByRole('textbox', { name });
  }

  /** Replaces the values editor's YAML with one line (Monaco re-indents typed newlines, so flow style it is). */
  async setValues(text: string) {
    await this.dialog.getByRole('group', { name: 'Values' }).locator('.monaco-editor').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }
}
