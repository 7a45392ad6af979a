import { useMemo, type ReactNode } from 'react';
import { Button } from '@fluentui/react-components';
import { Building24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { FullPageState } from '../../components/full-page-state';
import { errorMessage } from '../../lib/api-client';
import { useSession } from '../../app/session-context';
import { activeOrganization, useOrganizations } from './api';
import { HostedContext, type HostedOrganizations } from './context';
import { OrganizationPicker } from './organization-picker';
import { useSignOut } from './sign-out';

export const NOT_A_MEMBER_TEXT = 'You are not a member of any organization';

/**
 * Hosted mode: the session's organisation decides the roles. With one active the console opens (the switcher
 * reads the list from here); with none chosen the picker; in none at all, "not a member". A provider that sends no
 * organisation claim (`required: false`) gives console-wide roles: no gate, no switcher.
 */
export function HostedGate({ children }: { children: ReactNode }) {
  const session = useSession();
  const active = activeOrganization(session);
  const orgs = useOrganizations();
  const { signOut, pending } = useSignOut();
  const value = useMemo<HostedOrganizations | null>(() => {
    if (!active) return null;
    return { active, organizations: orgs.data?.organizations ?? [active] };
  }, [active, orgs.data]);

  if (value) return <HostedContext.Provider value={value}>{children}</HostedContext.Provider>;
  if (orgs.isPending) return <FullPageState busy="Loading your organizations…" />;
  if (orgs.isError) {
    return (
      <FullPageState
        icon={<ErrorCircle24Regular />}
        title="Your organizations could not load"
        description={errorMessage(orgs.error)}
        role="alert"
        actions={<Button appearance="primary" onClick={() => void orgs.refetch()}>Try again</Button>}
      />
    );
  }
  if (!orgs.data.required) return <>{children}</>;
  if (!orgs.data.organizations.length) {
    return (
      <FullPageState
        icon={<Building24Regular />}
        title={NOT_A_MEMBER_TEXT}
        description="Ask an administrator of your identity provider to add you to an organization, then sign in again."
        role="alert"
        actions={<Button appearance="primary" onClick={signOut} disabled={pending}>Sign out</Button>}
      />
    );
  }
  return <OrganizationPicker organizations={orgs.data.organizations} onSignOut={signOut} signingOut={pending} />;
}
