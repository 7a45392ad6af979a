import { useEffect, useState } from 'react';
import { STATUS_TICK_MS } from './model';

/** The current time, re-read every `intervalMs`: Online turns Offline as time passes, without a refetch. */
export function useNow(intervalMs = STATUS_TICK_MS): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
