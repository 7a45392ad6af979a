import { lazy, Suspense, useState, type ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { Route, Switch, useLocation, useRouter } from 'wouter';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import { FullPageState } from '../components/full-page-state';
import { createQueryClient } from '../lib/query-client';
import { ToastHost } from '../lib/toast';
import { ErrorBoundary } from './gates/error-boundary';
import { SessionGate } from './gates/session-gate';
import { paths } from './paths';
import { preloadRoutePage } from './route-preload';
import { SignedInRoutes } from './signed-in-routes';

// The public pages load on demand: a signed-in page never needs the sign-in forms (cards, fields, message bars).
const LoginPage = lazy(() => import('./routes/login-page').then((m) => ({ default: m.LoginPage })));
const RegistrationPage = lazy(() =>
  import('./routes/registration-page').then((m) => ({ default: m.RegistrationPage })),
);
const publicPages = () => import('./routes/public-pages');
const RecoveryPage = lazy(() => publicPages().then((m) => ({ default: m.RecoveryPage })));
const VerificationPage = lazy(() => publicPages().then((m) => ({ default: m.VerificationPage })));
const ErrorPage = lazy(() => publicPages().then((m) => ({ default: m.ErrorPage })));
const AuthStateCheckerPage = lazy(() =>
  import('./routes/auth-state-checker-page').then((m) => ({ default: m.AuthStateCheckerPage })),
);
const OrgsSwitchedPage = lazy(() =>
  import('../features/organizations/orgs-switched-page').then((m) => ({ default: m.OrgsSwitchedPage })),
);

/** While a public page's code loads: the same start-up screen the session gate shows. */
function Public({ children }: { children: ReactNode }) {
  return <Suspense fallback={<FullPageState busy="Loading…" />}>{children}</Suspense>;
}

/** The session gate, with the code of the page asked for loading meanwhile (route-preload.ts says why). */
function SignedIn() {
  const router = useRouter();
  const [location] = useLocation();
  useState(() => preloadRoutePage(router.parser, location));
  return (
    <SessionGate>
      <SignedInRoutes />
    </SessionGate>
  );
}

/** Providers, the public pages, and everything else behind the session gate. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <FluentProvider theme={webLightTheme} style={{ minHeight: '100vh' }}>
      <QueryClientProvider client={queryClient}>
        <ErrorBoundary>
          <Switch>
            <Route path={paths.login}>
              <Public>
                <LoginPage />
              </Public>
            </Route>
            <Route path={paths.registration}>
              <Public>
                <RegistrationPage />
              </Public>
            </Route>
            <Route path={paths.recovery}>
              <Public>
                <RecoveryPage />
              </Public>
            </Route>
            <Route path={paths.verification}>
              <Public>
                <VerificationPage />
              </Public>
            </Route>
            <Route path={paths.error}>
              <Public>
                <ErrorPage />
              </Public>
            </Route>
            <Route path={paths.authStateChecker}>
              <Public>
                <AuthStateCheckerPage />
              </Public>
            </Route>
            <Route path={paths.orgsSwitched}>
              <Public>
                <OrgsSwitchedPage />
              </Public>
            </Route>
            <Route>
              <SignedIn />
            </Route>
          </Switch>
        </ErrorBoundary>
        {/* last, so the toasts' dismiss buttons come after the page in the tab order */}
        <ToastHost />
      </QueryClientProvider>
    </FluentProvider>
  );
}
