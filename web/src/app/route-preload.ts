import { matchRoute, type Parser } from 'wouter';
import { ROUTES } from './route-table';

/** The parts of a `React.lazy()` object that start its import (React's own lazy protocol, stable since React 16.6). */
interface LazyInternals {
  _init?: (payload: unknown) => unknown;
  _payload?: unknown;
}

/**
 * Starts loading the page chunk of the signed-in route at `path` while the session gate still waits for whoami and
 * about. Why: a page whose chunk is still loading when it first renders suspends, its route shows the "Loading…"
 * fallback, and React then holds the page back until 300 ms after that fallback appeared (its Suspense reveal
 * throttle), however fast the chunk and the page's render are. Initialised through the lazy object itself, the
 * chunk's promise is the one React waits on, so once it has resolved the page renders at once, with no fallback.
 */
export function preloadRoutePage(parser: Parser, path: string) {
  const route = ROUTES.find((r) => r.page && matchRoute(parser, r.path, path)[0]);
  const lazy = route?.page as (NonNullable<typeof route>['page'] & LazyInternals) | undefined;
  if (typeof lazy?._init !== 'function') return;
  try {
    lazy._init(lazy._payload);
  } catch {
    // the pending import, thrown the way React's render expects; React's own handlers on it report a failed load
  }
}
