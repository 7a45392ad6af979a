import { Suspense, type ReactNode } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { Spinner } from '@fluentui/react-components';
import { Page } from '../components/page';
import { useLiveUpdates } from '../lib/live-updates';
import { ErrorBoundary } from './gates/error-boundary';
import { paths } from './paths';
import { ROUTES, type AppRoute } from './route-table';
import { FeatureDisabledPage, NotAvailablePage, NotFoundPage, UnauthorizedPage } from './route-preload';
import { useSession } from './session-context';
import { AppShell } from './shell/app-shell';
import { homePath } from './shell/nav-items';

type Params = Record<string, string | undefined>;

/** While a status page's code (route-preload.ts) loads: the route's title and a spinner, as for a page. */
function StatusPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Suspense
      fallback={
        <Page title={title}>
          <Spinner label="Loading…" />
        </Page>
      }
    >
      {children}
    </Suspense>
  );
}

/** Feature flag, then permission, then the page (or the shared "not available" page). */
function RouteGate({ route, params }: { route: AppRoute; params: Params }) {
  const session = useSession();
  if (route.feature && !session.enabled(route.feature)) {
    return (
      <StatusPage title={route.title}>
        <FeatureDisabledPage title={route.title} />
      </StatusPage>
    );
  }
  if (route.resource && !session.can(route.resource, route.action ?? 'read')) {
    return (
      <StatusPage title={route.title}>
        <UnauthorizedPage title={route.title} />
      </StatusPage>
    );
  }
  if (!route.page) {
    return (
      <StatusPage title={route.title}>
        <NotAvailablePage title={route.title} />
      </StatusPage>
    );
  }
  const PageComponent = route.page;
  return (
    <Suspense
      fallback={
        <Page title={route.title}>
          <Spinner label="Loading…" />
        </Page>
      }
    >
      <PageComponent params={params} />
    </Suspense>
  );
}

/** Every signed-in route: the bare (embeddable) ones alone, the rest inside the shell. */
export function SignedInRoutes() {
  const session = useSession();
  useLiveUpdates(); // one /api/ws per tab while signed in: server changes refresh the cached queries
  const [location] = useLocation();
  const checkRunner = session.about.mode === 'check-runner';
  const routes = checkRunner ? ROUTES.filter((r) => r.checkRunner) : ROUTES;
  const bare = routes.filter((r) => r.bare);
  return (
    <Switch>
      {/* embeddable views: the page alone, outside the shell */}
      {bare.map((route) => (
        <Route key={route.path} path={route.path}>
          {(params: Params) => (
            <ErrorBoundary resetKey={location}>
              <RouteGate route={route} params={params} />
            </ErrorBoundary>
          )}
        </Route>
      ))}
      <Route>
        <ShellRoutes routes={routes.filter((r) => !r.bare)} checkRunner={checkRunner} />
      </Route>
    </Switch>
  );
}

/** Every other signed-in route, inside the shell. */
function ShellRoutes({ routes, checkRunner }: { routes: AppRoute[]; checkRunner: boolean }) {
  const session = useSession();
  const [location] = useLocation();
  return (
    <AppShell>
      <ErrorBoundary resetKey={location}>
        <Switch>
          <Route path={paths.home}>
            <Redirect to={homePath(session)} replace />
          </Route>
          {!checkRunner && (
            <Route path={paths.configs}>
              <Redirect to={paths.catalog} replace />
            </Route>
          )}
          {routes.map((route) => (
            <Route key={route.path} path={route.path}>
              {(params: Params) => <RouteGate route={route} params={params} />}
            </Route>
          ))}
          <Route>
            <StatusPage title="Page not found">
              <NotFoundPage />
            </StatusPage>
          </Route>
        </Switch>
      </ErrorBoundary>
    </AppShell>
  );
}
