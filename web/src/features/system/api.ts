import { useQuery } from '@tanstack/react-query';
import { About } from '@contracts/system';
import { api } from '../../lib/api-client';

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
