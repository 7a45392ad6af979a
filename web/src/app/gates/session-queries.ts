import { useQuery } from '@tanstack/react-query';
import type { authKeys } from '../../features/auth/api';
import type { systemKeys } from '../../features/system/api';
import { api } from '../../lib/api-client';

/*
 * The session gate's two queries, the same as features/auth's useWhoami and features/system's useAbout (same keys,
 * options and contracts), except that the zod contracts load with the request: importing those feature modules
 * would put zod and the auth contracts (about 27 kB gzip) in the start-up bundle of every page.
 */

const WHOAMI_KEY: ReturnType<typeof authKeys.whoami> = ['auth', 'whoami'];
const ABOUT_KEY: ReturnType<typeof systemKeys.about> = ['system', 'about'];

/** As useWhoami(): roles are refreshed without caching (spec 000, section 6). */
export function useSessionWhoami() {
  return useQuery({
    queryKey: WHOAMI_KEY,
    queryFn: ({ signal }) =>
      api
        .get('/api/auth/whoami', { schema: () => import('@contracts/auth').then((m) => m.WhoamiResponse), signal })
        .then((r) => r.payload),
    staleTime: 0,
    refetchOnWindowFocus: true,
    retry: false,
  });
}

/** As useAbout(): backend version and deployment mode change only with a deploy. */
export function useSessionAbout() {
  return useQuery({
    queryKey: ABOUT_KEY,
    queryFn: ({ signal }) => api.get('/api/about', { schema: () => import('@contracts/system').then((m) => m.About), signal }),
    staleTime: Infinity,
  });
}
