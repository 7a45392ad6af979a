import { useMutation, useQuery } from '@tanstack/react-query';
import type { AuthConfigResponse, Organization, OrganizationsResponse } from '@contracts/auth';
import { api, setHostedAuth } from '../../lib/api-client';

/*
 * Hosted mode (AUTH_MODE=oidc, issue 17): which sign-in the server runs, the caller's organisations, the switch.
 * Types only from the contracts (no zod here): the session gate reads the config, so this module is in the start-up
 * bundle.
 */

export const organizationKeys = {
  config: () => ['auth', 'config'] as const,
  list: () => ['auth', 'organizations'] as const,
};

export type AuthConfig = AuthConfigResponse;
export type { Organization, OrganizationsResponse };

/**
 * GET /api/auth/config (public): local, or hosted with the provider's name and sign-in link. A server without the
 * route (404) runs the self-hosted sign-in. The API client learns the mode too (a signed-out tab's destination).
 */
export function useAuthConfig() {
  return useQuery({
    queryKey: organizationKeys.config(),
    queryFn: async ({ signal }) => {
      const config = await api
        .get<AuthConfig>('/api/auth/config', { signal, allowUnauthorized: true })
        .catch((err: unknown): AuthConfig => {
          if ((err as { status?: number }).status === 404) return { mode: 'local', local_login: 'all' };
          throw err;
        });
      setHostedAuth(config.mode === 'oidc');
      return config;
    },
    staleTime: Infinity,
    retry: 1,
  });
}

/** GET /api/auth/organizations: the caller's organisations and the session's active one. */
export function useOrganizations(enabled = true) {
  return useQuery({
    queryKey: organizationKeys.list(),
    queryFn: ({ signal }) => api.get<OrganizationsResponse>('/api/auth/organizations', { signal }),
    enabled,
    staleTime: 60_000,
  });
}

/**
 * POST /api/auth/organizations/switch. The caller then goes to /organizations/orgs-switched, which drops every
 * cached answer (they belonged to the other organisation's roles) before going home.
 */
export function useSwitchOrganization() {
  return useMutation({
    mutationFn: (organizationId: string) => api.post('/api/auth/organizations/switch', { organization_id: organizationId }),
  });
}

/** The session's active organisation as whoami reports it (hosted mode), else null. */
export function activeOrganization(session: { organization?: Organization | null }): Organization | null {
  return session.organization ?? null;
}
