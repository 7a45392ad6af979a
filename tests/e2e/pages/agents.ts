import { expect, type Locator, type Page } from '@playwright/test';

/** /agents: the list, Create new agent, Installation Instructions and the editor. */
export class AgentsPage {
  readonly table: Locator;
  readonly addButton: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Agents' });
    this.addButton = page.getByRole('button', { name: 'Add Agent' });
  }

  async goto(query = '') {
    await this.page.goto(`/agents${query}`);
    // the table, or its empty state on a server without agents (the page's chunk loads on first visit)
    await expect(this.table.or(this.page.getByText('No agents yet')).first()).toBeVisible({ timeout: 30_000 });
  }

  dialog(title: string): Locator {
    return this.page.getByRole('dialog', { name: title });
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('cell', { name, exact: true }) });
  }

  /** Fills Create new agent (one property) and presses Next; returns the token the server answered with. */
  async create(name: string, property?: { key: string; value: string }): Promise<string> {
    await this.addButton.click();
    const form = this.dialog('Create new agent');
    await form.getByRole('textbox', { name: 'Name' }).fill(name);
    if (property) {
      await form.getByRole('button', { name: 'Add property' }).click();
      await form.getByRole('textbox', { name: 'Key 1' }).fill(property.key);
      await form.getByRole('textbox', { name: 'Value 1' }).fill(property.value);
    }
    const answer = this.page.waitForResponse((r) => r.url().endsWith('/api/agent/generate') && r.request().method() === 'POST');
    await form.getByRole('button', { name: 'Next' }).click();
    const res = await answer;
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()).access_token as string;
  }

  get install(): Locator {
    return this.dialog('Installation Instructions');
  }
}
