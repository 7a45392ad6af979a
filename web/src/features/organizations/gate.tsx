import { lazy, Suspense, type ReactNode } from 'react';
import { FullPageState } from '../../components/full-page-state';
import { useAuthConfig } from './api';

// hosted mode's gate (the picker, "not a member", the switcher's state) loads only when the server runs it
const HostedGate = lazy(() => import('./hosted-gate').then((m) => ({ default: m.HostedGate })));

/**
 * Spec 000 "Organization gate", inside the session gate: in hosted mode (AUTH_MODE=oidc) a session without an
 * organisation gets the picker, and a person in none is told so; the self-hosted mode passes straight through.
 */
export function OrganizationGate({ children }: { children: ReactNode }) {
  const config = useAuthConfig();
  if (config.isPending) return <FullPageState busy="Loading…" />;
  // a config that cannot load leaves the self-hosted behaviour: the session itself loaded
  if (config.data?.mode !== 'oidc') return <>{children}</>;
  return (
    <Suspense fallback={<FullPageState busy="Loading…" />}>
      <HostedGate>{children}</HostedGate>
    </Suspense>
  );
}
