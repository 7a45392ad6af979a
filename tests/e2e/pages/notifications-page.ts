import { expect, type Locator, type Page } from '@playwright/test';

/** /notifications: the send history, its filters and a send's drawer. */
export class NotificationHistoryPage {
  readonly table: Locator;
  readonly filters: Locator;
  readonly drawer: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Notification send history' });
    this.filters = page.getByRole('search', { name: 'Notification filters' });
    this.drawer = page.getByRole('dialog');
  }

  async goto(query = '') {
    await this.page.goto(`/notifications${query}`);
    await expect(this.filters).toBeVisible({ timeout: 30_000 });
  }

  /** Rows whose Resource cell links to this resource. */
  rowsOf(resource: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('link', { name: resource, exact: true }) });
  }

  async choose(filter: 'Status' | 'Resource Type', option: string) {
    await this.filters.getByRole('combobox', { name: filter }).click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }
}

/** /settings/event-queue-status, "Event Queue". */
export class EventQueuePage {
  readonly table: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Event queue' });
  }

  async goto() {
    await this.page.goto('/settings/event-queue-status');
    await expect(this.table).toBeVisible({ timeout: 30_000 });
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('cell', { name, exact: true }) });
  }
}
