/**
 * Stands in for `rtl-css-js/core` in the browser bundle (aliased in web/vite.config.ts). Griffel's runtime style
 * compiler asks it for the right-to-left twin of every rule of the console's own makeStyles calls; the console is
 * left-to-right only (no language or `dir` switch), so each rule is its own twin and no RTL classes are generated.
 * Fluent's components ship precompiled styles with their RTL rules, untouched by this. About 2 kB gzip at start-up.
 * Should the console ever render right to left, remove the alias.
 */
type Definition = { key: string; value: unknown };

export function convertProperty(key: string, value: unknown): Definition {
  return { key, value };
}

export function convert<T>(object: T): T {
  return object;
}
