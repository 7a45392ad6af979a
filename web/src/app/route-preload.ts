import { lazy } from 'react';
import { matchRoute, type Parser } from 'wouter';
import { ROUTES } from './route-table';

// The status pages (not available, unauthorized, not found, feature disabled) and their icons load when one is
// shown: a page that exists never needs them. preloadRoutePage starts the load at start-up when the URL asks for one.
const loadStatusPages = () => import('./routes/status-pages');
export const FeatureDisabledPage = lazy(() => loadStatusPages().then((m) => ({ default: m.FeatureDisabledPage })));
export const NotAvailablePage = lazy(() => loadStatusPages().then((m) => ({ default: m.NotAvailablePage })));
export const NotFoundPage = lazy(() => loadStatusPages().then((m) => ({ default: m.NotFoundPage })));
export const UnauthorizedPage = lazy(() => loadStatusPages().then((m) => ({ default: m.UnauthorizedPage })));
const STATUS_PAGES = [FeatureDisabledPage, NotAvailablePage, NotFoundPage, UnauthorizedPage];

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
  const route = ROUTES.find((r) => matchRoute(parser, r.path, path)[0]);
  // a route without a page of its own (or none: not found, a generic settings table) shows a status page
  for (const page of route?.page ? [route.page] : STATUS_PAGES) initLazy(page);
}

/** Starts a `React.lazy()` component's import the way its first render would. */
function initLazy(component: object) {
  const lazy = component as LazyInternals;
  if (typeof lazy._init !== 'function') return;
  try {
    lazy._init(lazy._payload);
  } catch {
    // the pending import, thrown the way React's render expects; React's own handlers on it report a failed load
  }
}
