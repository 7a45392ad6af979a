import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';

/**
 * Keeps the tab subscribed to live updates while mounted. Call once, in the signed-in layout. The socket and its rules
 * (live-socket.ts: the query-key convention, which relation refreshes what) load after the first render, outside the
 * start-up bundle (/health's initial JavaScript has a 250 kB budget).
 */
export function useLiveUpdates(): void {
  const qc = useQueryClient();
  useEffect(() => {
    let live: { stop(): void } | undefined;
    let unmounted = false;
    void import('./live-socket').then(
      (m) => {
        if (!unmounted) live = new m.LiveSocket(qc);
      },
      () => undefined, // a failed download: the pages still work, refreshed by hand or by their intervals
    );
    return () => {
      unmounted = true;
      live?.stop();
    };
  }, [qc]);
}
