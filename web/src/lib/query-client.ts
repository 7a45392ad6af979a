import { MutationCache, QueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from './api-client';
import { toast } from './toast';

/** Cached lists stay fresh for 5 minutes (spec 000, section 9). */
export const LIST_STALE_MS = 300_000;

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /** The form shows the error itself: no toast. */
      silent?: boolean;
    };
  }
}

function shouldRetry(failures: number, err: unknown): boolean {
  // client errors will not change on retry; unreachable errors were already reported to the user
  if (err instanceof ApiError && err.status < 500) return false;
  return failures < 1;
}

/** The app's one query client. Mutation failures toast the server's message unless the mutation is `silent`. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: LIST_STALE_MS, retry: shouldRetry, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
        if (mutation.meta?.silent) return;
        if (err instanceof ApiError && (err.notified || err.status === 401)) return;
        toast.error(errorMessage(err));
      },
    }),
  });
}
