import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Connections: the list, the type tiles, a type's form and the test results. */
export class ConnectionsPage {
  readonly table: Locator;
  readonly addButton: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Connections' });
    this.addButton = page.getByRole('button', { name: 'Add Connection' }).first();
  }

  async goto() {
    await this.page.goto('/settings/connections');
    await expect(this.page.getByRole('heading', { name: 'Connections' }).or(this.table).first()).toBeVisible({ timeout: 30_000 });
  }

  dialog(title: string | RegExp): Locator {
    return this.page.getByRole('dialog').filter({ has: this.page.getByRole('heading', { name: title }) });
  }

  get tiles(): Locator {
    return this.dialog('Select Connection Type');
  }

  form(type: string | RegExp = /Connection Details$/): Locator {
    return this.dialog(type);
  }

  get results(): Locator {
    return this.dialog('Test Connection Results');
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ hasText: name });
  }

  /** Add → tiles → the type's form (found through the search box). */
  async startNew(typeLabel: string) {
    await this.addButton.click();
    await expect(this.tiles).toBeVisible();
    await this.tiles.getByRole('textbox', { name: 'Search connection types' }).fill(typeLabel.slice(0, 4));
    await this.tiles.getByRole('button', { name: typeLabel, exact: true }).click();
    await expect(this.form(`${typeLabel} Connection Details`)).toBeVisible();
    return this.form(`${typeLabel} Connection Details`);
  }

  text(form: Locator, label: string): Locator {
    return form.getByRole('textbox', { name: label, exact: true });
  }

  /** A secret-capable field: its group, source radios and inputs. */
  secret(form: Locator, label: string) {
    const group = form.getByRole('group', { name: label, exact: true });
    return {
      group,
      source: (name: 'Static' | 'Secret' | 'ConfigMap') => group.getByRole('radio', { name }),
      value: group.getByLabel(label, { exact: true }),
      refName: (what: 'Secret' | 'ConfigMap' = 'Secret') => group.getByRole('textbox', { name: `${label} ${what} name` }),
      refKey: (what: 'Secret' | 'ConfigMap' = 'Secret') => group.getByRole('textbox', { name: `${label} ${what} key` }),
    };
  }

  /** Fills a new postgres form (static username; password static or a Secret reference). */
  async fillPostgres(form: Locator, c: { name: string; url: string; username: string; password: string | { secret: string; key: string } }) {
    await this.text(form, 'Name').fill(c.name);
    await this.text(form, 'URL').fill(c.url);
    await this.secret(form, 'Username').value.fill(c.username);
    const password = this.secret(form, 'Password');
    if (typeof c.password === 'string') await password.value.fill(c.password);
    else {
      await password.source('Secret').check();
      await password.refName().fill(c.password.secret);
      await password.refKey().fill(c.password.key);
    }
  }

  async open(name: string) {
    await this.row(name).click();
    await expect(this.form()).toBeVisible();
    return this.form();
  }

  /** Test, then the results dialog's message once the test is over. */
  async test(form: Locator): Promise<Locator> {
    await form.getByRole('button', { name: 'Test' }).click();
    await expect(this.results).toBeVisible();
    await expect(this.results.getByText('Testing connection…')).toHaveCount(0, { timeout: 20_000 });
    return this.results;
  }

  async closeResults() {
    await this.results.getByRole('button', { name: 'Close' }).last().click();
    await expect(this.results).toHaveCount(0);
  }
}
