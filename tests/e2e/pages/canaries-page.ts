import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Health Checks (/settings/canaries) and a canary's page with its Form and Code tabs. */
export class CanariesPage {
  readonly table: Locator;
  readonly addButton: Locator;
  readonly editor: Locator;
  readonly problems: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Health Checks' });
    this.addButton = page.getByRole('link', { name: 'Add Health Check' });
    this.editor = page.getByRole('group', { name: 'Canary spec (YAML)' });
    this.problems = page.getByRole('list', { name: 'Problems' });
  }

  async goto() {
    await this.page.goto('/settings/canaries');
    await expect(this.table).toBeVisible();
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ hasText: name });
  }

  /** A text box by label; without `within`, the canary's own (its fields come before the checks' fields). */
  field(label: string, within?: Locator): Locator {
    return within ? within.getByRole('textbox', { name: label, exact: true }) : this.page.getByRole('textbox', { name: label, exact: true }).first();
  }

  httpCheck(n: number): Locator {
    return this.page.getByRole('group', { name: `HTTP check ${n}` });
  }

  saveButton(label: 'Save' | 'Update'): Locator {
    return this.page.getByRole('button', { name: label, exact: true });
  }

  tab(name: 'Form' | 'Code' | 'Spec' | 'Job History'): Locator {
    return this.page.getByRole('tab', { name, exact: true });
  }

  /** Replaces the Code tab's YAML with one line (Monaco re-indents typed newlines, so flow style it is). */
  async setYaml(text: string) {
    await this.editor.locator('.monaco-editor').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }

  /** Monaco's error squiggles in the Code tab. */
  errorMarkers(): Locator {
    return this.editor.locator('.squiggly-error');
  }
}
