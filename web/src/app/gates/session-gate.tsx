import { useEffect, useMemo, type ReactNode } from 'react';
import { Button } from '@fluentui/react-components';
import { CloudOff24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { FullPageState } from '../../components/full-page-state';
import { ApiError, errorMessage } from '../../lib/api-client';
import { useAuthConfig } from '../../features/organizations/api';
import { OrganizationGate } from '../../features/organizations/gate';
import { SessionContext, toSessionInfo } from '../session-context';
import { useSessionAbout, useSessionWhoami } from './session-queries';

export const PROVISIONING_TEXT = 'Please wait, instance provisioning in-progress ...';

const PROVISIONING_POLL_MS = 5_000;

/** whoami answering 404 or 5xx means the backend is not provisioned yet (spec 000, "Organization gate"). */
function isProvisioning(err: unknown) {
  return err instanceof ApiError && (err.status === 404 || err.status >= 500);
}

/**
 * Signed-in routes render only once whoami (user, roles, feature flags) and about (mode, version) loaded.
 * Not signed in: the API client already sent the browser to /login?return_to=….
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const whoami = useSessionWhoami();
  const about = useSessionAbout();
  useAuthConfig(); // asked alongside: the organisation gate below needs it (hosted mode)
  const session = useMemo(
    () => (whoami.data && about.data ? toSessionInfo(whoami.data, about.data) : null),
    [whoami.data, about.data],
  );

  // while the backend is being provisioned, keep asking until it answers
  const provisioning = isProvisioning(whoami.error);
  const { refetch } = whoami;
  useEffect(() => {
    if (!provisioning) return;
    const timer = setInterval(() => void refetch(), PROVISIONING_POLL_MS);
    return () => clearInterval(timer);
  }, [provisioning, refetch]);

  if (session) {
    return (
      <SessionContext.Provider value={session}>
        <OrganizationGate>{children}</OrganizationGate>
      </SessionContext.Provider>
    );
  }

  const err = whoami.error ?? about.error;
  if (!err) return <FullPageState busy="Loading…" />;
  if (err instanceof ApiError && err.status === 401) return <FullPageState busy="Redirecting to sign in…" />;
  if (provisioning) {
    return (
      <FullPageState busy={PROVISIONING_TEXT}>
        <Button appearance="secondary" onClick={() => void whoami.refetch()}>
          Check again
        </Button>
      </FullPageState>
    );
  }
  return (
    <FullPageState
      icon={err instanceof ApiError && err.status === 0 ? <CloudOff24Regular /> : <ErrorCircle24Regular />}
      title="The console could not load"
      description={errorMessage(err)}
      role="alert"
      actions={
        <Button appearance="primary" onClick={() => void Promise.all([whoami.refetch(), about.refetch()])}>
          Try again
        </Button>
      }
    />
  );
}
