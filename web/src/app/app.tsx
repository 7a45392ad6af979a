import { useState } from 'react';
import { Provider as JotaiProvider } from 'jotai';
import { QueryClientProvider } from '@tanstack/react-query';
import { Route, Switch } from 'wouter';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import { createQueryClient } from '../lib/query-client';
import { ToastHost } from '../lib/toast';
import { ErrorBoundary } from './gates/error-boundary';
import { SessionGate } from './gates/session-gate';
import { paths } from './paths';
import { LoginPage } from './routes/login-page';
import { AuthStateCheckerPage, ErrorPage, SelfServicePage } from './routes/public-pages';
import { RegistrationPage } from './routes/registration-page';
import { SignedInRoutes } from './signed-in-routes';

/** Providers, the public pages, and everything else behind the session gate. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <FluentProvider theme={webLightTheme} style={{ minHeight: '100vh' }}>
      <QueryClientProvider client={queryClient}>
        <JotaiProvider>
          <ToastHost />
          <ErrorBoundary>
            <Switch>
              <Route path={paths.login} component={LoginPage} />
              <Route path={paths.registration} component={RegistrationPage} />
              <Route path={paths.recovery}>
                <SelfServicePage title="Account recovery" />
              </Route>
              <Route path={paths.verification}>
                <SelfServicePage title="Verify your email" />
              </Route>
              <Route path={paths.error} component={ErrorPage} />
              <Route path={paths.authStateChecker} component={AuthStateCheckerPage} />
              <Route>
                <SessionGate>
                  <SignedInRoutes />
                </SessionGate>
              </Route>
            </Switch>
          </ErrorBoundary>
        </JotaiProvider>
      </QueryClientProvider>
    </FluentProvider>
  );
}
