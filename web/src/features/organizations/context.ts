import { createContext, useContext } from 'react';
import type { Organization } from '@contracts/auth';

/** Hosted mode's organisation state, provided by the organisation gate; null in the self-hosted mode. */
export interface HostedOrganizations {
  active: Organization | null;
  organizations: Organization[];
}

export const HostedContext = createContext<HostedOrganizations | null>(null);

/** Null unless the console runs in hosted mode (AUTH_MODE=oidc) and the provider has organisations. */
export function useHostedOrganizations(): HostedOrganizations | null {
  return useContext(HostedContext);
}
