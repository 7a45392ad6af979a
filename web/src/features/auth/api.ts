import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  LoginResponse,
  WhoamiResponse,
  type LoginRequest,
  type RegistrationRequest,
} from '@contracts/auth';
import { api, setCsrfToken } from '../../lib/api-client';

export const authKeys = {
  all: ['auth'] as const,
  whoami: () => [...authKeys.all, 'whoami'] as const,
};

export type Session = WhoamiResponse['payload'];

/**
 * The signed-in user, roles, permissions and feature flags. Roles are refreshed without caching (spec 000,
 * section 6): always stale, refetched when the window regains focus.
 */
export function useWhoami(opts: { allowUnauthorized?: boolean } = {}) {
  return useQuery({
    queryKey: authKeys.whoami(),
    queryFn: ({ signal }) =>
      api.get('/api/auth/whoami', { schema: WhoamiResponse, signal, ...opts }).then((r) => r.payload),
    staleTime: 0,
    refetchOnWindowFocus: true,
    retry: false,
  });
}

/** After a sign-in or sign-out nothing cached for the previous user may show. */
function useStartSession() {
  const qc = useQueryClient();
  return (answer: LoginResponse) => {
    setCsrfToken(answer.csrf_token);
    qc.clear();
  };
}

export function useLogin() {
  const start = useStartSession();
  return useMutation({
    mutationFn: (body: LoginRequest) =>
      api.post('/api/auth/login', body, { schema: LoginResponse, allowUnauthorized: true, csrf: false }),
    onSuccess: start,
    meta: { silent: true },
  });
}

export function useRegistration() {
  const start = useStartSession();
  return useMutation({
    mutationFn: (body: RegistrationRequest) =>
      api.post('/api/auth/registration', body, { schema: LoginResponse, allowUnauthorized: true, csrf: false }),
    onSuccess: start,
    meta: { silent: true },
  });
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('/api/auth/logout', undefined, { csrf: false, allowUnauthorized: true }),
    onSettled: () => {
      setCsrfToken(null);
      qc.clear();
    },
  });
}
