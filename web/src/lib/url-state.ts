import { useCallback, useMemo, useRef } from 'react';
import { useSearchParams } from 'wouter';

type Primitive = string | number | boolean;
type Patch = Record<string, string | undefined>;

export interface UrlStateOptions {
  /** Replace the history entry instead of adding one (default true: paging should not flood Back). */
  replace?: boolean;
}

/**
 * The query string as a patchable record: `patch({ pageIndex: '2', sortBy: undefined })` sets one key and removes
 * another in a single navigation, keeping every parameter it was not told about (another component's filters).
 */
export function useSearchPatch(): [URLSearchParams, (patch: Patch, options?: UrlStateOptions) => void] {
  const [params, setParams] = useSearchParams();
  const patch = useCallback(
    (values: Patch, options?: UrlStateOptions) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [key, value] of Object.entries(values)) {
            if (value === undefined || value === '') next.delete(key);
            else next.set(key, value);
          }
          return next;
        },
        { replace: options?.replace ?? true },
      );
    },
    [setParams],
  );
  return [params, patch];
}

function decode<T extends Primitive>(raw: string | null, fallback: T): T {
  if (raw === null) return fallback;
  if (typeof fallback === 'number') {
    const n = Number(raw);
    return (raw.trim() !== '' && Number.isFinite(n) ? n : fallback) as T;
  }
  if (typeof fallback === 'boolean') return (raw === 'true' ? true : raw === 'false' ? false : fallback) as T;
  return raw as T;
}

/**
 * Typed state kept in the URL query, so a shared link restores the view. Each key's type follows its default
 * (numbers parse, junk falls back to the default); values equal to their default are left out of the URL.
 *
 * @example const [state, set] = useUrlState({ sortBy: '', sortOrder: 'asc', pageIndex: 0 });
 *          set({ pageIndex: 3 });
 */
export function useUrlState<T extends Record<string, Primitive>>(
  defaults: T,
): [T, (patch: Partial<T>, options?: UrlStateOptions) => void] {
  const [params, patchParams] = useSearchPatch();
  // callers pass an inline object: key the memo on its content, not its identity
  const defaultsKey = JSON.stringify(defaults);
  const defaultsRef = useRef(defaults);
  defaultsRef.current = defaults;

  const state = useMemo(() => {
    const out = {} as Record<string, Primitive>;
    for (const [key, fallback] of Object.entries(defaultsRef.current)) out[key] = decode(params.get(key), fallback);
    return out as T;
  }, [params, defaultsKey]);

  const set = useCallback(
    (patch: Partial<T>, options?: UrlStateOptions) => {
      const values: Patch = {};
      for (const [key, value] of Object.entries(patch)) {
        values[key] = value === undefined || value === defaultsRef.current[key] ? undefined : String(value);
      }
      patchParams(values, options);
    },
    [patchParams],
  );
  return [state, set];
}
