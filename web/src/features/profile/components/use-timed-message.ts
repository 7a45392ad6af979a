import { useCallback, useEffect, useState } from 'react';

/** Spec 001, section 9: profile-settings messages clear after 10 s. */
export const PROFILE_MESSAGE_MS = 10_000;

export type TimedMessage = { intent: 'success' | 'error'; text: string } | null;

/** A message that disappears on its own after `ms`. */
export function useTimedMessage(ms = PROFILE_MESSAGE_MS): [TimedMessage, (m: TimedMessage) => void] {
  const [message, setMessage] = useState<TimedMessage>(null);
  useEffect(() => {
    if (!message) return;
    const timer = setTimeout(() => setMessage(null), ms);
    return () => clearTimeout(timer);
  }, [message, ms]);
  return [message, useCallback((m: TimedMessage) => setMessage(m), [])];
}
