import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Teams and a team's page with its members panel. */
export class TeamsPage {
  readonly table: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Teams' });
    this.dialog = page.getByRole('dialog');
  }

  async goto() {
    await this.page.goto('/settings/teams');
    await expect(this.page.getByRole('button', { name: 'Add Team' })).toBeVisible();
  }

  async addTeam(name: string, icon = '') {
    await this.page.getByRole('button', { name: 'Add Team' }).click();
    await this.dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    if (icon) await this.dialog.getByRole('textbox', { name: 'Icon' }).fill(icon);
    await this.dialog.getByRole('button', { name: 'Save' }).click();
  }

  members(teamName: string): Locator {
    return this.page.getByRole('table', { name: `Members of ${teamName}` });
  }

  memberRow(teamName: string, person: string): Locator {
    return this.members(teamName).getByRole('row').filter({ hasText: person });
  }

  /** Add Members: type each name in the picker and choose it, then Add. */
  async addMembers(names: string[]) {
    await this.page.getByRole('button', { name: 'Add Members' }).click();
    const search = this.dialog.getByRole('combobox', { name: 'People' });
    for (const name of names) {
      await search.pressSequentially(name);
      await this.page.getByRole('option', { name: new RegExp(name) }).click();
    }
    await this.dialog.getByRole('button', { name: 'Add', exact: true }).click();
  }

  async removeMember(teamName: string, person: string) {
    await this.memberRow(teamName, person)
      .getByRole('button', { name: `Remove ${person} from the team` })
      .click();
    await this.dialog.getByRole('button', { name: 'Remove', exact: true }).click();
  }
}
