import { expect, type Locator, type Page } from '@playwright/test';

/** The id of the flow the page shows (`?flow=<id>` in the address bar), once it is there. */
export async function flowIdOf(page: Page): Promise<string> {
  await expect(page).toHaveURL(/[?&]flow=[0-9a-f-]{36}/);
  return new URL(page.url()).searchParams.get('flow')!;
}

/** A toast (top right) with this text. */
export const toastWith = (page: Page, text: string): Locator => page.getByText(text, { exact: true });

/** /recovery as a user sees it: the email, then the code from the mail. */
export class RecoveryPage {
  readonly email: Locator;
  readonly code: Locator;
  readonly send: Locator;
  readonly confirm: Locator;

  constructor(readonly page: Page) {
    this.email = page.getByRole('textbox', { name: 'Email' });
    this.code = page.getByRole('textbox', { name: 'Recovery code' });
    this.send = page.getByRole('button', { name: 'Submit' });
    this.confirm = page.getByRole('button', { name: 'Continue' });
  }

  async goto() {
    await this.page.goto('/recovery');
    await expect(this.email).toBeVisible();
  }

  async askFor(email: string) {
    await this.email.fill(email);
    await this.send.click();
    await expect(this.code).toBeVisible();
  }

  async enter(code: string) {
    await this.code.fill(code);
    await this.confirm.click();
  }
}
