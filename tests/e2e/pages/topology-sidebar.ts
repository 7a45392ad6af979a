import { expect, type Locator, type Page } from '@playwright/test';

/** The topology page's sidebar (the selected component's panels) and a card's menu that opens the dialogs. */
export class TopologySidebar {
  readonly root: Locator;

  constructor(readonly page: Page, readonly component: string) {
    this.root = page.getByRole('complementary', { name: `${component} details` });
  }

  async open(path: string) {
    await this.page.goto(path);
    // the page's chunk loads on first visit: on a loaded machine that alone can take over 10 s
    await expect(this.card(this.component)).toBeVisible({ timeout: 45_000 });
  }

  card(name: string): Locator {
    return this.page.getByRole('article', { name, exact: true });
  }

  /** Clicking a card (not its links or menu) selects it and the sidebar follows; a second click would unselect. */
  async select() {
    if (!(await this.root.isVisible())) await this.card(this.component).click({ position: { x: 8, y: 8 } });
    await expect(this.root).toBeVisible();
  }

  /** A panel's header; not a menu button of the same name (the Playbooks panel's run menu starts with "Playbooks"). */
  panel(title: string): Locator {
    return this.root.getByRole('button', { name: new RegExp(`^${title}`) }).and(this.root.locator('button:not([aria-haspopup])'));
  }

  async openPanel(title: string) {
    const header = this.panel(title);
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    await expect(header).toHaveAttribute('aria-expanded', 'true');
  }

  badge(title: string, count: number): Locator {
    return this.root.getByLabel(`${count} ${title}`, { exact: true });
  }

  async menu(item: string) {
    await this.card(this.component).getByRole('button', { name: `Actions for ${this.component}` }).click();
    await this.page.getByRole('menuitem', { name: item }).click();
  }
}
