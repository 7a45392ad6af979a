/**
 * Stands in for `@fluentui/tokens/lib/tokens.js` (aliased in web/vite.config.ts). Fluent's `tokens` object maps
 * each of its 459 design-token names to `var(--<name>)`, spelled out in full (31 kB raw, 3.5 kB gzip in the
 * start-up chunk); this Proxy answers the same string for every name it is asked. Reading is all the console and
 * Fluent do with it (styles name tokens one by one; the themes are separate objects).
 */
import type { Theme } from '@fluentui/tokens';

export const tokens = new Proxy({} as Record<keyof Theme, string>, {
  get: (_, name) => (typeof name === 'string' ? `var(--${name})` : undefined),
});
