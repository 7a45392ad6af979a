import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * axe findings a user would be blocked by: serious and critical only, one line each.
 *
 * Fluent's focus manager (Tabster) places focus sentinels, `<i data-tabster-dummy tabindex=0 aria-hidden>`, at the
 * page root and inside tab lists and dialogs; a sentinel that receives focus passes it on at once. axe reports them
 * as aria-hidden-focus, a known false positive (microsoft/tabster#288; Accessibility Insights suppresses it the same
 * way), so they, and only they, are left out of the scan.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).exclude('[data-tabster-dummy]').analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
