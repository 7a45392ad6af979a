import { expect, type Locator, type Page } from '@playwright/test';

/** The signed-in shell: sidebar, top bar, user menu. */
export class Shell {
  readonly sidebar: Locator;
  readonly title: Locator;
  readonly userMenuButton: Locator;

  constructor(readonly page: Page) {
    this.sidebar = page.getByRole('navigation', { name: 'Main' });
    this.title = page.getByRole('banner').getByRole('heading', { level: 1 });
    this.userMenuButton = page.getByRole('button', { name: /^Account:/ });
  }

  navLink(name: string): Locator {
    return this.sidebar.getByRole('link', { name, exact: true });
  }

  /** A toast's text (web/src/lib/toaster.tsx marks each one's title). */
  toast(text: string | RegExp): Locator {
    return this.page.locator('[data-toast-title]').filter({ hasText: text });
  }

  get settingsToggle(): Locator {
    return this.sidebar.getByRole('button', { name: 'Settings' });
  }

  async expectLoaded(title?: string) {
    await expect(this.sidebar).toBeVisible();
    if (title) await expect(this.title).toHaveText(title);
  }

  async openUserMenu() {
    await this.userMenuButton.click();
    return this.page.getByRole('menu');
  }

  async signOut() {
    const menu = await this.openUserMenu();
    await menu.getByRole('menuitem', { name: 'Sign out' }).click();
    // the sign-in page adds its new flow's id (?flow=…) once it is made
    await expect(this.page).toHaveURL(/\/login(\?flow=[0-9a-f-]+)?$/);
  }
}
