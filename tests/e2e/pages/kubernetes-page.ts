import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → Kubernetes. */
export class KubernetesPage {
  readonly connection: Locator;
  readonly kinds: Locator;
  readonly invalid: Locator;

  constructor(readonly page: Page) {
    this.connection = page.getByRole('region', { name: /^Cluster connection/ });
    this.kinds = page.getByRole('region', { name: 'Watched kinds' });
    this.invalid = page.getByRole('region', { name: 'Invalid resources' });
  }

  async goto() {
    await this.page.goto('/settings/kubernetes');
    await expect(this.connection).toBeVisible();
  }

  /** The value next to a term of the connection card (Source, API server, Leader). */
  fact(term: string): Locator {
    return this.connection.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
  }

  kindRow(kind: string): Locator {
    return this.kinds.getByRole('row').filter({ has: this.page.getByText(kind, { exact: true }) });
  }
}
