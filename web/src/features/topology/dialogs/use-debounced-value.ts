import { useEffect, useState } from 'react';

/** Searches wait for this much quiet (spec 000 §9). */
export const SEARCH_MS = 400;

/** The value once it has stopped changing for `ms`: the dialogs' searches ask the server once per pause in typing. */
export function useDebouncedValue<T>(value: T, ms = SEARCH_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
