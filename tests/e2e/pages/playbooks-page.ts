import { expect, type Locator, type Page } from '@playwright/test';

/** /playbooks, its editor dialog and the run dialog (shared with the check drawer, the catalog and the topology). */
export class PlaybooksPage {
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByRole('dialog');
  }

  async goto() {
    await this.page.goto('/playbooks');
    await expect(this.page.getByRole('heading', { name: 'Playbooks' }).or(this.page.getByText('No playbooks yet')).first()).toBeVisible();
  }

  card(title: string): Locator {
    return this.page.getByRole('listitem', { name: title });
  }

  /** The editor's Monaco: a lazy chunk that can take many seconds to evaluate on a loaded machine. */
  get editor(): Locator {
    return this.dialog.getByRole('group', { name: 'Playbook spec' });
  }

  async editorLoaded() {
    await expect(this.editor.locator('.monaco-editor')).toBeVisible({ timeout: 90_000 });
  }

  /** Replaces the spec with one line (Monaco re-indents typed newlines, so flow style it is). */
  async setYaml(text: string) {
    await this.editor.locator('.monaco-editor').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }

  errorMarkers(): Locator {
    return this.editor.locator('.squiggly-error');
  }

  button(name: string): Locator {
    return this.dialog.getByRole('button', { name, exact: true });
  }

  field(label: string | RegExp): Locator {
    return this.dialog.getByLabel(label);
  }

  /** Types into a resource picker (Check, Catalog Item, Component, or a parameter's) and chooses the match. */
  async pick(label: string | RegExp, name: string) {
    const box = this.dialog.getByRole('combobox', { name: label });
    await box.click();
    await box.pressSequentially(name); // typing opens the list (a fill does not)
    await this.page.getByRole('option', { name: new RegExp(name) }).first().click();
    await expect(box).toHaveValue(name);
  }
}
