import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';

/** `GET /api/about` (public). The server has no shared contract for it yet; this mirrors its handler. */
export const About = z.object({
  appVersion: z.string(),
  chartVersion: z.string().nullable().optional(),
  mode: z.enum(['console', 'check-runner', 'agent']).catch('console'),
});
export type About = z.infer<typeof About>;

export const systemKeys = {
  all: ['system'] as const,
  about: () => [...systemKeys.all, 'about'] as const,
};

/** Backend version and deployment mode; they change only with a deploy. */
export function useAbout() {
  return useQuery({
    queryKey: systemKeys.about(),
    queryFn: ({ signal }) => api.get('/api/about', { schema: About, signal }),
    staleTime: Infinity,
  });
}
